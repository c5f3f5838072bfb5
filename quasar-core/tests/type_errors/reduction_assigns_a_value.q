% A replacement may assign only to a variable that the pattern matched as an assignment target.
reduction (a : scalar, b : scalar) -> setboth(a, b) = (a = b)
function y = f()
    y = setboth(1.0, 2.0)
endfunction
