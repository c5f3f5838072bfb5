% Generic functions and kernels (manual chapter 6): explicit and implicit specialisation,
% generic size parameters, `cast`. tests/e2e_generics.rs checks each result in plain Rust.

% A histogram kernel whose number of bins is a generic size parameter: the shared scratch
% array has that many elements, known when the kernel is specialised (manual §9.2.3.1,
% written here with `shared` and explicit block loops).
function [] = __kernel__ hist_kernel[Bins : int](im : vec, hist : vec(Bins), stride : int, _
        pos : int, blkpos : int, blkdim : int)
    counts = shared(Bins)
    for b = blkpos..blkdim..Bins-1
        counts[b] = 0
    endfor
    syncthreads
    % grid-strided: each thread counts every `stride`-th value (the threads of the last
    % block past the launch size only help with the block loops)
    if pos < stride
        for m = pos..stride..numel(im)-1
            counts[int(im[m])] += 1
        endfor
    endif
    syncthreads
    for b = blkpos..blkdim..Bins-1
        hist[b] += counts[b]
    endfor
endfunction

function h = histogram256(im : vec, threads : int)
    h = zeros(256)
    parallel_do(threads, im, h, threads, hist_kernel[256])
endfunction

function h = histogram16(im : vec, threads : int)
    h = zeros(16)
    parallel_do(threads, im, h, threads, hist_kernel[16])
endfunction

% The size parameter bound from the argument's type, and used as a value.
function [n, total] = count_and_sum[N](v : vec(N))
    n = N
    total = 0.0
    for i = 0..N-1
        total += v[i]
    endfor
endfunction

function [n, total] = four_sum(a : scalar)
    [n, total] = count_and_sum([a, 2*a, 3*a, 4*a])
endfunction

% Two arguments coupled by one size parameter; the result sized by it.
function y = matvec[M, N](A : mat(M, N), x : vec(N))
    y = zeros(M)
    for m = 0..M-1
        acc = 0.0
        for n = 0..N-1
            acc += A[m, n] * x[n]
        endfor
        y[m] = acc
    endfor
endfunction

function y = rotate_quarter(x : scalar, z : scalar)
    y = matvec([[0.0, -1.0], [1.0, 0.0]], [x, z])
endfunction

% Type parameters, explicit (`create_list[int]`) and implicit (`first`).
function list = create_list[T](n : int)
    list = vec[T](n)
    for i = 0..n-1
        list[i] = cast(i * 3, T)
    endfor
endfunction

function y = first[T](v : vec[T])
    y = v[0]
endfunction

function [a, b] = lists(n : int)
    a = create_list[int](n)
    b = create_list[scalar](n)
endfunction

function y = first_int(n : int)
    y = first(create_list[int](n) + 1)
endfunction

% The manual's generic matrix product (§6.4): the accumulator starts as `cast(0.0, T)`.
function y = generic_multiply[T](a : mat[T], b : mat[T])
    assert(size(a,1) == size(b,0))
    y = mat[T](size(a,0), size(b,1))
    for m = 0..size(y,0)-1
        for n = 0..size(y,1)-1
            result = cast(0.0, T)
            for k = 0..size(a,1)-1
                result += a[m,k] * b[k,n]
            endfor
            y[m,n] = result
        endfor
    endfor
endfunction

function y = multiply_scalar(a : mat, b : mat)
    y = generic_multiply(a, b)
endfunction

function y = multiply_int(a : mat[int], b : mat[int])
    y = generic_multiply(a, b)
endfunction

% `cast` to the number types, on the host and in a kernel.
function [i, u8, i16, s] = casts(x : scalar, k : int)
    i = cast(x, int)
    u8 = cast(k, uint8)
    i16 = cast(x, int16)
    s = cast(k, scalar)
endfunction

function [] = __kernel__ cast_kernel(x : vec, y : vec[int], z : vec[uint8], pos : int)
    y[pos] = cast(x[pos], int)
    z[pos] = cast(cast(x[pos], int), uint8)
endfunction

function [y, z] = cast_all(x : vec)
    y = vec[int](numel(x))
    z = vec[uint8](numel(x))
    parallel_do(numel(x), x, y, z, cast_kernel)
endfunction
