function [mean_val : scalar, var_val : scalar] = stats(x : vec)
    n = numel(x)
    mean_val = sum(x) / n
    var_val = sum((x - mean_val).^2) / n
endfunction
function [lo, hi] = bounds(x)
    lo = min(x)
    hi = max(x)
endfunction
[m, v] = stats([1.0, 2.0, 3.0, 4.5])
[lo, hi] = bounds([3, 1, 2])
[_, top] = bounds([0.5, 1.5])
