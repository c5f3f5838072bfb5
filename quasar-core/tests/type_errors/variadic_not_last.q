% The rest parameter must come last (manual §4.8).
function s = total(...args, scale)
    s = scale * numel(args)
endfunction
print total(1, 2, 3)
