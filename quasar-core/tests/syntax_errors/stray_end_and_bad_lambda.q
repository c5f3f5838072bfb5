endwhile
x = (a, b) -> a + b
y = (1, 2) -> 3
