% A library imported by generic_main.q (tests/e2e_real_code.rs): generic functions (untyped
% parameters), one of which the program never calls.

function y = scale_all(x, f)
    y = x * f
endfunction

function y = never_called(x, mask)
    y = sum(x .* mask) / numel(x)
endfunction
