if a == 2; b = 1; endif
