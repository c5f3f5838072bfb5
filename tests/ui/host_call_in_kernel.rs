// A `__kernel__` function can only call `__device__` functions, not host functions.
quasar::quasar! { r#"
function y = twice(x)
    y = 2 * x
endfunction
function [] = __kernel__ fill(y : vec, pos : int)
    y[pos] = twice(1.0)
endfunction
y = zeros(4)
parallel_do(numel(y), y, fill)
"# }

fn main() {}
