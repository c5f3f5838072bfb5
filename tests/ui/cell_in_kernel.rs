// Cell arrays of unknown element type cannot be passed to kernels (manual §2.2.6, §3.1).
quasar::quasar! { r#"
function [] = __kernel__ k(c : vec[??], y : vec, pos : int)
    y[pos] = 1.0
endfunction
c = cell(4)
y = zeros(4)
parallel_do(4, c, y, k)
"# }

fn main() {}
