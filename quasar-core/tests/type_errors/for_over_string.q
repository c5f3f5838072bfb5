for c = "abc"
    print c
endfor
