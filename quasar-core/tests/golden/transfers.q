% What launches copy (manual §16.6; the `analysis` section at the end): read-only arrays are
% `'const` (never copied back from a device), arrays that every thread writes at its position
% before any read are `'nocopy` when the launch covers them (never uploaded; the launch
% decides, `arg_filled`), declared modifiers are kept, anything else is copied both ways.
function [] = __kernel__ blend(a : mat, b : mat, out : mat, w : scalar, pos : ivec2)
    out[pos] = w * a[pos] + (1 - w) * b[pos]
endfunction

function [] = __kernel__ split(x : cube, lo : cube, hi : cube, pos : ivec3)
    v = x[pos[0], pos[1], pos[2]]
    lo[pos[0], pos[1], pos[2]] = min(v, 0.5)
    if v > 0.5
        hi[pos] = v
    endif
endfunction

function [] = __kernel__ accumulate(x : vec'const, y : vec'nocopy, z : vec, pos : int)
    y[pos] = x[pos]
    y[pos] += 1
    z[pos] += y[pos]
endfunction

function [] = run(a : mat, b : mat, x : cube, v : vec)
    out = uninit(size(a))
    parallel_do(size(a), a, b, out, 0.25, blend)
    lo = uninit(size(x))
    hi = zeros(size(x))
    parallel_do(size(x), x, lo, hi, split)
    y = uninit(size(v))
    z = zeros(size(v))
    parallel_do(numel(v), v, y, z, accumulate)
endfunction
