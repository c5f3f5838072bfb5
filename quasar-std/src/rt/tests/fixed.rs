use crate::rt::*;
use quasar_runtime::Array;

#[test]
fn element_wise_helpers() {
    let a = [1.0f32, 2.0, 3.0];
    let b = [4.0f32, 5.0, 6.0];
    assert_eq!(map(a, |x| x * 2.0), [2.0, 4.0, 6.0]);
    assert_eq!(map([1i32, -2], |x| x as f32), [1.0, -2.0]);
    assert_eq!(zip(a, b, |x, y| x + y), [5.0, 7.0, 9.0]);
    assert_eq!(zip([1i32, 2], [0.5f32, 0.25], |x, y| x as f32 * y), [0.5, 0.5]);
    assert_eq!(splat::<i32, 4>(7), [7, 7, 7, 7]);
    assert_eq!((sum(a), prod(a), dot(a, b)), (6.0, 6.0, 32.0));
    assert_eq!((sum([i32::MAX, 1]), prod::<i32, 0>([])), (i32::MIN, 1));
    assert_eq!(map(a, |x| floor(x * 0.7)), [0.0, 1.0, 2.0]);
}

#[test]
fn index_vectors_widen_as_casts_do() {
    assert_eq!(widen([-1i32, 0, i32::MAX]), [-1i64, 0, i32::MAX as i64]);
    assert_eq!(widen([255u8, 7]), [255, 7]);
    // As `as i64`: the largest unsigned values wrap (out of range either way).
    assert_eq!(widen([u64::MAX]), [-1]);
}

#[test]
fn conversions_to_and_from_arrays() {
    let m = to_array([1, 2, 3, 4], &[2, 2]).unwrap();
    assert_eq!((m.shape(), m.get(&[1, 0]).unwrap()), (&[2, 2][..], 3));
    assert!(to_array([1, 2, 3], &[2, 2]).is_err());
    let v: [i32; 4] = from_array(&m, "m").unwrap();
    assert_eq!(v, [1, 2, 3, 4]);
    let e = from_array::<i32, 3>(&m, "m").unwrap_err();
    assert!(e.to_string().contains("`m`"), "{e}");
    let one = Array::from_vec(&[1], vec![2.5f64]).unwrap();
    assert_eq!(from_array::<f64, 1>(&one, "s").unwrap(), [2.5]);
}
