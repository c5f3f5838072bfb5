// One element of a vector field of an array element cannot be written in place (yet): the
// error says to assign the whole field or to go through a variable.
quasar::quasar! { r#"
type body : mutable class
    v : vec3
endtype
function [] = __kernel__ k(a : vec[body], pos : int)
    a[pos].v[1] = pos
endfunction
a = vec[body](4)
parallel_do(4, a, k)
"# }

fn main() {}
