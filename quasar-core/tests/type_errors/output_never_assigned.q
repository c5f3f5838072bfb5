function [lo, hi] = bounds(x : vec)
    lo = min(x)
endfunction
[a, b] = bounds([3.0, 1.0, 2.0])
