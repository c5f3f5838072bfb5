// A variable given two lambdas without parameter types and passed on to a function that does
// not call it: no call tells the types of their parameters, so it has no one function type.
quasar::quasar! { r#"
function y = keep(f, x)
    y = x
endfunction
function y = pick(t : scalar)
    f = x -> x + 1
    if t > 0
        f = x -> 2 * x
    endif
    y = keep(f, t)
endfunction
"# }

fn main() {}
