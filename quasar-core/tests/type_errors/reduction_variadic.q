% Variadic reductions (manual §4.9.5) are not supported: a compile error names them.
reduction (a : string, ...args : vec[??]) -> myprint(a, args) = print(a)
