% Functional image processing (manual chapter 15), written for these tests: an image is a
% function from a pixel position to a colour, an algorithm computes one output pixel from an
% image, and reductions give `|>` (pipelining), `deferred(…)`, `immediate(…)` and `:=`
% (rasterizing) their meaning. Used by tests/e2e_functional_images.rs.
%
% The pipeline runs on the host: images here are host closures. The manual's `__device__`
% form (one kernel for the whole chain) is tests/common/functional_device.q.

type image : [ivec2 -> vec3]
type algorithm : [(image, ivec2) -> vec3]
type application : [(image, algorithm) -> image]

% Pixels outside the array repeat the nearest border pixel.
function img : image = make_image(data : cube)
    last = size(data, 0..1) - 1
    img = (pos : ivec2) -> data[max(0, min(pos[0], last[0])), max(0, min(pos[1], last[1])), 0..2]
endfunction

% Rasterizing: the image evaluated at every position of an array of size `sz`.
function y : cube = compute(x : image, sz : ivec3)
    y = zeros(sz)
    {!serial for}
    for m = 0..sz[0] - 1
        for n = 0..sz[1] - 1
            y[m, n, 0..2] = x([m, n])
        endfor
    endfor
endfunction

% Deferred: nothing is computed until the image is rasterized.
function out : image = apply_deferred(x : image, p : algorithm)
    out = (pos : ivec2) -> p(x, pos)
endfunction

% Immediate: the intermediate result is rasterized, then read as an image again.
apply_immediate : [ivec3 -> application] = _
    sz -> (x : image, p : algorithm) -> make_image(compute(apply_deferred(x, p), sz))

function algo : algorithm = translate(shift : ivec2)
    algo = (x : image, pos : ivec2) -> x(pos + shift)
endfunction

function algo : algorithm = pointwise(gain : scalar, offset : scalar)
    algo = (x : image, pos : ivec2) -> gain * x(pos) + offset
endfunction

% Mean filters over N pixels along one dimension (N odd), as nested functions.
function algo : algorithm = mean_filter_hor(N : int)
    norm_factor = 1.0 / N
    function y : vec3 = hor(input : image, pos : ivec2)
        y = [0.0, 0.0, 0.0]
        for n = -int(N / 2)..int(N / 2)
            y = y + input(pos + [0, n])
        endfor
        y = y * norm_factor
    endfunction
    algo = hor
endfunction

function algo : algorithm = mean_filter_ver(N : int)
    norm_factor = 1.0 / N
    function y : vec3 = ver(input : image, pos : ivec2)
        y = [0.0, 0.0, 0.0]
        for n = -int(N / 2)..int(N / 2)
            y = y + input(pos + [n, 0])
        endfor
        y = y * norm_factor
    endfunction
    algo = ver
endfunction

% The pipeline's vocabulary: names that exist only while compiling.
symbolic immediate, deferred
reduction (x : cube, y) -> (x |> y) = make_image(x) |> y
reduction (x : image, a : algorithm, sz : ivec3) -> (x |> immediate(sz, a)) = _
    apply_immediate(sz)(x, a)
reduction (x : image, a : algorithm) -> (x |> deferred(a)) = apply_deferred(x, a)
reduction (x : image, a : algorithm) -> (x |> a) = apply_deferred(x, a)
reduction (y : cube, x : image) -> (y := x) = y = compute(x, size(y))

% Translation, then a 3x5 mean filter (vertical pass deferred, horizontal pass last).
function im_out : cube = translate_and_blur(im : cube, dm : int, dn : int)
    im_out = zeros(size(im))
    im_out := im |> deferred(translate([dm, dn])) _
                 |> deferred(mean_filter_ver(3)) _
                 |> mean_filter_hor(5)
endfunction

% The same filter with the vertical pass rasterized in between, then a gain.
function im_out : cube = blur_immediate(im : cube)
    im_out = zeros(size(im))
    im_out := im |> immediate(size(im), mean_filter_ver(3)) _
                 |> mean_filter_hor(5) _
                 |> deferred(pointwise(2.0, -0.5))
endfunction
