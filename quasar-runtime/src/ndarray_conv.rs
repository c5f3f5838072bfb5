//! Conversions between [`Array`] and `ndarray` arrays with `TryFrom`/`TryInto`, besides the
//! methods [`Array::from_ndarray`], [`Array::from_ndarray_view`] and [`Array::to_ndarray`].
//! Both directions can fail: an `Array` has at most 16 dimensions, and reading one may find
//! its host copy borrowed or a GPU error; a conversion to a fixed-rank `ndarray` type fails
//! when the ranks differ.

use crate::array::Array;
use crate::element::Element;
use crate::error::{Error, Result};
use ndarray::{ArrayBase, Dimension, OwnedRepr, ViewRepr};

/// Takes an owned `ndarray` array, without a copy when it is in standard layout.
impl<T: Element, D: Dimension> TryFrom<ArrayBase<OwnedRepr<T>, D>> for Array<T> {
    type Error = Error;
    fn try_from(a: ArrayBase<OwnedRepr<T>, D>) -> Result<Array<T>> {
        Array::from_ndarray(a)
    }
}

/// Copies the elements of an `ndarray` view.
impl<'a, T: Element, D: Dimension> TryFrom<ArrayBase<ViewRepr<&'a T>, D>> for Array<T> {
    type Error = Error;
    fn try_from(a: ArrayBase<ViewRepr<&'a T>, D>) -> Result<Array<T>> {
        Array::from_ndarray_view(a)
    }
}

/// Copies the elements into an owned `ndarray` array of rank `D` (`IxDyn` for any rank).
impl<T: Element, D: Dimension> TryFrom<&Array<T>> for ArrayBase<OwnedRepr<T>, D> {
    type Error = Error;
    fn try_from(a: &Array<T>) -> Result<Self> {
        let rank = a.shape().len();
        a.to_ndarray()?.into_dimensionality::<D>().map_err(|_| {
            let wanted = D::NDIM.map_or("any number of".to_string(), |n| n.to_string());
            Error::shape(
                a.shape(),
                format!("an ndarray with {wanted} dimensions cannot hold an array of {rank}"),
            )
        })
    }
}

/// As for `&Array<T>`: the elements are copied (other references to the array keep them).
impl<T: Element, D: Dimension> TryFrom<Array<T>> for ArrayBase<OwnedRepr<T>, D> {
    type Error = Error;
    fn try_from(a: Array<T>) -> Result<Self> {
        Self::try_from(&a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, Array2, Array3, ArrayD};

    #[test]
    fn owned_and_viewed_ndarrays_convert_both_ways() {
        let nd = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let a = Array::try_from(nd.clone()).unwrap();
        assert_eq!(a.shape(), [2, 3]);
        assert_eq!(a.to_vec().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let back: Array2<f32> = (&a).try_into().unwrap();
        assert_eq!(back, nd);
        let dynamic: ArrayD<f32> = a.clone().try_into().unwrap();
        assert_eq!(dynamic, nd.clone().into_dyn());

        // A transposed view is copied in its logical order.
        let t: Array<f32> = nd.t().try_into().unwrap();
        assert_eq!(t.shape(), [3, 2]);
        assert_eq!(t.to_vec().unwrap(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    }

    #[test]
    fn a_rank_mismatch_is_an_error_naming_both_ranks() {
        let a = Array::<i32>::zeros(&[2, 3]).unwrap();
        let e = Array3::<i32>::try_from(&a).unwrap_err().to_string();
        assert!(e.contains("an ndarray with 3 dimensions cannot hold an array of 2"), "{e}");
        assert!(e.contains("2 x 3") || e.contains("[2, 3]"), "{e}");
    }
}
