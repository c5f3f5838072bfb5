// `eval` evaluates Quasar text at run time, which a program compiled ahead of time cannot do:
// the error names `eval`, says why, and points at the call.
quasar::quasar! { r#"
function [] = evaluated(text : string)
    print eval(text)
endfunction
"# }

fn main() {}
