function y = first[T](v : vec[T])
    y = v[0]
endfunction
a = first[int, scalar]([1, 2])
