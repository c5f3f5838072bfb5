//! [`Element`]: the types an [`Array`](crate::Array) can hold.

use half::f16;
use num_complex::Complex;

/// A type that can be an element of an [`Array`](crate::Array) and travel to a GPU.
///
/// Implemented for `i8 … i64`, `u8 … u64`, `f32`, `f64`, [`half::f16`],
/// [`num_complex::Complex<f32>`] / `Complex<f64>`, fixed-size arrays `[T; N]` of elements (the
/// small vector types `vec3`, `ivec2`, …) and, by generated code, `#[repr(C)]` class structs.
///
/// # Safety
///
/// Array data is created zero-filled and copied to and from devices byte by byte, so an
/// implementor must be plain old data:
///
/// * the all-zero bit pattern is a valid value, and so is every bit pattern a device can write
///   into it (in practice: every field is itself an `Element`);
/// * it has a stable layout that a GPU kernel agrees with: a primitive, `#[repr(C)]`, or
///   `#[repr(transparent)]`;
/// * it holds no pointers, references, or anything with a `Drop` implementation.
///
/// Padding bytes are allowed: the runtime copies element data with untyped memory copies and
/// never reads it as `[u8]`.
///
/// ```
/// #[derive(Clone, Copy, Debug, Default, PartialEq)]
/// #[repr(C)]
/// struct Point { x: f32, y: f32, id: i32 }
/// // SAFETY: repr(C), every field is an Element.
/// unsafe impl quasar_runtime::Element for Point {}
/// let a = quasar_runtime::Array::<Point>::zeros(&[3]).unwrap();
/// assert_eq!(a.get(&[1]).unwrap(), Point::default());
/// ```
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// A readable name of the type, used in error messages.
    fn type_name() -> &'static str {
        std::any::type_name::<Self>()
    }
}

macro_rules! element {
    ($($t:ty),*) => { $(
        // SAFETY: primitive numbers: every bit pattern is valid, no padding, no pointers.
        unsafe impl Element for $t {}
    )* };
}
element!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

// SAFETY: `f16` is `repr(transparent)` over `u16`.
unsafe impl Element for f16 {}
// SAFETY: `Complex<T>` is `repr(C)` with two fields of type `T`.
unsafe impl<T: Element + Copy> Element for Complex<T> {}
// SAFETY: an array of plain old data is plain old data with the same alignment.
unsafe impl<T: Element, const N: usize> Element for [T; N] {}

/// Size, alignment and identity of an element type, kept beside type-erased buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElemInfo {
    /// The type's identity.
    pub type_id: std::any::TypeId,
    /// `size_of::<T>()`.
    pub size: usize,
    /// `align_of::<T>()`.
    pub align: usize,
    /// A readable name.
    pub name: &'static str,
}

impl ElemInfo {
    /// The information of `T`.
    pub fn of<T: Element>() -> ElemInfo {
        ElemInfo {
            type_id: std::any::TypeId::of::<T>(),
            size: std::mem::size_of::<T>(),
            align: std::mem::align_of::<T>(),
            name: T::type_name(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_element<T: Element>() -> ElemInfo {
        ElemInfo::of::<T>()
    }

    #[test]
    fn every_quasar_element_type_is_an_element() {
        assert_eq!(is_element::<f16>().size, 2);
        assert_eq!(is_element::<Complex<f32>>().size, 8);
        assert_eq!(is_element::<Complex<f64>>().align, 8);
        assert_eq!(is_element::<[f32; 3]>().size, 12);
        assert_eq!(is_element::<u64>().name, "u64");
        assert_ne!(is_element::<i32>().type_id, is_element::<u32>().type_id);
    }
}
