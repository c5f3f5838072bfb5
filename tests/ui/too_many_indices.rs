// Indexing a matrix with three indices is a type error.
quasar::quasar! { r#"
A = zeros(4, 5)
b = A[1, 2, 3]
"# }

fn main() {}
