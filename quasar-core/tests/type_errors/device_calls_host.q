function y = half(x)
    y = x / 2
endfunction
function y = __device__ quarter(x : scalar)
    y = half(x) / 2
endfunction
q = quarter(8.0)
