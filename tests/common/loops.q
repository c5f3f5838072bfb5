% Plain `for` loops over arrays in host code: the loop parallelizer turns each nest into a
% kernel (`transform::parallel_loops`); the `{!serial for}` twins run as written, so the
% tests compare both.

function y : mat = box3_loop(x : mat'clamped)
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

function y : mat = box3_serial(x : mat'clamped)
    y = zeros(size(x))
    {!serial for}
    for m = 0..size(x, 0) - 1
        {!serial for}
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

% Three dimensions, a scalar read from the host and a clamp on a private.
function y : cube = gamma_loop(x : cube, g : scalar)
    y = zeros(size(x))
    for i = 0..size(x, 0) - 1
        for j = 0..size(x, 1) - 1
            for k = 0..size(x, 2) - 1
                v = x[i, j, k] ^ g
                if v > 1
                    v = 1
                endif
                y[i, j, k] = v
            endfor
        endfor
    endfor
endfunction

% Over rows only: all columns of a row update the same element.
function y : vec = row_sums(x : mat)
    y = zeros(size(x, 0))
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            y[m] += x[m, n]
        endfor
    endfor
endfunction

% A start that is not a constant and a step loop around parallel ones.
function y : vec = smooth_steps(x : vec, steps : int)
    y = copy(x)
    z = copy(x)
    for t = 1..steps
        for i = 1..numel(x) - 2
            z[i] = (y[i - 1] + y[i] + y[i + 1]) / 3
        endfor
        for i = 1..numel(x) - 2
            y[i] = z[i]
        endfor
    endfor
endfunction

% A dependency: stays serial (with a warning at compile time).
function y : vec = prefix_sum(x : vec)
    y = zeros(numel(x))
    y[0] = x[0]
    for i = 1..numel(x) - 1
        y[i] = y[i - 1] + x[i]
    endfor
endfunction

% Out of bounds in a parallelised loop is still the host's error.
function y : vec = shifted(x : vec)
    y = zeros(numel(x))
    for i = 0..numel(x) - 1
        y[i] = x[i + 1]
    endfor
endfunction

% Accumulations: the kernel's output, summed over the iterations.
function s : scalar = dot_loop(x : vec, y : vec)
    s = 0.0
    for i = 0..numel(x) - 1
        s += x[i] * y[i]
    endfor
endfunction

function c : int = count_above(x : mat, t : scalar)
    c = 0
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            if x[m, n] > t
                c += 1
            endif
        endfor
    endfor
endfunction
