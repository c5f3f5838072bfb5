% Literal rules (manual §2.2, ARCHITECTURE §3).
a = 1
b = 1.0
c = [1, 2, 3]
d = [1, 2.5, 3]
e = 7 / 2
f = 7 * 2
g = 2j
h = "text"
k = [[1, 2], [3, 4]]
m = 0..9
n = 1Fh
p = 1011b
q = 1 < 2
r = 1e-3
s = {"x", 1.0}
t = [1.0, 2.0] * 2
