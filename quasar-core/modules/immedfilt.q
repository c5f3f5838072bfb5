% immedfilt.q: median filtering of Quasar for Rust's standard library.
%
% The original's definitions are not published. Real code calls immedfilt(img, r), r being
% "the window size of the median filter" (2 by default there), and compares the result with
% img; these follow MATLAB's medfilt2:
%   immedfilt(x, r)          the median of the (2r + 1) x (2r + 1) window centred at each
%                            pixel, of every channel, the image mirrored past its border
%                            (the edge repeated: MATLAB's "symmetric"); r defaults to 1
%   medfilt2(x, sz, padopt)  MATLAB's medfilt2: the median of the sz[0] x sz[1] window whose
%                            centre is at floor((sz - 1) / 2) in it (sz defaults to [3, 3]),
%                            with padopt "zeros" (the default: 0 outside the image) or
%                            "symmetric"; another padopt is an error naming medfilt2
% The median of an even number of values is the mean of the middle two, as MATLAB's medfilt2
% gives for floating-point images. NaNs are not ordered: a window holding one has no defined
% median here.

% The k1-th and k2-th smallest values of the window (0-based; k1 = k2 for an odd count)
% found by counting, for each value, those below it and those equal to it: no per-thread
% buffer, the same code on every device.
function [] = __kernel__ median_symmetric(x : cube'mirror'const, y : cube, lo : ivec2, hi : ivec2, k1 : int, k2 : int, pos : ivec3)
    a = 0.0
    b = 0.0
    for i = pos[0] - lo[0]..pos[0] + hi[0]
        for j = pos[1] - lo[1]..pos[1] + hi[1]
            v = x[i, j, pos[2]]
            below = 0
            same = 0
            for s = pos[0] - lo[0]..pos[0] + hi[0]
                for t = pos[1] - lo[1]..pos[1] + hi[1]
                    w = x[s, t, pos[2]]
                    if w < v
                        below = below + 1
                    elseif w == v
                        same = same + 1
                    endif
                endfor
            endfor
            if below <= k1 && k1 < below + same
                a = v
            endif
            if below <= k2 && k2 < below + same
                b = v
            endif
        endfor
    endfor
    y[pos] = (a + b) / 2
endfunction

% The same with 0 outside the image.
function [] = __kernel__ median_zeros(x : cube'safe'const, y : cube, lo : ivec2, hi : ivec2, k1 : int, k2 : int, pos : ivec3)
    a = 0.0
    b = 0.0
    for i = pos[0] - lo[0]..pos[0] + hi[0]
        for j = pos[1] - lo[1]..pos[1] + hi[1]
            v = x[i, j, pos[2]]
            below = 0
            same = 0
            for s = pos[0] - lo[0]..pos[0] + hi[0]
                for t = pos[1] - lo[1]..pos[1] + hi[1]
                    w = x[s, t, pos[2]]
                    if w < v
                        below = below + 1
                    elseif w == v
                        same = same + 1
                    endif
                endfor
            endfor
            if below <= k1 && k1 < below + same
                a = v
            endif
            if below <= k2 && k2 < below + same
                b = v
            endif
        endfor
    endfor
    y[pos] = (a + b) / 2
endfunction

% The window reaches lo rows and columns before each pixel and hi after it.
function y = median_window(x : cube, lo : ivec2, hi : ivec2, symmetric : int)
    n = (lo[0] + hi[0] + 1) * (lo[1] + hi[1] + 1)
    k1 = int(floor((n - 1) / 2))
    k2 = int(floor(n / 2))
    y = uninit(size(x))
    if symmetric == 1
        parallel_do(size(y), x, y, lo, hi, k1, k2, median_symmetric)
    else
        parallel_do(size(y), x, y, lo, hi, k1, k2, median_zeros)
    endif
endfunction

function y = immedfilt(x : cube, r : int = 1)
    if r < 0
        error("immedfilt: the radius r must be at least 0, found ", r)
    endif
    y = median_window(x, [r, r], [r, r], 1)
endfunction

function y = medfilt2(x : cube, sz : ivec2 = [3, 3], padopt : string = "zeros")
    if sz[0] < 1 || sz[1] < 1
        error("medfilt2: the window size must be at least [1, 1], found [", sz[0], ", ", sz[1], "]")
    endif
    lo = [int(floor((sz[0] - 1) / 2)), int(floor((sz[1] - 1) / 2))]
    hi = [sz[0] - 1 - lo[0], sz[1] - 1 - lo[1]]
    if padopt == "zeros"
        y = median_window(x, lo, hi, 0)
    elseif padopt == "symmetric"
        y = median_window(x, lo, hi, 1)
    else
        error("medfilt2: unknown padopt ", padopt, " (zeros, symmetric)")
    endif
endfunction
