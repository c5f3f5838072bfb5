// Fetch and broadcast needs the shape of the initialiser when compiling (manual §9.2.1): the
// shared memory is sized from it.
quasar::quasar! { r#"
function [] = __kernel__ k(x : vec, y : vec, pos : int)
    s : 'shared = 2 .* x[:]
    y[pos] = s[pos]
endfunction
x = ones(8)
y = zeros(8)
parallel_do(8, x, y, k)
"# }

fn main() {}
