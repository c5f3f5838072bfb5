//! The `src/main.rs` of the crate `scripts/new-user-crate.sh` makes as a new user would: it
//! depends on `quasar` and on `ndarray` as `cargo add` adds them (no version given), and
//! passes arrays both ways between `ndarray` and a `quasar!` function.

use ndarray::{array, Array2, ArrayD, Axis};

quasar::quasar! { r#"
function [y, total] = scale(x : mat, a : scalar)
    y = a * x
    total = sum(y)
endfunction
"# }

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let nd: Array2<f32> = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];

    // ndarray -> quasar (owned, no copy), through a Quasar function, and back.
    let x = quasar::Array::try_from(nd.clone())?;
    let (y, total) = scale(&x, 2.0)?;
    let back: Array2<f32> = (&y).try_into()?;
    assert_eq!(back, &nd * 2.0);
    assert_eq!(total, 42.0);

    // A view (here transposed) is copied in its logical order; any rank converts to ArrayD.
    let t = quasar::Array::try_from(nd.view().reversed_axes())?;
    assert_eq!(t.shape(), [3, 2]);
    let dynamic: ArrayD<f32> = t.try_into()?;
    assert_eq!(dynamic, nd.t().into_dyn());

    // Borrowing the host copy as an ndarray view, without a copy.
    let view = y.host_view()?;
    assert_eq!(view.as_ndarray().sum_axis(Axis(0)), array![10.0, 14.0, 18.0].into_dyn());

    // The user's ndarray and quasar's are the same crate.
    let same: &quasar::ndarray::Array2<f32> = &back;
    println!("ok: {} elements both ways, ndarray types shared", same.len());
    Ok(())
}
