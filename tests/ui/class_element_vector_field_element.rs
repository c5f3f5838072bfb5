// Kernels write components of vector fields of elements of their array arguments in place
// (`a[pos].v[1] = pos`), but not through a variable holding the array: the error says to
// write through the argument itself.
quasar::quasar! { r#"
type body : mutable class
    v : vec3
endtype
function [] = __kernel__ k(a : vec[body], pos : int)
    a[pos].v[0] = pos
    b = a
    b[pos].v[1] = pos
endfunction
a = vec[body](4)
parallel_do(4, a, k)
"# }

fn main() {}
