// Source that parses is answered honestly: code generation does not exist yet.
quasar::quasar! { r#"
function y = brighten(x : mat, a : scalar)
    y = x + a
endfunction
"# }

fn main() {}
