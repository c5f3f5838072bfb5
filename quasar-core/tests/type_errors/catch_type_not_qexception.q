% A `catch` receives a `qexception` (manual §4.13); other exception types cannot be caught.
function y = f(x : scalar)
    y = 0.0
    try
        y = log(x)
    catch ex : scalar
        y = -1.0
    endtry
endfunction
