% A free variable in a reduction's replacement (manual §4.9.3, the first unsafe situation):
% `y` is no variable of the reduction. An error at the strict safety level.
#pragma reduction_safetylevel strict
reduction (x : scalar) -> shifted(x) = x + y
