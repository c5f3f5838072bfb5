// Using a name that is not defined is a type error.
quasar::quasar! { r#"
function y = brighten(x : mat, a : scalar)
    y = x + gain
endfunction
"# }

fn main() {}
