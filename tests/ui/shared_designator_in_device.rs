// Shared memory designators are declared at the top level of a kernel body; a device
// function cannot have them (manual §9.2, the table of `shared()` and `: 'shared`).
quasar::quasar! { r#"
function y = __device__ first(x : vec)
    s : 'shared = zeros(4)
    y = s[0] + x[0]
endfunction
function [] = __kernel__ k(x : vec, y : vec, pos : int)
    y[pos] = first(x)
endfunction
function y = run(x : vec)
    y = zeros(4)
    parallel_do(4, x, y, k)
endfunction
"# }

fn main() {}
