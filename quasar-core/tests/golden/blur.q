% A separable blur with mirrored borders and a radius parameter: the interior/border
% partition (`transform::interior`) and what both back ends make of it.
function [] = __kernel__ blur_rows(x : mat'mirror, y : mat, w : vec'const, n : int, pos : ivec2)
    acc = 0.0
    for i = 0..numel(w) - 1
        acc += x[pos + [0, i - n]] * w[i]
    endfor
    y[pos] = acc
endfunction

function y : mat = blur(x : mat, w : vec)
    n = int((numel(w) - 1) / 2)
    y = uninit(size(x))
    parallel_do(size(x), x, y, w, n, blur_rows)
endfunction
