% Enumerations (integer-valued) and match, with enum values named without their type.
type color : enum
    Red
    Green
    Blue = 4
    Cyan
endtype
c = color.Cyan
match c with
| Red ->
    v = 1
| (Green, Blue) ->
    v = 2
| _ ->
    v = 3
endmatch
function s = describe(a : int)
    match a with
    | 1 ->
        s = "one"
    | (2, 3) ->
        s = "a few"
    | _ ->
        s = "many"
    endmatch
endfunction
d = describe(2)
function n = name_length(s : string)
    match s with
    | "red" ->
        n = 3
    | _ ->
        n = numel(s)
    endmatch
endfunction
k = name_length("blue")
