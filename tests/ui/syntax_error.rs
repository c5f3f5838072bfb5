// A Quasar syntax error is a Rust compile error naming the Quasar line and column.
quasar::quasar! { r#"
function y = brighten(x : mat, a : scalar)
    y = x + ) a
endfunction
"# }

fn main() {}
