% Atomic compound assignment on array elements, for every element type and operator:
% native atom.* where PTX has one, CAS loops otherwise.

function [] = __kernel__ atomics_f32(s : vec, pos : int)
    s[0] += 1.0
    s[1] -= 2.0
    s[2] *= 1.5
    s[3] /= 2.0
    s[4] ^^= float(pos)
    s[5] __= float(pos)
    v = (s[6] += 3.0)
    s[7] = v
endfunction

function [] = __kernel__ atomics_int(a : vec[int], b : vec[uint32], c : vec[int64], d : vec[uint64], pos : int)
    a[0] += pos
    a[1] -= pos
    a[2] ^^= pos
    a[3] __= pos
    a[4] |= pos
    a[5] &= pos
    a[6] ~= pos
    a[7] *= 2
    b[0] += uint32(pos)
    b[1] ^^= uint32(pos)
    c[0] += int64(pos)
    c[1] ^^= int64(pos)
    c[2] -= int64(pos)
    d[0] += uint64(pos)
    d[1] __= uint64(pos)
endfunction

function [] = __kernel__ atomics_f64(s : vec[scalar'double], pos : int)
    s[0] += 1.0
    s[1] ^^= 2.0
    s[2] *= 3.0
endfunction

parallel_do(8, zeros(8), atomics_f32)
parallel_do(8, int(zeros(8)), uint32(zeros(8)), int64(zeros(8)), uint64(zeros(8)), atomics_int)
s64 = vec[scalar'double](8)
parallel_do(8, s64, atomics_f64)

% Host functions of tests/gpu_ptx_kernels.rs.
function [] = run_atomics_f32(n : int, s : vec)
    parallel_do(n, s, atomics_f32)
endfunction

function [] = run_atomics_int(n : int, a : vec[int], b : vec[uint32], c : vec[int64], d : vec[uint64])
    parallel_do(n, a, b, c, d, atomics_int)
endfunction

function [] = run_atomics_f64(n : int, s : vec[scalar'double])
    parallel_do(n, s, atomics_f64)
endfunction
