A = zeros(4, 5)
im = zeros(8, 8, 3)
pos = [1, 2]
col = A[:, 1]
row = A[0, :]
e = A[pos]
e2 = A[1, 2]
pix = im[1, 2, 0..2]
pix2 = im[1, 2, :]
plane = im[:, :, 0]
sub = A[0..1, 0..2]
v = [1.0, 2.0, 3.0, 4.0]
last = v[numel(v) - 1]
head = v[0..1]
function s = total(x : mat)
    s = 0.0
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            s += x[m, n]
        endfor
    endfor
endfunction
t = total(A)
