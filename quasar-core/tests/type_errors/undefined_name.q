width = 640
area = width * heigth
