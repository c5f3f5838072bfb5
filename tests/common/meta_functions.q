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
