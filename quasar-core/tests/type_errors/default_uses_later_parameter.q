% A default value cannot use a later parameter (manual §2.1 item 15).
function [y, k] = my_func(a : mat = 2 * b, b : mat)
    y = a
    k = b
endfunction
[y, k] = my_func(ones(2, 2), ones(2, 2))
