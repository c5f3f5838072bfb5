A = zeros(4, 5)
c = A[1, 2, 3, 4]
