% Kernels that fail at run time: tests/kernel_errors.rs checks that each error names the
% Quasar file:line:col of the failing access or statement, on the CPU and on the GPU.

function [] = __kernel__ read_past(x : vec'checked, y : vec, s : int, pos : int)
    y[pos] = x[pos + s]
endfunction

function [] = __kernel__ write_past(y : mat'checked, s : int, pos : ivec2)
    y[pos[0], pos[1] + s] = 1
endfunction

function [] = __kernel__ write_past_3d(y : cube'checked, s : int, pos : ivec3)
    y[pos[0], pos[1] + s, pos[2]] = 1
endfunction

function [] = __kernel__ refuse(y : vec, s : int, pos : int)
    if pos + s >= numel(y)
        error("the shift runs past the end")
    endif
    y[pos] = s
endfunction

function [] = __kernel__ insist(y : vec, s : int, pos : int)
    assert(pos + s < numel(y))
    y[pos] = s
endfunction

function [] = __kernel__ insist_with_message(y : vec, s : int, pos : int)
    assert(s >= 0, "negative shift")
    y[pos] = s
endfunction

function y : vec = shift(x : vec, s : int)
    y = zeros(numel(x))
    parallel_do(numel(x), x, y, s, read_past)
endfunction

function y : mat = shift_columns(m : int, n : int, s : int)
    y = zeros(m, n)
    parallel_do([m, n], y, s, write_past)
endfunction

function y : cube = shift_middle(m : int, n : int, p : int, s : int)
    y = zeros(m, n, p)
    parallel_do([m, n, p], y, s, write_past_3d)
endfunction

function y : vec = checked_shift(n : int, s : int, which : int)
    y = zeros(n)
    if which == 0
        parallel_do(n, y, s, refuse)
    elseif which == 1
        parallel_do(n, y, s, insist)
    else
        parallel_do(n, y, s, insist_with_message)
    endif
endfunction

% Launch dimensions given as scalars (the checker warns that they are truncated).
function [] = __kernel__ mark(y : mat, pos : ivec2)
    y[pos] = 1
endfunction

function y : mat = mark_top_left(m : int, n : int)
    y = zeros(m, n)
    parallel_do(size(y) / 2, y, mark)
endfunction
