// The fields of an immutable class cannot be changed (manual §2.2.6).
quasar::quasar! { r#"
type point : class
    x : scalar
    y : scalar
endtype
p = point(x := 1.0, y := 2.0)
p.x = 3.0
"# }

fn main() {}
