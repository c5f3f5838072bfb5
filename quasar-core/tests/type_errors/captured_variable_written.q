total = 0.0
function [] = accumulate(x : scalar)
    total += x
endfunction
accumulate(4.0)
