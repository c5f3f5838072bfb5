s = "abc"
t = s * 2
