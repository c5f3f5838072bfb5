// An element of a vector field of an immutable class cannot be changed (manual §2.2.6).
quasar::quasar! { r#"
type ray : class
    origin : vec3
    dir : vec3
endtype
function [] = __kernel__ k(y : vec, pos : int)
    r = ray(origin := [0.0, 0.0, 0.0], dir := [1.0, 0.0, 0.0])
    r.dir[1] = pos
    y[pos] = r.dir[1]
endfunction
y = zeros(4)
parallel_do(4, y, k)
"# }

fn main() {}
