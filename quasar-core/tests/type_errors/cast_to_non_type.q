% `cast` converts to a type: a string naming one is not a type.
x = cast(2.5, "int")
