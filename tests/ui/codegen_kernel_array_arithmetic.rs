// Whole-array arithmetic inside a kernel: the error names the construct and says what to write
// instead (one element per thread).
quasar::quasar! { r#"
function [] = __kernel__ double_rows(x : mat, y : mat, pos : ivec2)
    y[pos] = sum(x + x)
endfunction
function y : mat = doubled(x : mat)
    y = zeros(size(x))
    parallel_do(size(x), x, y, double_rows)
endfunction
"# }

fn main() {}
