% The manual's chapter 15 pipeline in the manual's own style, written for these tests: the
% stages are variables declared with the chapter's function types holding lambdas
% (`compute : rasterizer = …`, `apply_deferred : application = …`), the mean filters
% functions returning their nested `__device__ algo`. Every stage is specialised for the
% images it is given, so the whole chain runs as one kernel. Used by
% tests/e2e_functional_device.rs (its `manual` module).

type image : [__device__ ivec2'const -> vec3]
type algorithm : [__device__ (image, ivec2'const) -> vec3]
type application : [(image, algorithm) -> image]
type rasterizer : [(image, ivec3) -> cube]

% (Pixels outside the array repeat the nearest border pixel.)
make_image : [cube -> image] = _
    im_data -> __device__ (pos) -> im_data[max(0, min(pos[0], size(im_data, 0) - 1)), _
                                           max(0, min(pos[1], size(im_data, 1) - 1)), 0..2]

translate : [vec2 -> algorithm] = _
    shift -> __device__ (x, pos) -> x(pos + int(shift))

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

compute : rasterizer = _
    (x, sz) -> (y = zeros(sz); parallel_do(sz[0..1], __kernel__ (pos : ivec2) -> y[pos[0], pos[1], 0..2] = x(pos)); y)

apply_deferred : application = _
    (x, p) -> __device__ (pos) -> p(x, pos)

reduction (y : cube, x : image) -> (y := x) = y = compute(x, size(y))
symbolic deferred
reduction (x : cube, y) -> (x |> y) = make_image(x) |> y
reduction (x : image, a : algorithm) -> (x |> deferred(a)) = apply_deferred(x, a)
reduction (x : image, a : algorithm) -> (x |> a) = apply_deferred(x, a)

% Section 15.1.
function im_out : cube = translate_and_filter(im : cube, dm : int, dn : int, N : int)
    im_out = zeros(size(im))
    im_out := im |> deferred(translate([dm, dn])) _
                 |> deferred(mean_filter_ver(N)) _
                 |> mean_filter_hor(N)
endfunction
