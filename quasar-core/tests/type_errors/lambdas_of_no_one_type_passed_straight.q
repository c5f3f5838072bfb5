% A choice between two lambdas without parameter types, and a cell of such lambdas, passed
% to functions that call them with arguments of different types: no one function type.
function y = both(g, x)
    y = g(x) + sum(g([1.0, 2.0]))
endfunction
function y = each(fs, x)
    y = fs[0](x) + sum(fs[1]([x, x]))
endfunction
function [a, b] = pick(t : scalar)
    a = both(t > 0 ? (x -> x + 1) : (x -> 2 * x), t)
    b = each({x -> x + 1, x -> 2 * x}, t)
endfunction
[a, b] = pick(1.5)
