% `#pragma show_reductions on` (manual §17.3): a note for each reduction applied, at the
% expression it rewrote, until `#pragma show_reductions off`.
reduction (x : mat) -> transpose(transpose(x)) = x
reduction (x : mat) -> real(x) = x
reduction (x : scalar) -> abs(x) = x where x >= 0

function y = quiet(a : mat)
    y = transpose(transpose(a))
endfunction

#pragma show_reductions on
function [y, z] = shown(a : mat, t : scalar)
    y = real(transpose(transpose(a)))
    z = abs(t)
endfunction
#pragma show_reductions off

function y = quiet_again(a : mat)
    y = real(a)
endfunction
