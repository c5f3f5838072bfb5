count : int = 0
count = "three"
