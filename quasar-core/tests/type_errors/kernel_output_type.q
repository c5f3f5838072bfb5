% Kernel outputs are numbers or small vectors (manual §4.7).
function [y : mat] = __kernel__ copy_all(A : mat, pos : ivec2)
    y = A
endfunction
A = zeros(4, 4)
y = parallel_do(size(A), A, copy_all)
