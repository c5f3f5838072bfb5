% A pattern that is an assignment (manual chapter 15's `:=` reductions) is not supported.
reduction (y : cube, x : cube) -> (y := x) = y
