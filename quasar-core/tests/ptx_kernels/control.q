% Control flow, vectors in registers, device functions with early return, lambdas, match.

function y = __device__ first_negative(v : vec4)
    y = -1
    for k = 0..3
        if v[k] < 0.0
            y = k
            return
        endif
    endfor
endfunction

function [] = __kernel__ flow(x : mat, y : mat, n : int, pos : ivec2)
    v = [x[pos], -x[pos], 2.0 * x[pos], 0.5]
    w = v + 1.0
    w[2] = w[0] * w[1]
    k = first_negative(w)
    match k with
    | 0 ->
        y[pos] = w[0]
    | (1, 2) ->
        y[pos] = w[k]
    | _ ->
        y[pos] = sum(w) + max(w) + min(w) + mean(w)
    endmatch
    t = 0.0
    for e = [1.0, 2.0, 3.0]
        if e == 2.0
            continue
        endif
        t += e
    endfor
    sq = __device__ (a : scalar) -> a * a
    i = 0
    repeat
        i += 1
        t = t + sq(float(i))
        if i > n && t > 100.0
            break
        endif
    until i >= 10 || (t < 0.0 && i > 3)
    y[pos] = y[pos] + (n > 2 ? t : -t) + numel(x) + size(x, 0) + size(x, 1) + float(size(x)[1])
endfunction

function [] = __kernel__ narrow(a : vec[int8], b : vec[uint16], pos : int)
    a[pos] = a[pos] * int8(3) - int8(1)
    b[pos] = b[pos] + uint16(pos)
    c = int8(300.0)
    a[pos] = a[pos] + c + int8(b[pos])
endfunction

function [] = __kernel__ doubles(x : vec[scalar'double], pos : int)
    v = x[pos]
    x[pos] = sqrt(abs(v)) + floor(v) + ceil(v) + round(v) + min(v, 1.0) + max(v, 0.0) + mod(v, 2.0) + v / 3.0 + v^2
endfunction

parallel_do([4, 4], ones(4, 4), zeros(4, 4), 3, flow)
parallel_do(4, int8(zeros(4)), uint16(zeros(4)), narrow)
x64 = vec[scalar'double](4)
parallel_do(4, x64, doubles)

% Host functions of tests/gpu_ptx_kernels.rs.
function [] = run_flow(x : mat, y : mat, n : int)
    parallel_do(size(x), x, y, n, flow)
endfunction

function [] = run_narrow(a : vec[int8], b : vec[uint16])
    parallel_do(numel(a), a, b, narrow)
endfunction

function [] = run_doubles(x : vec[scalar'double])
    parallel_do(numel(x), x, doubles)
endfunction
