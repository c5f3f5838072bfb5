//! A small example: a `__kernel__` function and an array expression, called from Rust.
//!
//! ```text
//! cargo run --release --example saxpy
//! ```

pub(crate) mod q {
    quasar::quasar! { r#"
% y = a x + y, one position per thread
function [] = __kernel__ saxpy_kernel(a : scalar, x : vec'const, y : vec, pos : int)
    y[pos] = a * x[pos] + y[pos]
endfunction

function [] = saxpy(a : scalar, x : vec, y : vec)
    parallel_do(numel(y), a, x, y, saxpy_kernel)
endfunction

% The same with an array expression (the kernel generator makes it one kernel).
function z = saxpy_expr(a : scalar, x : vec, y : vec)
    z = a * x + y
endfunction
"# }
}

fn main() -> quasar::Result<()> {
    let n = 1 << 20;
    let x = quasar::Array::from_fn(&[n], |i| i as f32)?;
    let y = quasar::Array::from_elem(&[n], 1.0f32)?;
    q::saxpy(2.0, &x, &y)?;
    let z = q::saxpy_expr(2.0, &x, &quasar::Array::from_elem(&[n], 1.0f32)?)?;
    let (yv, zv) = (y.to_vec()?, z.to_vec()?);
    println!("y[0..4] = {:?}", &yv[..4]);
    println!("kernel and array expression agree: {}", yv == zv);
    Ok(())
}
