% The meta functions of manual §8.6 that are answered when compiling: `$str` (an
% expression's text), `$eval` (a value known when compiling) and `$target` (which back end
% compiles the code, §17.2.6). Used by tests/e2e_meta_functions.rs.

function s = expression_text()
  s = $str((x+y)*(3*x)^99)
endfunction

function y = folded()
  y = $eval(2 * 3 + 0.5)
endfunction

% Each back end compiles the kernel with its own answer: 1 on the GPU, 2 on the CPU.
function [] = __kernel__ which_kernel(y : vec, pos : int)
  if $target("gpu")
    y[pos] = 1
  elseif $target("cpu")
    y[pos] = 2
  else
    y[pos] = 3
  endif
endfunction

function y = which_target(n : int)
  y = zeros(n)
  parallel_do(n, y, which_kernel)
endfunction

function t = host_target()
  t = $target("cpu") + 10 * $target("nvidia_cuda")
endfunction

% Manual §5.3: `$check` decides a condition from the assertions made before it, over
% symbolic variables (equalities, inequalities) and over variables with values.
function [s1, s2, s3, s4, s5] = checked_equalities()
  symbolic a, b
  assert(a==4 && b==6)
  s1 = $check(a==5)
  s2 = $check(a==4 && b==6)
  s3 = $check(a==3 || b==6)
  s4 = $check(a!=4 || b==7)
  s5 = $str($assump(a))
endfunction

function [s1, s2, s3, s4] = checked_inequalities()
  symbolic a
  assert(a>2 && a<4)
  s1 = $check(a>=2)
  s2 = $check(a<=3)
  s3 = $check(!(a>1))
  s4 = $str($assump(a))
endfunction

% An assertion holds to the end of its block, and until its variable is assigned.
function [s1, s2, s3, s4, y] = checked_values(x : scalar)
  assert(x > 10)
  s1 = $check(x > 0)
  if x > 20
    assert(x < 30)
    s2 = $check(x < 40)
  else
    s2 = "none"
  endif
  s3 = $check(x < 40)
  y = x
  x = 1
  s4 = $check(x > 0)
endfunction

% Manual §8.6: assume about `b` what is known about `a`, its type included.
function s = copied_assumptions()
  a : int
  assert(0 <= a && a < 1)
  b : ??
  assert($subs(a=b,$assump(a)))
  s = $str($assump(b))
endfunction

% `$getsafe(x, i, …)` reads `x[i, …]` with the 'safe mode: zero outside the array (the
% parallel sum of manual §17.2.1, in other words). The first loop reads past the end of `x`,
% the last step of the tree reads past the end of `bins`.
function [] = __kernel__ safe_sums_kernel(x : vec'const, n : int, s : vec, blkpos : int, blkdim : int)
  bins = shared(blkdim, 2)
  a = 0.0
  b = 0.0
  m = blkpos
  while m < n + 3
    a += $getsafe(x, m)
    b += $getsafe(x, m) .^ 2
    m += blkdim
  endwhile
  bins[blkpos, 0] = a
  bins[blkpos, 1] = b
  syncthreads
  bit = 1
  while bit < 2 * blkdim
    if mod(blkpos, 2 * bit) == 0
      bins[blkpos, (0..1)] = bins[blkpos, (0..1)] + $getsafe(bins, blkpos + bit, (0..1))
    endif
    syncthreads
    bit *= 2
  endwhile
  if blkpos == 0
    s[0] = bins[0, 0]
    s[1] = bins[0, 1]
  endif
endfunction

function s = safe_sums(x : vec)
  s = zeros(2)
  parallel_do([[16], [16]], x, numel(x), s, safe_sums_kernel)
endfunction

% On the host, `$getsafe` reads an array declared 'safe.
function y = safe_host_read(k : int)
  x : vec'safe = zeros(3)
  x[1] = 2.5
  y = $getsafe(x, k)
endfunction
