//! End to end: dynamic values (`object()`, `??`, cell arrays, dynamic classes, strings) in
//! generated host code, through `quasar::Value`, checked against Rust; a value of the wrong
//! type is a run-time error that names the types and the Quasar line.

use quasar::Array;

mod k {
    quasar::quasar!(file = "tests/common/dynamic.q");
}

#[test]
fn object_fields_are_added_at_run_time_and_passed_to_a_kernel() {
    let x = Array::from_vec(&[1, 5], vec![0.0f32, 1.0, 2.0, 3.0, 4.0]).unwrap();
    let y = k::object_parameters(&x, 1.5).unwrap().to_vec().unwrap();
    // update_curve: b = (2^1.5 - 0.5) / 0.25, c = 2 b.
    let b = (2.0f64.powf(1.5) - 0.5) / 0.25;
    let c = (2.0 * b) as f32;
    for (i, v) in y.iter().enumerate() {
        let want = 1.5 * i as f32 + c;
        assert!((v - want).abs() <= 1e-4 * want.abs().max(1.0), "{v} vs {want}");
    }
}

#[test]
fn an_object_holds_numbers_strings_and_arrays() {
    assert_eq!(k::object_of_mixed_fields(4).unwrap(), 5.0 * 100.0 + 6.0 + 3.0);
}

#[test]
fn dynamic_parameters_take_the_argument_type_at_run_time() {
    assert_eq!(k::dynamic_parameters(1.25, 3).unwrap(), 2.5 + 6.0);
}

#[test]
fn cell_arrays_hold_values_of_different_types() {
    assert_eq!(k::cell_arrays(0.5).unwrap(), 0.5 + 6.0 + 3.0);
    assert_eq!(k::cell_literal(0.5).unwrap(), 0.5 + 3.0 + 3.0);
    assert_eq!(k::typed_cells(3).unwrap(), 4.0 + 18.0);
}

#[test]
fn a_dynamic_class_takes_new_fields() {
    assert_eq!(k::dynamic_class_fields(2.0).unwrap(), 6.0);
}

#[test]
fn a_value_of_the_wrong_type_is_an_error_with_the_line() {
    let e = k::wrong_type_read(1.0).unwrap_err().to_string();
    assert!(e.contains("expected a value of type scalar, found string"), "{e}");
    assert!(e.contains("dynamic.q:"), "{e}");
    let e = k::missing_field().unwrap_err().to_string();
    assert!(e.contains("no field `b`") && e.contains("its fields: a"), "{e}");
}

#[test]
fn strings_concatenate_and_compare() {
    assert_eq!(k::string_operations("ab").unwrap(), 11);
    assert_eq!(k::string_operations("zz").unwrap(), 10);
}

#[test]
fn cell_slices_and_the_shape_of_dynamic_values() {
    let (n, s, last) = k::cell_slices(0).unwrap();
    // c[1..3] has 3 elements, c[4..-2..0] 3 (4, 2, 0), c[:] 5.
    assert_eq!(n, 300 + 30 + 5);
    assert_eq!(s, "twofive");
    assert_eq!(last, 1.0);
    // A 3x4 cell: 2 dimensions, 3 rows, 4 columns, 12 elements; size(c)[1] = 4.
    assert_eq!(k::shape_of_cell(3, 4).unwrap(), 400000 + 2000 + 300 + 40 + 12);
    assert_eq!(k::shape_of_array(2, 5).unwrap(), 2000 + 200 + 50 + 10);
}

#[test]
fn slicing_a_dynamic_value_that_is_not_a_cell_is_a_run_time_error() {
    let e = k::bad_slice_of_number(3).unwrap_err().to_string();
    assert!(e.contains("slices of dynamic values are taken of cell arrays only"), "{e}");
    assert!(e.contains("dynamic.q:"), "{e}");
}

#[test]
fn the_manuals_cell_matrices_copy_deeply_and_combine_element_by_element() {
    let t = 1.5f32;
    let (a, b, c, d) = k::manual_cells(t).unwrap();
    // C = B - A: B's own [1,1] (3t) minus A's (t); the inner arrays differ only where A was
    // changed after the copy ([1,1]: 1 in B, 5 in A).
    assert_eq!(a, 3.0 * t - t);
    assert_eq!(b, 1.0 - 5.0);
    // D = B * 4: eye(4)[0,0] * 4 and 3t * 4.
    assert_eq!(c, 4.0 + 4.0 * 3.0 * t);
    assert_eq!(d, 4);
}
