x = 1 +* 2
y = [1, 2; 3, 4]
z = "never closed
w = 5 @ 6
print "still parsed", w
