x = [1.0, 2.0, 3.0]
y = frobnicate(x)
