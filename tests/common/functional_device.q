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
