% Exceptions (manual §4.13) and errors raised in kernels (§5.1), used by
% tests/e2e_exceptions.rs. CI also runs those tests with every launch on the interpreted PTX
% device.

function y = checked_log(x : scalar)
    if x <= 0
        error "the log of a number that is not positive"
    endif
    y = log(x)
endfunction

% The manual's example: the handler receives the message.
function msg = sigh()
    msg = ""
    try
        error "Fail again"
    catch ex
        print "sigh: ", ex
        msg = ex
    endtry
endfunction

% The exception's type written out and its message (manual §4.13): `qexception` as the type
% of a `catch` variable, of a parameter and of a variable; `ex.message`.
function text = describe(ex : qexception)
    text = "caught: " + ex.message
endfunction

function [text, again] = typed_catch(x : scalar)
    text = ""
    again = ""
    try
        y = checked_log(x)
        text = "no error"
    catch ex : qexception
        text = describe(ex)
        saved : qexception = ex
        again = saved.message + "!"
    endtry
endfunction

% A handler that raises again reaches the outer handler; what follows a raise never runs.
function [trace, msg] = nested(x : scalar)
    trace = 0
    msg = ""
    try
        try
            y = checked_log(x)
            trace = 1
        catch inner
            trace = 2
            error inner
        endtry
        trace = trace + 10
    catch outer
        msg = outer
        trace = trace + 100
    endtry
endfunction

% Each failure inside a loop is caught and the loop goes on.
function [count, total] = count_failures(v : vec)
    count = 0
    total = 0.0
    for i = 0..numel(v) - 1
        try
            total += checked_log(v[i])
        catch
            count += 1
        endtry
    endfor
endfunction

% An error raised in a device function that a kernel calls.
function y = __device__ guarded_sqrt(x : scalar)
    if x < 0
        error "the square root of a negative element"
    endif
    y = sqrt(x)
endfunction

function [] = __kernel__ roots(A : vec, B : vec, pos : int)
    B[pos] = guarded_sqrt(A[pos])
endfunction

% Caught around the launch.
function [B, ok, msg] = all_roots(A : vec)
    B = zeros(size(A))
    ok = 1
    msg = ""
    try
        parallel_do(numel(A), A, B, roots)
    catch ex
        ok = 0
        msg = ex
    endtry
endfunction

% Not caught: the launch's error reaches Rust as `Err`.
function B = roots_unguarded(A : vec)
    B = zeros(size(A))
    parallel_do(numel(A), A, B, roots)
endfunction
