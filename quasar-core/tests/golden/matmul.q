% A matrix product kernel. Its inner loop's reads are indexed by a loop variable bounded by a
% run-time size: `a[pos[0], k]` is inside `a` for any launch, `b[k, pos[1]]` only when
% `size(a, 1) - 1 < size(b, 0)`, a guard on the launch (`transform::interior`) checked once,
% without which the whole launch runs the checked code. The read under the `if` gives no
% guard and stays checked.
function [] = __kernel__ matmul_k(a : mat, b : mat, c : mat, pos : ivec2)
    s = 0.0
    for k = 0..size(a, 1) - 1
        s += a[pos[0], k] * b[k, pos[1]]
    endfor
    c[pos] = s
endfunction

function [] = __kernel__ masked_k(a : mat, b : mat, c : mat, pos : ivec2)
    s = 0.0
    for k = 0..size(a, 1) - 1
        if a[pos[0], k] != 0
            s += b[k, pos[1]]
        endif
    endfor
    c[pos] = s
endfunction

function [c : mat, d : mat] = products(a : mat, b : mat)
    c = zeros(size(a, 0), size(b, 1))
    d = zeros(size(a, 0), size(b, 1))
    parallel_do(size(c), a, b, c, matmul_k)
    parallel_do(size(d), a, b, d, masked_k)
endfunction
