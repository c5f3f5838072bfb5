A = zeros(4)
b = A["first"]
