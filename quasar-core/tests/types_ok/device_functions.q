% Device functions, function types and device function values passed to kernels.
type binary_function : [__device__ (scalar, scalar) -> scalar]
add = __device__ (x : scalar, y : scalar) -> x + y
mul = __device__ (x : scalar, y : scalar) -> x * y
orth = __device__ (x : vec2) -> [-x[1], x[0]]
function y = __device__ clamp01(x : scalar)
    y = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x)
endfunction
function [] = __kernel__ arithmetic_op(Y : cube, A : cube, B : cube, fn : binary_function, pos : ivec3)
    Y[pos] = clamp01(fn(A[pos], B[pos]))
endfunction
A = ones(5, 5, 3)
B = rand(size(A))
Y = zeros(size(A))
parallel_do(size(Y), Y, A, B, add, arithmetic_op)
parallel_do(size(Y), Y, A, B, mul, arithmetic_op)
o = orth([1.0, 2.0])
