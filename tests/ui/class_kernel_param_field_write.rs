// A class value passed to a kernel is the launch's copy: a kernel cannot change its fields
// (a local copy or an array of the class can be changed).
quasar::quasar! { r#"
type counter : mutable class
    n : int
endtype
function [] = __kernel__ k(c : counter, y : vec, pos : int)
    c.n += pos
    y[pos] = c.n
endfunction
c = counter(n := 1)
y = zeros(4)
parallel_do(4, c, y, k)
"# }

fn main() {}
