% Shared memory designators (manual §9.2): `S : 'shared = zeros(…)` / `uninit(…)` at the top
% of a kernel, and `A[:] op= S` stored back by the block's threads together.
% Used by tests/e2e_shared_designators.rs.

% The manual's histogram (§9.2.3.1): a per-block histogram in shared memory, filled by a
% grid-strided loop, then added to the global histogram.
function [] = __kernel__ hist_kernel[Bins : int](im : vec, hist : vec(Bins), pos : int)
  hist_sh : 'shared = zeros(Bins)

  for m = pos..1024..numel(im)-1
    hist_sh[int(im[m])] += 1
  endfor

  hist[:] += hist_sh
endfunction

function h = histogram16(im : vec)
  h = zeros(16)
  parallel_do(1024, im, h, hist_kernel[16])
endfunction

% `uninit`: every block fills a table in shared memory (its threads share the work), reads
% it after the barrier, and stores it with `=` (every block writes the same values).
function [] = __kernel__ table_kernel(w : vec, y : vec, table_out : vec, pos : int, blkpos : int, blkdim : int)
  t : 'shared = uninit(8)
  for k = blkpos..blkdim..7
    t[k] = 2 * w[k] + 1
  endfor
  syncthreads
  y[pos] = t[mod(pos, 8)] * pos
  table_out[:] = t
endfunction

function [y, t] = table_lookup(w : vec, n : int)
  y = zeros(n)
  t = zeros(8)
  parallel_do(n, w, y, t, table_kernel)
endfunction

% Fetch and broadcast (§9.2.1 item 2): each block of 16 threads fetches its window of `x`
% (one element either side, scaled) into shared memory once; every thread then reads it.
function [] = __kernel__ blur_kernel(x : vec, y : vec, pos : int, blkpos : int)
  b = pos - blkpos
  s : 'shared = 0.5 .* x[b + (-1..16)]
  y[pos] = s[blkpos] + s[blkpos + 1] + s[blkpos + 2]
endfunction

function y = blur16(x : vec)
  y = zeros(numel(x))
  parallel_do([[numel(x)], [16]], x, y, blur_kernel)
endfunction

% The manual's transposed tile: `B` is 6 x 4, computed once per block.
function [] = __kernel__ tile_kernel(A : mat, y : mat, a : scalar, b : scalar, pos : ivec2)
  B : 'shared = transpose(a .* A[0..3, 0..5] + b)
  y[pos] = B[mod(pos[0], 6), mod(pos[1], 4)]
endfunction

function y = tile(A : mat, a : scalar, b : scalar, h : int, w : int)
  y = zeros(h, w)
  parallel_do([h, w], A, y, a, b, tile_kernel)
endfunction

% The manual's fetch and store (§9.2): the block transposes a 10 x 10 tile of `A` in place.
function [] = __kernel__ transpose_kernel(A : mat, a : scalar, b : scalar, pos : ivec3)
    B : 'shared = transpose(a*A[0..9, 0..9]+b) % fetch
    A[0..9, 0..9] = transpose(B) % store
endfunction

function [] = transpose_tile(A : mat, a : scalar, b : scalar)
  parallel_do([[4, 4, 1], [4, 4, 1]], A, a, b, transpose_kernel)
endfunction

% A store with `+=` from every block, through an element-wise expression of the designated
% variable: the blocks' sums combine atomically.
function [] = __kernel__ store_sum_kernel(A : mat, y : mat, pos : int)
  B : 'shared = A[0..2, 1..4] .* 2
  y[1..4, 0..2] += transpose(B) - 1
endfunction

function y = store_sum(A : mat, nblocks : int)
  y = zeros(5, 3)
  parallel_do([[4 * nblocks], [4]], A, y, store_sum_kernel)
endfunction

% A scalar computed by one thread of the block and a whole small vector, broadcast.
function [] = __kernel__ broadcast_kernel(w : vec(4), x : vec, y : vec, pos : int)
  c : 'shared = w[0] * w[1] + w[2]
  v : 'shared = 2 .* w
  y[pos] = c * x[pos] + v[mod(pos, 4)]
endfunction

function y = broadcast(w : vec, x : vec)
  y = zeros(numel(x))
  parallel_do(numel(x), w, x, y, broadcast_kernel)
endfunction

% Shared calculation (§9.2.1): the loop filling `sb` runs once per block, its iterations
% shared by the block's threads; after the barrier every thread reads all of `sb`. The loop
% filling `sc` keeps its last index in `last`, read afterwards, so every thread runs it
% whole.
function [] = __kernel__ calc_kernel(a : mat, y : vec, pos : int)
  sb : 'shared = uninit(8)
  for L = 0..7
    t = 0.0
    for k = 0..size(a, 1) - 1
      t += a[L, k] .^ 2
    endfor
    sb[L] = log(1 + t)
  endfor
  sc : 'shared = uninit(4)
  for L = 0..3
    last = L
    sc[L] = 2 * L
  endfor
  y[pos] = sum(sb) * (pos + 1) + sc[mod(pos, 4)] + last
endfunction

function y = shared_calculation(a : mat, n : int)
  y = zeros(n)
  parallel_do([[n], [16]], a, y, calc_kernel)
endfunction

% A designator at the top of a `{!parallel for; blkdim=M}` loop (§9.2.3.3): the loop runs in
% blocks of `M` threads, each block with its own `B`. The manual's reduction, with each
% thread storing its partial sum at its own place in the block.
function y = block_reduction(im : cube)
  M : int'const = 16
  N : int'const = 4*M
  y = 0.0
  {!parallel for; blkdim=M}
  for n=0..N-1
    B : 'shared = uninit(M)
    total = 0.0
    for k=n..N..numel(im)-1
      total += im[ind2pos(size(im),k)]
    endfor
    B[mod(n,M)] = total
    syncthreads
    total = sum(B)
    if mod(n,M)==0
      y += total
    endif
  endfor
endfunction

% `zeros` (filled before the threads go on) and a constant block size: the sum of each
% block of 8, where a last, partial block keeps zeros.
function y = block_sums8(x : vec)
  y = zeros(numel(x))
  {!parallel for; blkdim=8}
  for n=0..numel(x)-1
    S : 'shared = zeros(8)
    S[mod(n,8)] = x[n]
    syncthreads
    y[n] = sum(S)
  endfor
endfunction

% The manual's separable filtering (§9.2.3.2) in other words: generic in the half-length
% `c`, which the nested kernel reads. Each 16 x 16 block fetches its window (with a border
% of `c`) into shared memory, filters it along the rows into a second shared array (a shared
% calculation), then along the columns.
function img_out = separable[c : int](img_in : cube(:,:,3), fc : vec(2*c+1))
  function [] = __kernel__ kernel(img_out : cube(:,:,3), pos : ivec2)
    p = pos - mod(pos, 16)
    s1 : 'shared = img_in[p[0]+(-c..15+c),p[1]+(-c..15+c),:]
    s2 : 'shared = uninit(16+2*c,16,3)
    for m=0..15+2*c
      for n=0..15
        total = zeros(3)
        for k=0..numel(fc)-1
          total += fc[k] * s1[m,n+k,:]
        endfor
        s2[m,n,:] = total
      endfor
    endfor
    total1 = zeros(3)
    [m1,n1] = pos-p
    for k=0..numel(fc)-1
      total1 += fc[k] * s2[m1+k,n1,:]
    endfor
    img_out[pos[0],pos[1],:] = total1
  endfunction
  img_out = uninit(size(img_in))
  parallel_do([size(img_in,0..1)],[16,16],img_out, kernel)
endfunction

function [y2, y1] = separable_filters(img : cube, w5 : vec, w3 : vec)
  y2 = separable[2](img, w5)
  y1 = separable[1](img, w3)
endfunction

% A 3 x 3 box filter in two passes through shared memory (manual §10, the separable 3 x 3
% filter, in other words) whose dimensions are computed from `blkdim` in the kernel
% (`[M, N, P] = blkdim + [2, 0, 0]`), bounded by an assertion.
function [] = __kernel__ box3_kernel(x : cube, y : cube, pos : ivec3, blkpos : ivec3, blkdim : ivec3)
  [M, N, P] = blkdim + [2, 0, 0]
  assert(M <= 10 && N <= 16 && P <= 3)
  vals = shared(M, N, P)
  s = 0.
  for i = pos[1]-1..pos[1]+1
    s += x[pos[0] - 1, i, pos[2]]
  endfor
  vals[blkpos] = s
  if blkpos[0] < 2
    s = 0.
    for i = pos[1]-1..pos[1]+1
      s += x[pos[0] - 1 + blkdim[0], i, pos[2]]
    endfor
    vals[blkpos + [blkdim[0], 0, 0]] = s
  endif
  syncthreads
  s = 0.
  for i = blkpos[0]..blkpos[0]+2
    s += vals[i, blkpos[1], blkpos[2]]
  endfor
  y[pos] = s / 9
endfunction

function y = box3(x : cube)
  y = zeros(size(x))
  parallel_do([size(y), [8, 16, 3]], x, y, box3_kernel)
endfunction

% The manual's `S : 'shared = uninit(M,N,K)` (§9.2.1) with sizes known at run time, bounded
% by an assertion: each block reverses its tile along the first dimension.
function [] = __kernel__ tile_flip(x : cube, y : cube, M : int, N : int, K : int, pos : ivec3, blkpos : ivec3)
  assert(M*N*K <= 512)
  S : 'shared = uninit(M,N,K)
  S[blkpos] = x[pos]
  syncthreads
  y[pos] = S[M-1-blkpos[0], blkpos[1], blkpos[2]]
endfunction

function y = flipped_tiles(x : cube, M : int, N : int, K : int)
  y = zeros(size(x))
  parallel_do(size(x), [M, N, K], x, y, M, N, K, tile_flip)
endfunction

% `blkdim=[N, N]` (§9.2.2's virtual blocks): the loops over rows and columns run in N x N
% blocks, each with its tile of `x` in shared memory, read transposed within the tile. The
% last blocks are partial (7 x 10 with N = 4): their extra threads only meet the barrier.
function y = tile_transpose_blocks(x : mat)
  N : int'const = 4
  y = zeros(size(x))
  {!parallel for; blkdim=[N, N]}
  for m=0..size(x,0)-1
    for n=0..size(x,1)-1
      T : 'shared = zeros(N, N)
      T[mod(m,N), mod(n,N)] = x[m, n]
      syncthreads
      y[m, n] = T[mod(n,N), mod(m,N)] + int(m/N) * 1000 + int(n/N) * 100
    endfor
  endfor
endfunction
