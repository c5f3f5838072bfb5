% Kernels for the PTX back end: function values passed to kernels (a tag and the captured
% values, as the bytes of the host's `#[repr(C, u32)]` enum), called by branching on the tag.

type binary_function : [__device__ (scalar, scalar) -> scalar]

function [] = __kernel__ combine(y : vec, a : vec, b : vec, fn : binary_function, pos : int)
    y[pos] = fn(a[pos], b[pos])
endfunction

function y = __device__ twice(fn : [__device__ vec3 -> scalar], v : vec3)
    y = fn(v) + fn(2 * v)
endfunction

function [] = __kernel__ on_vectors(x : mat(:, 3), y : vec, fn : [__device__ vec3 -> scalar], _
                                    pos : int)
    y[pos] = twice(fn, x[pos, :])
endfunction

function y : vec = run_all(a : vec, b : vec, s : scalar, k : int, w : vec3, z : cscalar)
    y = zeros(numel(a))
    add = __device__ (p : scalar, q : scalar) -> p + q
    weighted = __device__ (p : scalar, q : scalar) -> s * p + k * q
    parallel_do(numel(a), y, a, b, add, combine)
    parallel_do(numel(a), y, a, b, weighted, combine)
    dotw = __device__ (v : vec3) -> sum(v .* w) + real(z)
    norm1 = __device__ (v : vec3) -> abs(v[0]) + abs(v[1]) + abs(v[2])
    x = ones(numel(a), 3)
    parallel_do(numel(a), x, y, dotw, on_vectors)
    parallel_do(numel(a), x, y, norm1, on_vectors)
endfunction
