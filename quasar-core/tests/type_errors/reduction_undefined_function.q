% A replacement that calls a function nothing defines (manual §4.9.3, the second unsafe
% situation). An error at the strict safety level (the manual's setting's name works too).
#pragma COMPILER_REDUCTION_SAFETYLEVEL strict
reduction (x : cmat) -> real(ifft2(x)) = c2r_fft(x)
