// An unclosed bracket is a syntax error pointing at the opening bracket.
quasar::quasar! { r#"
function y = first(x : vec)
    y = x[0
endfunction
"# }

fn main() {}
