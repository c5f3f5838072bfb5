% Explicit specialization (manual §6.5): type, value and predicate constraints.

function y = __device__ soft_thresholding(x, T)
    if abs(x) >= T
        y = (abs(x) - T) * (x / abs(x))
    else
        y = 0.0
    endif
endfunction

% The generic function as it is, for comparison.
function y : scalar = threshold(x : scalar, T : scalar)
    y = soft_thresholding(x, T)
endfunction

% T fixed at 10: the copy takes x only.
function y : vec = threshold_at_ten(x : vec)
    st = $specialize(soft_thresholding, type(x, "scalar") && type(T, "scalar") && T == 10)
    y = zeros(numel(x))
    for i = 0..numel(x) - 1
        y[i] = st(x[i])
    endfor
endfunction

% Assumed positive: calling it with a negative value fails the assumption.
function y : scalar = threshold_positive(x : scalar, T : scalar)
    sp = $specialize(soft_thresholding, type(x, "scalar") && type(T, "scalar") && x > 0)
    y = sp(x, T)
endfunction

function [] = __kernel__ filter_kernel(x : mat, y : mat'unchecked, a : vec, dir : ivec2, pos : ivec2)
    offset = int(numel(a) / 2)
    total = 0.
    for k = 0..numel(a) - 1
        total += x[pos + (k - offset) .* dir] * a[k]
    endfor
    y[pos] = total
endfunction

% The manual's three launches of one filter: as written, reading x through the texture
% hint, and with the taps and the direction fixed.
function [] = filter_three_ways(im : mat, o1 : mat, o2 : mat, o3 : mat, a : vec)
    parallel_do(size(im), im, o1, a, [0, 1], filter_kernel)
    parallel_do(size(im), im, o2, a, [0, 1], $specialize(filter_kernel, type(x, mat'hwtex_nearest)))
    parallel_do(size(im), im, o3, $specialize(filter_kernel, type(x, mat'hwtex_nearest) && a == [1, 2, 3, 2, 1] / 9 && dir == [0, 1]))
endfunction

% `$inline(f)(x)` is `f(x)`.
function y : scalar = inlined(x : scalar)
    twice = v -> 2 * v
    y = $inline(twice)(x) + 1
endfunction

% `$typerecon`: the type of the specialized function, a type value (its name on the host).
function t : string = reconstructed()
    t = $typerecon(soft_thresholding, type(x, "scalar") && type(T, "scalar"))
endfunction
