a = [1, 2, 3
b = 2
for i = 0..2
    print i
endfor
