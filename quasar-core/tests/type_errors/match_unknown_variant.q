type color : enum
    Red
    Green
endtype
c = color.Red
match c with
| Purple -> v = 1
| _ -> v = 2
endmatch
