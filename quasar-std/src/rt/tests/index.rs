use crate::rt::*;
use quasar_runtime::{Array, Error};

/// The 3x4 matrix with element (i, j) = 10 i + j.
fn mat() -> Array<i32> {
    Array::from_fn(&[3, 4], |k| (10 * (k / 4) + k % 4) as i32).unwrap()
}

fn get(a: &Array<i32>, subs: &[Sub], mode: Mode) -> (Vec<usize>, Vec<i32>) {
    let r = index_get(a, "A", subs, mode).unwrap();
    (r.shape().to_vec(), r.to_vec().unwrap())
}

fn range(start: i64, step: i64, end: i64) -> Sub {
    Sub::Range { start, step, end }
}

#[test]
fn slicing_shapes_and_values() {
    let a = mat();
    assert_eq!(get(&a, &[Sub::All, Sub::At(1)], Mode::Checked), (vec![3], vec![1, 11, 21]));
    assert_eq!(get(&a, &[Sub::At(2), Sub::All], Mode::Checked), (vec![4], vec![20, 21, 22, 23]));
    assert_eq!(
        get(&a, &[range(0, 1, 1), range(0, 1, 1)], Mode::Checked),
        (vec![2, 2], vec![0, 1, 10, 11])
    );
    assert_eq!(get(&a, &[Sub::At(1), range(3, -2, 0)], Mode::Checked), (vec![2], vec![13, 11]));
    assert_eq!(get(&a, &[range(2, -1, 0), Sub::At(0)], Mode::Checked), (vec![3], vec![20, 10, 0]));
    let list = Sub::List(vec![2, 0, 2]);
    assert_eq!(
        get(&a, &[list, range(1, 2, 3)], Mode::Checked),
        (vec![3, 2], vec![21, 23, 1, 3, 21, 23])
    );
    // One subscript on a matrix is linear; `All` alone keeps the shape.
    assert_eq!(get(&a, &[Sub::At(5)], Mode::Checked), (vec![1], vec![11]));
    assert_eq!(get(&a, &[range(4, 1, 6)], Mode::Checked), (vec![3], vec![10, 11, 12]));
    assert_eq!(get(&a, &[Sub::All], Mode::Checked).0, vec![3, 4]);
    assert_eq!(get(&a, &[], Mode::Checked).0, vec![3, 4]);
    assert_eq!(get(&a, &[Sub::At(1), Sub::At(2)], Mode::Checked), (vec![1], vec![12]));
    // Empty ranges keep their dimension with extent 0.
    assert_eq!(get(&a, &[range(2, 1, 0), Sub::All], Mode::Checked), (vec![0, 4], vec![]));
    // A trailing subscript past the rank.
    assert_eq!(
        get(&a, &[Sub::At(1), Sub::All, Sub::At(0)], Mode::Checked),
        (vec![4], vec![10, 11, 12, 13])
    );
}

#[test]
fn out_of_range_slices_follow_the_mode() {
    let a = mat();
    assert_eq!(get(&a, &[Sub::At(0), range(-2, 1, 1)], Mode::Safe), (vec![4], vec![0, 0, 0, 1]));
    assert_eq!(
        get(&a, &[Sub::At(0), range(-2, 1, 1)], Mode::Circular),
        (vec![4], vec![2, 3, 0, 1])
    );
    assert_eq!(get(&a, &[Sub::At(0), range(-2, 1, 1)], Mode::Mirror), (vec![4], vec![1, 0, 0, 1]));
    assert_eq!(
        get(&a, &[Sub::At(9), range(2, 1, 5)], Mode::Clamped),
        (vec![4], vec![22, 23, 23, 23])
    );
    assert_eq!(get(&a, &[Sub::At(-1), Sub::At(0)], Mode::Safe), (vec![1], vec![0]));
    let e = index_get(&a, "img", &[Sub::All, range(2, 1, 4)], Mode::Checked).unwrap_err();
    assert_eq!(e.to_string(), "index [0, 4] is out of range for `img` with shape [3, 4]");
    let e = index_get(&a, "img", &[Sub::List(vec![0, 12])], Mode::Unchecked).unwrap_err();
    assert!(matches!(e, Error::IndexOutOfRange { .. }), "{e}");
    assert!(index_get(&a, "img", &[Sub::All, range(0, 1, 12)], Mode::Checked).is_err());
    assert!(index_get(&a, "img", &[range(0, 0, 2)], Mode::Checked).is_err());
}

#[test]
fn assignment_with_scalars_and_arrays() {
    let a = mat();
    index_fill(&a, "A", &[Sub::All, Sub::At(1)], -1, Mode::Checked).unwrap();
    assert_eq!(get(&a, &[Sub::All, Sub::At(1)], Mode::Checked).1, [-1, -1, -1]);
    let v = Array::from_vec(&[2, 2], vec![100, 101, 102, 103]).unwrap();
    index_set(&a, "A", &[range(1, 1, 2), range(2, 1, 3)], &v, Mode::Checked).unwrap();
    assert_eq!(a.to_vec().unwrap(), [0, -1, 2, 3, 10, -1, 100, 101, 20, -1, 102, 103]);
    // A vector selection takes any right-hand side with as many elements.
    let row = Array::from_vec(&[1, 3], vec![7, 8, 9]).unwrap();
    index_set(&a, "A", &[Sub::All, Sub::At(0)], &row, Mode::Checked).unwrap();
    assert_eq!(get(&a, &[Sub::All, Sub::At(0)], Mode::Checked).1, [7, 8, 9]);
    let col = Array::from_vec(&[2, 1], vec![5, 6]).unwrap();
    index_set(&a, "A", &[range(0, 1, 1), range(3, 1, 3)], &col, Mode::Checked).unwrap();
    assert_eq!(get(&a, &[Sub::All, Sub::At(3)], Mode::Checked).1, [5, 6, 103]);
    // Mismatched right-hand sides.
    let e = index_set(&a, "A", &[range(0, 1, 1), range(0, 1, 1)], &row, Mode::Checked).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    let four = Array::from_vec(&[4], vec![1, 2, 3, 4]).unwrap();
    assert!(index_set(&a, "A", &[range(0, 1, 1), range(0, 1, 1)], &four, Mode::Checked).is_err());
    assert!(index_set(&a, "A", &[Sub::All, Sub::At(0)], &four, Mode::Checked).is_err());
}

#[test]
fn assignment_out_of_range() {
    let a = mat();
    let before = a.to_vec().unwrap();
    let e = index_fill(&a, "A", &[Sub::At(3), Sub::All], 0, Mode::Checked).unwrap_err();
    assert!(e.to_string().contains("`A`"), "{e}");
    assert_eq!(a.to_vec().unwrap(), before, "nothing written on error");
    // Safe and the mapping modes drop the writes outside.
    index_fill(&a, "A", &[Sub::At(0), range(-2, 1, 1)], 50, Mode::Safe).unwrap();
    index_fill(&a, "A", &[Sub::At(1), range(-2, 1, 1)], 60, Mode::Circular).unwrap();
    assert_eq!(&a.to_vec().unwrap()[..8], [50, 50, 2, 3, 60, 60, 12, 13]);
}

#[test]
fn aliased_assignment_copies_first() {
    // `A[0, :] = A[1, :]` as generated: the slice is a new array.
    let a = mat();
    let row1 = index_get(&a, "A", &[Sub::At(1), Sub::All], Mode::Checked).unwrap();
    index_set(&a, "A", &[Sub::At(0), Sub::All], &row1, Mode::Checked).unwrap();
    assert_eq!(&a.to_vec().unwrap()[..8], [10, 11, 12, 13, 10, 11, 12, 13]);
    // The right-hand side shares the buffer (`A[2..-1..0, :] = A`, or a reshaped `A`).
    let a = mat();
    let same = a.clone();
    index_set(&a, "A", &[range(2, -1, 0), Sub::All], &same, Mode::Checked).unwrap();
    assert_eq!(get(&a, &[Sub::All, Sub::At(0)], Mode::Checked).1, [20, 10, 0]);
    let flat = a.reshape(&[12]).unwrap();
    // A vector selection takes the 3x4 right-hand side element by element.
    index_set(&flat, "A", &[range(11, -1, 0)], &a, Mode::Checked).unwrap();
    assert_eq!(flat.to_vec().unwrap(), [3, 2, 1, 0, 13, 12, 11, 10, 23, 22, 21, 20]);
    index_set(&a, "A", &[Sub::At(1), Sub::All], &flat.reshape(&[12]).unwrap(), Mode::Checked)
        .unwrap_err();
    assert!(matches!(
        index_set(&a, "A", &[Sub::At(1), Sub::All], &a, Mode::Checked),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn ranges_as_values() {
    assert_eq!(range_vec(0, 1, 4).unwrap(), [0, 1, 2, 3, 4]);
    assert_eq!(range_vec(5, -2, 0).unwrap(), [5, 3, 1]);
    assert_eq!(range_vec(0, 3, 7).unwrap(), [0, 3, 6]);
    assert!(range_vec(3, 1, 2).unwrap().is_empty());
    assert!(range_vec(0, 0, 2).is_err());
    assert!(range_vec(i64::MIN, 1, i64::MAX).is_err());
    assert_eq!(range_vec(i64::MAX - 1, 5, i64::MAX).unwrap(), [i64::MAX - 1]);
    let r = range_array_i32(0, 1, 9).unwrap();
    assert_eq!((r.shape(), r.to_vec().unwrap()), (&[10][..], (0..10).collect::<Vec<_>>()));
    assert_eq!(
        range_array_i32(i32::MAX, -i32::MAX, i32::MIN).unwrap().to_vec().unwrap(),
        [i32::MAX, 0, -i32::MAX]
    );
    let f = range_array_f(0.0f32, 0.1, 1.0).unwrap();
    assert_eq!(f.numel(), 11);
    assert_eq!(f.get(&[10]).unwrap(), 1.0);
    assert_eq!(range_array_f(0.0f64, 0.1, 1.0).unwrap().numel(), 11);
    assert_eq!(
        range_array_f(1.0f64, -0.25, 0.0).unwrap().to_vec().unwrap(),
        [1.0, 0.75, 0.5, 0.25, 0.0]
    );
    assert_eq!(range_array_f(0.0f32, 0.3, 1.0).unwrap().numel(), 4);
    assert_eq!(range_array_f(1.0f32, 1.0, 0.0).unwrap().numel(), 0);
    assert!(range_array_f(0.0f32, 0.0, 1.0).is_err());
    assert!(range_array_f(0.0f32, f32::NAN, 1.0).is_err());
    assert!(range_array_f(0.0f64, 1e-300, 1.0).is_err());
}

#[test]
fn extreme_ranges_do_not_overflow() {
    let a = mat();
    let r = range(i64::MAX, 1, 0);
    assert_eq!(get(&a, &[r, Sub::All], Mode::Checked), (vec![0, 4], vec![]));
    let r = range(1, i64::MAX, 2);
    assert_eq!(get(&a, &[r, Sub::At(0)], Mode::Checked), (vec![1], vec![10]));
    let r = range(i64::MIN, i64::MAX, i64::MAX);
    assert_eq!(get(&a, &[r, Sub::At(0)], Mode::Circular).0, vec![3]);
    let big = Sub::List(vec![i64::MIN, i64::MAX]);
    assert_eq!(get(&a, &[big.clone(), Sub::At(1)], Mode::Clamped).1, [1, 21]);
    assert_eq!(get(&a, &[big], Mode::Safe).1, [0, 0]);
}
