% `|>` means something only through a reduction that defines it.
function y = inc(x : scalar)
    y = x + 1
endfunction
z = 2.0 |> inc
