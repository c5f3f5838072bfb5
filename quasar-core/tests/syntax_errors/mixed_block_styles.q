for i = 0..3
    if i == 1
        print i
    end
endfor
