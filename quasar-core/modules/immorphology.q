% immorphology.q: grey-scale morphology of Quasar for Rust's standard library.
%
% The original's definitions are not published; these follow MATLAB's functions of the same
% names with a flat structuring element given as a mask (non-zero entries belong to it):
%   imerode(x, mask, center)   y[m, n, c] = min of x[m + i - center[0], n + j - center[1], c]
%                              over the mask's non-zero (i, j) inside the image
%   imdilate(x, mask, center)  the same with max
%   imopen(x, mask, center)    imdilate(imerode(x, ...), ...)
%   imclose(x, mask, center)   imerode(imdilate(x, ...), ...)
% center defaults to floor((size(mask) - 1) / 2). Pixels outside the image are ignored, as
% MATLAB pads erosion with +Inf and dilation with -Inf.
%
% It imports imfilter.q: real code that imports immorphology.q, system.q, inttypes.q and
% colortransform.q, but not imfilter.q, calls gaussian_filter, so one of them made it visible
% in the original (imports are transitive).
import "imfilter.q"

function [] = __kernel__ morph_kernel(x : cube'const, mask : mat'const, y : cube, center : ivec2, dilate : int, pos : ivec3)
    acc = x[pos]
    for i = 0..size(mask, 0) - 1
        for j = 0..size(mask, 1) - 1
            m = pos[0] + i - center[0]
            n = pos[1] + j - center[1]
            if mask[i, j] != 0 && m >= 0 && n >= 0 && m < size(x, 0) && n < size(x, 1)
                v = x[m, n, pos[2]]
                if dilate == 1
                    acc = max(acc, v)
                else
                    acc = min(acc, v)
                endif
            endif
        endfor
    endfor
    y[pos] = acc
endfunction

function c = morph_center(mask : mat, center : ivec2)
    c = center
    if c[0] < 0
        c = [int(floor((size(mask, 0) - 1) / 2)), int(floor((size(mask, 1) - 1) / 2))]
    endif
endfunction

function y = imerode(x : cube, mask : mat, center : ivec2 = [-1, -1])
    y = uninit(size(x))
    parallel_do(size(y), x, mask, y, morph_center(mask, center), 0, morph_kernel)
endfunction

function y = imdilate(x : cube, mask : mat, center : ivec2 = [-1, -1])
    y = uninit(size(x))
    parallel_do(size(y), x, mask, y, morph_center(mask, center), 1, morph_kernel)
endfunction

function y = imopen(x : cube, mask : mat, center : ivec2 = [-1, -1])
    y = imdilate(imerode(x, mask, center), mask, center)
endfunction

function y = imclose(x : cube, mask : mat, center : ivec2 = [-1, -1])
    y = imerode(imdilate(x, mask, center), mask, center)
endfunction
