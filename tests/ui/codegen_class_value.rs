// Classes type-check, but the Rust backend does not generate code for class values yet.
quasar::quasar! { r#"
type point : class
    x : scalar
    y : scalar
endtype
p = point(x := 1.0, y := 2.0)
"# }

fn main() {}
