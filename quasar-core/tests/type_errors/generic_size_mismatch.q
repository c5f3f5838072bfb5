function y = matvec[M, N](A : mat(M, N), x : vec(N))
    y = zeros(M)
endfunction
y = matvec(zeros(2, 3), zeros(4))
