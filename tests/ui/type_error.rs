// A type error is a Rust compile error naming the Quasar line and column.
quasar::quasar! { r#"
function y = scale(x : mat, a : scalar)
    y = x * a
endfunction
z = scale("not a matrix", 2)
"# }

fn main() {}
