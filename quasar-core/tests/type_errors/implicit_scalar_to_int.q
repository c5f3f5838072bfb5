x = [0.5, 1.5, 2.5]
N = numel(x)
a = 0
for n = 0..N-1
    a += x[n]
endfor
print a
