% Kernels for the PTX back end: slices of arrays and register vectors inside kernels (one
% range or `:` among the subscripts gives a fixed-size vector), and small vectors made with
% `zeros`/`ones`/`uninit`.

function [] = __kernel__ rgb_ops(x : cube, y : cube'clamped, z : icube, pos : ivec2)
    c = x[pos[0], pos[1], 0..2]
    y[pos[0], pos[1], 0..2] = [c[2], c[1], 0.5 * c[0]]
    y[pos[0], pos[1], 3..4] = 7
    y[pos[0], pos[1], 0..2..4] += c[0] + c[1] + c[2]
    s = pos[1] - 1
    z[pos[0], s..s + 1, 1] = [c[0], c[1]]
    z[pos[0], pos[1], 1..2] = int(c[1])
    z[pos[0], pos[1], 0..1] += [1, 2]
endfunction

function [] = __kernel__ whole_rows(x : mat(:, 4), y : mat, pos : int)
    r = x[pos, :]
    y[pos, :] = r * 2
endfunction

function [] = __kernel__ small_vectors(x : vec, y : mat, k : int, pos : int)
    w = zeros(4)
    o = ones(3)
    u = uninit(2)
    w[1..2] = o[0..1] * x[pos]
    w[2..3] += [1.0, 2.0]
    w[k..k + 1] = [4.0, 5.0]
    t = w[1..3]
    v = w[k..k + 2]
    u[0..1] = 3
    iw = [0, 0, 0]
    iw[pos - pos] = 2
    y[pos, 0] = sum(w) + sum(o) + sum(t) + sum(v) + numel(w) + u[1] + sum(iw)
endfunction

function y : mat = run_small(x : vec)
    y = zeros(numel(x), 1)
    parallel_do(numel(x), x, y, 1, small_vectors)
endfunction

function y : mat = run_rows(x : mat)
    y = zeros(size(x))
    parallel_do(size(x, 0), x, y, whole_rows)
endfunction

% Host function of tests/gpu_ptx_kernels.rs.
function [] = run_rgb_ops(x : cube, y : cube, z : icube)
    parallel_do(size(x, 0..1), x, y, z, rgb_ops)
endfunction
