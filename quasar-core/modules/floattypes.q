% floattypes.q: half-precision types of Quasar for Rust's standard library.
%
% The manual (section 12) defines the alias hvec2; half conversions follow the original's
% names:
%   float_to_half(x)   every element rounded to the nearest scalar'half (IEEE binary16)
%   half_to_float(x)   every element as a scalar (exact)

type hvec2 : vec[scalar'half](2)
type hvec4 : vec[scalar'half](4)

function y = float_to_half(x : cube)
    y = scalar_to_half(x)
endfunction

function y = half_to_float(x : cube[scalar'half])
    y = cast(x, cube)
endfunction
