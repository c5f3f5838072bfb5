% An untyped lambda stored in a cell of `??` values, called through the cell with two
% different argument types: one element holds one function.
function [a, b] = run(t : scalar)
    c = cell(1)
    c[0] = x -> 2 * x
    a = c[0](t)
    b = c[0](3)
endfunction
