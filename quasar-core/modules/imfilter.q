% imfilter.q: linear filtering of Quasar for Rust's standard library.
%
% The original's definitions are not published; these follow MATLAB's imfilter:
%   imfilter(x, mask, center, mode)  the correlation
%       y[m, n, c] = sum over i, j of mask[i, j] * x[m + i - center[0], n + j - center[1], c]
%     of every channel of x with mask (not flipped, as MATLAB's default), center defaulting to
%     floor((size(mask) - 1) / 2) (MATLAB's origin). mode says how x continues past its border:
%     "mirror" (the default; Quasar's 'mirror access), "clamped" (MATLAB's "replicate"),
%     "circular" or "zero" (0 outside). Another mode is an error naming imfilter.
%   imfilter_sep(x, hx, hy, mode)  the separable filter: the row vector hx along the columns
%     (dimension 1), then hy along the rows (dimension 0), both centred at floor((n - 1) / 2).
%   gaussian_filter(x, sigma, n)  a separable Gaussian of standard deviation sigma and n taps
%     (default 2 ceil(3 sigma) + 1), normalised to sum 1, with mirrored borders.
%   gaussian_kernel(sigma, n)  its taps.

function [] = __kernel__ filter_mirror(x : cube'mirror'const, mask : mat'const, y : cube, center : ivec2, pos : ivec3)
    acc = 0.0
    for i = 0..size(mask, 0) - 1
        for j = 0..size(mask, 1) - 1
            acc = acc + mask[i, j] * x[pos[0] + i - center[0], pos[1] + j - center[1], pos[2]]
        endfor
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ filter_clamped(x : cube'clamped'const, mask : mat'const, y : cube, center : ivec2, pos : ivec3)
    acc = 0.0
    for i = 0..size(mask, 0) - 1
        for j = 0..size(mask, 1) - 1
            acc = acc + mask[i, j] * x[pos[0] + i - center[0], pos[1] + j - center[1], pos[2]]
        endfor
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ filter_circular(x : cube'circular'const, mask : mat'const, y : cube, center : ivec2, pos : ivec3)
    acc = 0.0
    for i = 0..size(mask, 0) - 1
        for j = 0..size(mask, 1) - 1
            acc = acc + mask[i, j] * x[pos[0] + i - center[0], pos[1] + j - center[1], pos[2]]
        endfor
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ filter_zero(x : cube'safe'const, mask : mat'const, y : cube, center : ivec2, pos : ivec3)
    acc = 0.0
    for i = 0..size(mask, 0) - 1
        for j = 0..size(mask, 1) - 1
            acc = acc + mask[i, j] * x[pos[0] + i - center[0], pos[1] + j - center[1], pos[2]]
        endfor
    endfor
    y[pos] = acc
endfunction

function y = imfilter(x : cube, mask : mat, center : ivec2 = [-1, -1], mode : string = "mirror")
    c = center
    if c[0] < 0
        c = [int(floor((size(mask, 0) - 1) / 2)), int(floor((size(mask, 1) - 1) / 2))]
    endif
    y = uninit(size(x))
    if mode == "mirror" || mode == "symmetric"
        parallel_do(size(y), x, mask, y, c, filter_mirror)
    elseif mode == "clamped" || mode == "replicate"
        parallel_do(size(y), x, mask, y, c, filter_clamped)
    elseif mode == "circular"
        parallel_do(size(y), x, mask, y, c, filter_circular)
    elseif mode == "zero" || mode == "safe"
        parallel_do(size(y), x, mask, y, c, filter_zero)
    else
        error("imfilter: unknown boundary mode ", mode, " (mirror, clamped, circular, zero)")
    endif
endfunction

function y = imfilter_sep(x : cube, hx : vec, hy : vec, mode : string = "mirror")
    row = reshape(hx, [1, numel(hx)])
    col = reshape(hy, [numel(hy), 1])
    t = imfilter(x, row, [0, int(floor((numel(hx) - 1) / 2))], mode)
    y = imfilter(t, col, [int(floor((numel(hy) - 1) / 2)), 0], mode)
endfunction

function h = gaussian_kernel(sigma : scalar, n : int)
    h = zeros(n)
    c = (n - 1) / 2
    for k = 0..n - 1
        h[k] = exp(-(k - c) * (k - c) / (2 * sigma * sigma))
    endfor
    h = h / sum(h)
endfunction

function y = gaussian_filter(x : cube, sigma : scalar, n : int = 2 * int(ceil(3 * sigma)) + 1)
    h = gaussian_kernel(sigma, n)
    y = imfilter_sep(x, h, h, "mirror")
endfunction
