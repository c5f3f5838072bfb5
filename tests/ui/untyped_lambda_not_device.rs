// A host lambda is not a `__device__` function value (manual §4.2): an untyped lambda given
// for a `[__device__ scalar -> scalar]` parameter is a type mismatch at the call.
quasar::quasar! { r#"
function y = caller(t : scalar)
    function r = run(f : [__device__ scalar -> scalar], x : scalar)
        r = f(x)
    endfunction
    y = run(x -> 2 * x, t)
endfunction
"# }

fn main() {}
