// A variable given two lambdas without parameter types and only passed on: no call in the
// function tells the types of their parameters, so it has no one function type.
quasar::quasar! { r#"
function y = apply(f, x)
    y = f(x)
endfunction
function y = pick(t : scalar)
    f = x -> x + 1
    if t > 0
        f = x -> 2 * x
    endif
    y = apply(f, t)
endfunction
"# }

fn main() {}
