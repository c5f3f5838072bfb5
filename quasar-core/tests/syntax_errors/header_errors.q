function [] = __kernel__ k(x : mat, pos : ivec2
    x[pos] = 0
endfunction
match c
| 1 -> print "one"
endmatch
