add = (a, b) -> a + b
z = add(1, 2, 3)
