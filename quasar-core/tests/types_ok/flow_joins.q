% Flow-based inference: joins and widening (manual §4.1).
if rand(1) > 0.5
    a = 1
else
    a = 2.5
endif
v = [1.0, 2.0]
w = [1.0, 2.0, 3.0]
if rand(1) > 0.5
    u = v
else
    u = w
endif
acc = 0.0
for k = 0..3
    acc += k
endfor
x = 0.0
i = 0
while i < 10
    x = x + 0.5
    i += 1
endwhile
