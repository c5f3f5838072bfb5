% Products of small matrices in kernels (manual §4.5, §6.7): a color transform written as the
% manual's `colortransform[N]` (a size-generic function whose `img[m, n, :]` has the known
% length N once specialised, in a `{!parallel for}` loop), and matrix-vector, row-vector-matrix
% and matrix-matrix products of local matrices. Used by tests/e2e_small_products.rs.

function out = mix_channels[N](M : mat(N, N), img : cube(:, :, N))
    out = zeros(size(img, 0), size(img, 1), N)
    {!parallel for}
    for r = 0..size(img, 0) - 1
        for c = 0..size(img, 1) - 1
            out[r, c, :] = M * squeeze(img[r, c, :])
        endfor
    endfor
endfunction

function out = warm(img : cube(:, :, 3))
    M : mat(3, 3) = [[0.9, 0.1, 0.0], [0.05, 0.9, 0.05], [0.0, 0.2, 0.8]]
    out = mix_channels(M, img)
endfunction

function [] = __kernel__ products_k(y : mat, pos : ivec2)
    A : mat(2, 3) = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    B : mat(3, 2) = [[pos[0], 1.0], [0.5, pos[1]], [2.0, -1.0]]
    v : vec(3) = [pos[1], 1.0, -2.0]
    u : vec(2) = [1.0, pos[0]]
    Av = A * v
    uA = u * A
    AB = A * B
    y[pos] = Av[0] + 10 * Av[1] + 100 * uA[2] + 1000 * AB[1, 0] + 10000 * AB[0, 1]
endfunction

function y = products(h : int, w : int)
    y = zeros(h, w)
    parallel_do(size(y), y, products_k)
endfunction

% Transposes and reductions along a dimension of a local matrix.
function [] = __kernel__ along_k(y : mat, pos : ivec2)
    m : mat(2, 3) = [[1.0, 2.0, 3.0], [4.0, pos[0], pos[1]]]
    t = transpose(m)
    c = sum(m, 0)
    r = sum(m, 1)
    a = mean(m, 1)
    p = prod(m, 0)
    y[pos] = t[2, 1] + 10 * c[2] + 100 * r[1] + 1000 * a[0] + 10000 * p[1] + 100000 * t[0, 1]
endfunction

function y = along(h : int, w : int)
    y = zeros(h, w)
    parallel_do(size(y), y, along_k)
endfunction
