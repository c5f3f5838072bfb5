type color : enum
    Red
    Green
    Blue
endtype
c = color.Purple
