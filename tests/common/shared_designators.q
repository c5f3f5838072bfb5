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
