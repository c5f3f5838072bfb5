% Automatic kernel generator (`transform::kernel_generator`): element-wise array expressions in
% host code become one kernel each, with no temporary per operator. Several array operands get
% a size guard (on a mismatch the statement runs as written); scalars become parameters; `sum`,
% `mean`, `prod`, `min`, `max` of such an expression become one reduction (from the identity).
% `transpose` of a matrix and the matrix product `*` become kernels too, under run-time tests
% (two dimensions; for the product, that the scheduler picks the GPU).
function z : mat = scaled_sum(a : mat, x : mat, b : scalar, y : mat)
    z = a .* x + b * y .^ 2 - 1
endfunction

function y : cube = gamma(x : cube, g : scalar)
    y = 255 * (x / 255) .^ (1 / g)
endfunction

function s : scalar = dot(x : vec, y : vec)
    s = sum(x .* y)
endfunction

function [p : scalar, m : scalar] = extremes(x : vec, y : vec)
    p = prod(x .* y)
    m = max(x - y)
endfunction

function y : mat = flipped(x : mat)
    y = transpose(x)
endfunction

function c : mat = product(a : mat, b : mat)
    c = a * b
endfunction
