% A reduction variable that is neither in the pattern nor a type used by the other variables'
% types (manual §4.9.3, free variables).
reduction (x : scalar, y) -> twice(x) = 2 * x
