% A variadic variable that is neither the last argument of the pattern's call nor in the term
% of a sum `sum([…])` (manual §4.9.5's two forms) is not supported: a compile error names it.
reduction (a, ...b) -> g(b, a) = 1
