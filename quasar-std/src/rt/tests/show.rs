use crate::rt::*;
use quasar_runtime::{f16, Array, Complex};

fn s<T: Show + ?Sized>(x: &T) -> String {
    let mut out = String::new();
    x.show(&mut out);
    out
}

#[test]
fn numbers() {
    assert_eq!((s(&3i32), s(&-7i64), s(&255u8)), ("3".into(), "-7".into(), "255".into()));
    assert_eq!(
        (s(&1.5f32), s(&-0.25f64), s(&3.0f32), s(&0.5f64)),
        ("1.5".into(), "-0.25".into(), "3".into(), "0.5".into())
    );
    assert_eq!(
        (s(&0.1f32), s(&0.1f64), s(&(1.0f32 / 3.0))),
        ("0.1".into(), "0.1".into(), "0.33333334".into())
    );
    assert_eq!(
        (s(&1e20f32), s(&2.5e-7f64), s(&123456.0f64)),
        ("1e20".into(), "2.5e-7".into(), "123456".into())
    );
    assert_eq!(
        (s(&f32::NAN), s(&f64::INFINITY), s(&f32::NEG_INFINITY)),
        ("NaN".into(), "Inf".into(), "-Inf".into())
    );
    assert_eq!((s(&f16::from_f32(0.1)), s(&f16::from_f32(2.0))), ("0.1".into(), "2".into()));
    assert_eq!((s(&true), s(&false)), ("1".into(), "0".into()));
}

#[test]
fn complex_numbers() {
    assert_eq!(s(&Complex::new(1.0f32, 2.0)), "1+2i");
    assert_eq!(s(&Complex::new(1.0f64, -2.0)), "1-2i");
    assert_eq!(s(&Complex::new(-0.5f32, 0.0)), "-0.5+0i");
    assert_eq!(s(&Complex::new(0.0f64, f64::NAN)), "0+NaNi");
}

#[test]
fn arrays_and_vectors() {
    let v = Array::from_vec(&[3], vec![1, 2, 3]).unwrap();
    assert_eq!(s(&v), "[1,2,3]");
    let m = Array::from_vec(&[2, 2], vec![1, 2, 3, 4]).unwrap();
    assert_eq!(s(&m), "[[1,2],[3,4]]");
    let c = Array::from_fn(&[2, 1, 2], |i| i as f32 * 0.5).unwrap();
    assert_eq!(s(&c), "[[[0,0.5]],[[1,1.5]]]");
    assert_eq!(s(&Array::<i32>::zeros(&[0]).unwrap()), "[]");
    assert_eq!(s(&Array::<i32>::zeros(&[2, 0]).unwrap()), "[[],[]]");
    assert_eq!(s(&Array::from_vec(&[], vec![7i32]).unwrap()), "7");
    assert_eq!(s(&[1.5f32, -2.0, 3.25]), "[1.5,-2,3.25]");
    assert_eq!(s(&vec![2i32, 3]), "[2,3]");
    let vecs = Array::from_vec(&[2], vec![[1i32, 2], [3, 4]]).unwrap();
    assert_eq!(s(&vecs), "[[1,2],[3,4]]");
    let busy = Array::<f32>::zeros(&[2]).unwrap();
    let _w = busy.host_view_mut().unwrap();
    assert!(s(&busy).starts_with("<array unavailable: "), "{}", s(&busy));
}

#[test]
fn fixed_shapes_and_parts() {
    let mut out = String::new();
    show_fixed(&[1, 2, 3, 4, 5, 6], &[2, 3], &mut out);
    assert_eq!(out, "[[1,2,3],[4,5,6]]");
    out.clear();
    show_fixed(&[1, 2, 3], &[2, 2], &mut out); // mismatch: flat
    assert_eq!(out, "[1,2,3]");
    let x = Array::from_vec(&[2], vec![0.5f32, 1.0]).unwrap();
    let name = String::from("x");
    let text = format_parts(&[&"value of ", &name, &" = ", &x, &", n = ", &2i32]);
    assert_eq!(text, "value of x = [0.5,1], n = 2");
    print_line(&[&"print_line works: ", &Complex::new(1.0f32, -1.0)]);
}
