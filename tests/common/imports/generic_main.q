% Imports a library of generic functions and calls one of them (tests/e2e_real_code.rs): the
% other one, never called, must not stop code generation.
import "generic_lib.q"

function y = scaled(v : vec)
    y = scale_all(v, 3.0)
endfunction
