// An exported function needs parameter types: an annotation or a call in the module that fixes them.
quasar::quasar! { r#"
function y = twice(x)
    y = 2 * x
endfunction
"# }

fn main() {}
