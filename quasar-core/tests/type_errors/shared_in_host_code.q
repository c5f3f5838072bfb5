function y = buffer(n : int)
    y = shared(n)
endfunction
b = buffer(16)
