// Dynamic classes can only be used from host functions (manual §7.4).
quasar::quasar! { r#"
type bird : dynamic class
    h : scalar
endtype
function [] = __kernel__ k(b : bird, y : vec, pos : int)
    y[pos] = b.h
endfunction
b = bird(h := 1.0)
y = zeros(4)
parallel_do(4, b, y, k)
"# }

fn main() {}
