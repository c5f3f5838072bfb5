% Functional image processing on the device (manual chapter 15), written for these tests:
% images are `__device__` closures from a pixel position to a colour, algorithms are device
% functions of an image and a position, stages are applied deferred (nothing is computed
% until the result is rasterized), and rasterizing is one kernel launch that calls the
% whole chain of closures for each pixel. Used by tests/e2e_functional_device.rs.

type image : [__device__ ivec2'const -> vec3]
type algorithm : [__device__ (image, ivec2'const) -> vec3]

% Pixels outside the array repeat the nearest border pixel.
function img : image = make_image(data : cube)
    last = size(data, 0..1) - 1
    img = __device__ (pos) -> data[max(0, min(pos[0], last[0])), max(0, min(pos[1], last[1])), 0..2]
endfunction

% A translated image: a device closure capturing another.
function out : image = translated(x : image, shift : ivec2)
    out = __device__ (pos) -> x(pos + shift)
endfunction

% Rasterizing: one kernel evaluates the image at every pixel.
function y : cube = compute(x : image, sz : ivec3)
    y = zeros(sz)
    parallel_do(sz[0..1], __kernel__ (pos : ivec2) -> y[pos[0], pos[1], 0..2] = x(pos))
endfunction

function y : cube = copy_image(im : cube)
    y = compute(make_image(im), size(im))
endfunction

function y : cube = shifted(im : cube, dm : int, dn : int)
    y = compute(translated(make_image(im), [dm, dn]), size(im))
endfunction

% Two translations: a closure capturing a closure capturing the array.
function y : cube = shifted_twice(im : cube, dm : int, dn : int)
    y = compute(translated(translated(make_image(im), [dm, 0]), [0, dn]), size(im))
endfunction

% The same stages as variables declared with function types holding lambdas (the manual's
% style): each is instantiated for the device closures it is given.
image_of : [cube -> image] = _
    d -> __device__ (pos) -> d[max(0, min(pos[0], size(d, 0) - 1)), max(0, min(pos[1], size(d, 1) - 1)), 0..2]
rasterize : [(image, ivec3) -> cube] = _
    (x, sz) -> (y = zeros(sz); parallel_do(sz[0..1], __kernel__ (pos : ivec2) -> y[pos[0], pos[1], 0..2] = x(pos)); y)

function y : cube = shifted_by_lambdas(im : cube, dm : int, dn : int)
    y = rasterize(translated(image_of(im), [dm, dn]), size(im))
endfunction

% The chapter's pipeline (manual ch. 15): algorithms are device functions of an image and a
% position, applied deferred to an image; `apply_deferred`'s image calls the algorithm with
% the image it wraps, so the algorithm's instance is specialised for that image (its array
% passed field by field between the device functions).
function out : image = apply_deferred(x : image, p : algorithm)
    out = __device__ (pos) -> p(x, pos)
endfunction

translate : [ivec2 -> algorithm] = _
    shift -> __device__ (x, pos) -> x(pos + shift)

function algo : algorithm = mean_filter_hor(N : int)
    norm_factor = 1.0 / N % normalization factor
    function y : vec3 = __device__ algo(input : image, pos : ivec2)
        y = [0., 0., 0.]
        for n = -int(N / 2)..int(N / 2)
            y = y + input(pos + [0, n])
        endfor
        y = y * norm_factor
    endfunction
endfunction

function algo : algorithm = mean_filter_ver(N : int)
    norm_factor = 1.0 / N % normalization factor
    function y : vec3 = __device__ algo(input : image, pos : ivec2)
        y = [0., 0., 0.]
        for n = -int(N / 2)..int(N / 2)
            y = y + input(pos + [n, 0])
        endfor
        y = y * norm_factor
    endfunction
endfunction

symbolic deferred
reduction (x : cube, y) -> (x |> y) = make_image(x) |> y
reduction (x : image, a : algorithm) -> (x |> deferred(a)) = apply_deferred(x, a)
reduction (x : image, a : algorithm) -> (x |> a) = apply_deferred(x, a)
reduction (y : cube, x : image) -> (y := x) = y = compute(x, size(y))

function y : cube = translated_by_algorithm(im : cube, dm : int, dn : int)
    y = compute(apply_deferred(make_image(im), translate([dm, dn])), size(im))
endfunction

function y : cube = mean_hor(im : cube, N : int)
    y = compute(apply_deferred(make_image(im), mean_filter_hor(N)), size(im))
endfunction

% Section 15.1: a translation and an N x N mean filter, one kernel for the whole chain.
function im_out : cube = translate_and_filter(im : cube, dm : int, dn : int, N : int)
    im_out = zeros(size(im))
    im_out := im |> deferred(translate([dm, dn])) _
                 |> deferred(mean_filter_ver(N)) _
                 |> mean_filter_hor(N)
endfunction

% The manual's point-wise operation: an algorithm capturing a colour function (a device
% function value), applied before a translation.
pointwise_op : [[__device__ vec3 -> vec3] -> algorithm] = _
    fn -> __device__ (x, pos) -> fn(x(pos))

function y : cube = scaled_and_shifted(im : cube, gain : scalar, dm : int, dn : int)
    y = compute(make_image(im) |> deferred(pointwise_op(__device__ (c : vec3) -> gain * c)) _
                               |> translate([dm, dn]), size(im))
endfunction
