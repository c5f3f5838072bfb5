% An untyped lambda stored in a cell of `??` values with no call through the cell that tells
% its parameters' types.
function c = make()
    c = cell(1)
    c[0] = x -> x + 1
endfunction
