% inttypes.q: integer image types of Quasar for Rust's standard library.
%
% The manual (section 12) defines the SIMD vector aliases i8vec4, u8vec4, i16vec4, u16vec4;
% integer arithmetic on arrays is built in. The conversions follow the original's names as
% real code uses them:
%   uint8_to_float(x), uint16_to_float(x)   the values as scalars (not rescaled: 0..255 and
%                                            0..65535 stay as they are)
%   float_to_uint8(x), float_to_uint16(x)   rounded to the nearest integer and saturated to
%                                            the type's range (NaN gives 0)

type i8vec4 : vec[int8](4)
type u8vec4 : vec[uint8](4)
type i16vec4 : vec[int16](4)
type u16vec4 : vec[uint16](4)

function y = uint8_to_float(x : cube[uint8])
    y = float(x)
endfunction

function y = uint16_to_float(x : cube[uint16])
    y = float(x)
endfunction

function y = float_to_uint8(x : cube)
    y = uint8(round(x))
endfunction

function y = float_to_uint16(x : cube)
    y = uint16(round(x))
endfunction
