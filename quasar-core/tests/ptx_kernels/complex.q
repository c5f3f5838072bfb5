% Complex numbers in kernels: arithmetic, the built-ins on complex numbers, arrays of complex
% elements (real part first), complex parameters by value, device functions, atomics.

function y = __device__ rotate(z : cscalar, t : scalar)
    y = z * complex(cos(t), sin(t))
endfunction

function [] = __kernel__ complex_arith(x : cvec'const, y : cvec, w : cscalar, pos : int)
    a = x[pos]
    b = a * w + 1.0 - 2i
    c = (a - w) / (b + 1i)
    y[pos] = conj(c) + rotate(a, 0.5) - complex(real(b), imag(b) * 2.0)
endfunction

function [] = __kernel__ complex_parts(x : cmat'const, m : mat, pos : ivec2)
    z = x[pos]
    m[pos] = abs(z) + angle(z) + real(z) * imag(z)
endfunction

function [] = __kernel__ complex_accumulate(x : cvec'const, acc : cvec, pos : int)
    z = pos > 3 ? x[pos] : -x[pos]
    acc[mod(pos, 4)] += z * z
endfunction

% Host functions of tests/gpu_ptx_kernels.rs.
function [] = run_complex_arith(x : cvec, y : cvec, w : cscalar)
    parallel_do(numel(x), x, y, w, complex_arith)
endfunction

function [] = run_complex_parts(x : cmat, m : mat)
    parallel_do(size(x), x, m, complex_parts)
endfunction

function [] = run_complex_accumulate(x : cvec, acc : cvec)
    parallel_do(numel(x), x, acc, complex_accumulate)
endfunction
