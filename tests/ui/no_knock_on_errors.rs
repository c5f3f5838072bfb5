// A Quasar error leaves the module's functions in place with the types their annotations
// give, so the Rust code that calls them reports nothing of its own: the only error is the
// Quasar one (`zeroes` is not a function; with a suggestion).
mod filters {
    quasar::quasar! { r#"
function y : mat = brighten(x : mat, a : scalar)
    y = x + a
endfunction

function [lo : scalar, hi] = value_range(x : mat)
    lo = min(x)
    hi = max(x)
endfunction

function y = padded(x : mat, n : int)
    y = x + zeroes(n)
endfunction
"# }
}

fn main() -> quasar::Result<()> {
    let x = quasar::Array::<f32>::zeros(&[2, 2])?;
    let y = filters::brighten(&x, 1.0)?;
    let (lo, hi) = filters::value_range(&y)?;
    let z = filters::padded(&y, 3)?;
    quasar::imwrite("out.png", &z)?;
    println!("{} {}", lo + 1.0, hi + 1.0);
    filters::script()
}
