// A lambda passed as a value needs parameter types: `compose` cannot be compiled for `inc`
// and `dbl`, whose parameter types nothing fixes (named at the call, not an internal error).
quasar::quasar! { r#"
function y = composed(t : scalar)
    compose = (f, g) -> x -> f(g(x))
    inc = x -> x + 1
    dbl = x -> 2 * x
    c = compose(inc, dbl)
    y = c(t)
endfunction
"# }

fn main() {}
