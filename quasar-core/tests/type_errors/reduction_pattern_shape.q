% A pattern that is a matrix is not supported (calls, operators, subscripts, fields and
% assignments to a variable or its field are).
reduction (a, b) -> [a, b] = a
