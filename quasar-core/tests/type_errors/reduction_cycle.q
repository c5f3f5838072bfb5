% Reductions that rewrite into each other (manual §4.9.3, cross-references).
reduction (A, B) -> f(A, B) = g(A, B)
reduction (A, B) -> g(A, B) = f(A, B)
