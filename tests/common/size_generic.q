% Generic size parameters that no call in this module fixes (manual §6.7): the exported
% functions take them from their arguments' sizes at run time.

% The manual's color transform, with any number of channels.
function img_out = colortransform[N](C : mat(N,N), img : cube(:, :, N))
    img_out = zeros(size(img,0),size(img,1),N)
    {!parallel for}
    for m=0..size(img,0)-1
        for n=0..size(img,1)-1
            img_out[m,n,:] = (C * squeeze(img[m,n,:]))
        endfor
    endfor
endfunction

% `N` as a value, and a kernel nested in the function reading it.
function [n, y] = running_sums[N](v : vec(N))
    n = N
    y = zeros(N)
    function [] = __kernel__ prefix(y : vec, v : vec, pos : int)
        total = 0.0
        for i = 0..min(pos, N - 1)
            total += v[i]
        endfor
        y[pos] = total
    endfunction
    parallel_do(N, y, v, prefix)
endfunction
