function y : int = name()
    y = "seven"
endfunction
n = name()
