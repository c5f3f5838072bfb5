% The reduction safety level is `off`, `safe` or `strict` (manual §4.9.3).
#pragma reduction_safetylevel paranoid
x = 1
