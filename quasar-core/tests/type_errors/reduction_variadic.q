% A variadic variable elsewhere than the last argument of the pattern's call (manual §4.9.5's
% sums of a variable number of terms) is not supported: a compile error names it.
reduction (x, ...lambda, ...f) -> sum([lambda*f(x).^2]) = mysum(f, lambda)
