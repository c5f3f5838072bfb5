import "lib.q"

function y : vec = saturate(x : vec)
    y = zeros(numel(x))
    parallel_do(numel(x), x, y, saturate_kernel)
endfunction

function y = root_of(x : scalar)
    y = positive_sqrt(x)
endfunction
