a = zeros("4")
