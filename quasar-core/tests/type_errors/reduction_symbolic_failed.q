% The manual's §4.9.1 example: `argmin` is rewritten to `solve(diff(f, x) = 0, x)`, and no
% reduction defines `solve` for the equation that results: a symbolic operation fails.
#pragma reduction_safetylevel off
reduction (x : scalar, a : scalar) -> diff(a, x) = 0
reduction (f, x : scalar) -> argmin(f, x) = solve(diff(f, x) = 0, x)
symbolic x : scalar
print argmin((x-2)^2, x)
