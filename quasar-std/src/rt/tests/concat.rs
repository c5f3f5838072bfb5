use crate::rt::*;
use quasar_runtime::{Array, Error};

fn arr(shape: &[usize], v: Vec<i32>) -> Array<i32> {
    Array::from_vec(shape, v).unwrap()
}

fn parts(r: &Array<i32>) -> (Vec<usize>, Vec<i32>) {
    (r.shape().to_vec(), r.to_vec().unwrap())
}

#[test]
fn vectors_and_numbers() {
    let a = arr(&[4], vec![1, 2, 3, 4]);
    let b = arr(&[3], vec![6, 7, 8]);
    // [...a, 4, ...b]
    let c = cat(0, &[Part::Array(&a), Part::Value(4), Part::Array(&b)]).unwrap();
    assert_eq!(parts(&c), (vec![8], vec![1, 2, 3, 4, 4, 6, 7, 8]));
    let n = cat(0, &[Part::Value(1), Part::Value(2)]).unwrap();
    assert_eq!(parts(&n), (vec![2], vec![1, 2]));
    let self_cat = cat(0, &[Part::Array(&a), Part::Array(&a)]).unwrap();
    assert_eq!(self_cat.numel(), 8);
}

#[test]
fn matrices_along_rows_and_columns() {
    let m = arr(&[2, 2], vec![1, 2, 3, 4]);
    let col = arr(&[2, 1], vec![5, 6]);
    let r = cat(1, &[Part::Array(&m), Part::Array(&col)]).unwrap();
    assert_eq!(parts(&r), (vec![2, 3], vec![1, 2, 5, 3, 4, 6]));
    // A vector of shape [2] is a 2x1 column (trailing singleton dimensions).
    let v = arr(&[2], vec![7, 8]);
    let r = cat(1, &[Part::Array(&v), Part::Array(&m)]).unwrap();
    assert_eq!(parts(&r), (vec![2, 3], vec![7, 1, 2, 8, 3, 4]));
    let row = arr(&[1, 2], vec![9, 9]);
    let r = cat(0, &[Part::Array(&m), Part::Array(&row)]).unwrap();
    assert_eq!(parts(&r), (vec![3, 2], vec![1, 2, 3, 4, 9, 9]));
    // Along a new third dimension.
    let r = cat(2, &[Part::Array(&m), Part::Array(&m)]).unwrap();
    assert_eq!(parts(&r), (vec![2, 2, 2], vec![1, 1, 2, 2, 3, 3, 4, 4]));
}

#[test]
fn empty_parts_and_mismatches() {
    let empty = Array::<i32>::zeros(&[0]).unwrap();
    let r = cat(0, &[Part::Array(&empty), Part::Value(5)]).unwrap();
    assert_eq!(parts(&r), (vec![1], vec![5]));
    let z = Array::<i32>::zeros(&[0, 3]).unwrap();
    assert_eq!(cat(0, &[Part::Array(&z)]).unwrap().shape(), &[0, 3]);
    assert_eq!(cat::<i32>(0, &[]).unwrap().shape(), &[0]);
    let m = arr(&[2, 2], vec![1, 2, 3, 4]);
    let row = arr(&[1, 3], vec![1, 2, 3]);
    let e = cat(0, &[Part::Array(&m), Part::Array(&row)]).unwrap_err();
    assert!(matches!(&e, Error::ShapeMismatch { operation, .. } if operation == "matrix literal"));
    assert_eq!(e.to_string(), "shape mismatch in matrix literal: [2, 2] vs [1, 3]");
    assert!(cat(1, &[Part::Array(&m), Part::Value(1)]).is_err());
    assert!(cat(16, &[Part::Value(1)]).is_err());
}

#[test]
fn stacking_rows() {
    let rows = [arr(&[2], vec![1, 2]), arr(&[2], vec![3, 4])];
    assert_eq!(parts(&stack_rows(&rows).unwrap()), (vec![2, 2], vec![1, 2, 3, 4]));
    let planes = [stack_rows(&rows).unwrap(), stack_rows(&rows).unwrap()];
    assert_eq!(stack_rows(&planes).unwrap().shape(), &[2, 2, 2]);
    let bad = [arr(&[2], vec![1, 2]), arr(&[3], vec![3, 4, 5])];
    let e = stack_rows(&bad).unwrap_err();
    assert!(e.to_string().contains("matrix literal"), "{e}");
    let loose = [arr(&[2], vec![1, 2]), arr(&[2, 1], vec![3, 4])];
    assert_eq!(stack_rows(&loose).unwrap().shape(), &[2, 2]);
    assert_eq!(stack_rows::<i32>(&[]).unwrap().shape(), &[0]);
}
