% Automatic loop parallelization (`transform::parallel_loops`): a 3x3 box filter written as
% plain loops becomes a two-dimensional kernel whose accesses are offsets of `pos` (so the
% interior pass removes their checks); a loop with a dependency stays serial.
function y : mat = box3(x : mat'clamped)
    y = zeros(size(x))
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            s = 0.0
            for dm = -1..1
                for dn = -1..1
                    s += x[m + dm, n + dn]
                endfor
            endfor
            y[m, n] = s / 9
        endfor
    endfor
endfunction

function y : vec = diff_from(x : vec, a : int)
    y = zeros(numel(x))
    for i = a..numel(x) - 1
        y[i] = x[i] - x[i - 1]
    endfor
    {!serial for}
    for i = 1..numel(x) - 1
        y[i] = y[i - 1] + y[i]
    endfor
endfunction

% `blkdim=[N, N]` (manual §9.2.2, virtual blocks): both loops run in N x N blocks.
function y : mat = block_means(x : mat)
    N : int'const = 4
    y = zeros(size(x))
    {!parallel for; blkdim=[N, N]}
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            y[m, n] = x[int(m / N) * N, int(n / N) * N]
        endfor
    endfor
endfunction
