A = zeros(3)
y = A(1)
