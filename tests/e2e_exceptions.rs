//! End to end: exceptions (manual §4.13) and errors raised in kernels (§5.1): `error`,
//! `try`/`catch` with the message, nested handlers that raise again, failures caught inside a
//! loop, and an error raised in a device function that a kernel calls, caught around the
//! launch or reaching Rust as `Err` with the kernel and the Quasar line. CI also runs this file
//! with every launch on the interpreted PTX device (`QUASAR_SIM_GPU=ptx QUASAR_DEVICE=gpu`).

use quasar::Array;

mod ex {
    quasar::quasar!(file = "tests/common/exceptions.q");
}

const SOURCE: &str = include_str!("common/exceptions.q");

fn vecf(v: &[f32]) -> Array<f32> {
    Array::from_vec(&[v.len()], v.to_vec()).unwrap()
}

/// The 1-based line of the source that contains `text`.
fn line_of(text: &str) -> usize {
    SOURCE.lines().position(|l| l.contains(text)).expect("the line is in the source") + 1
}

#[test]
fn the_manuals_handler_receives_the_message() {
    assert!(ex::sigh().unwrap().contains("Fail again"));
}

#[test]
fn a_qexception_catch_variable_parameter_and_message() {
    let (text, again) = ex::typed_catch(-1.0).unwrap();
    // The message as a `catch` receives it: the Quasar line that raised it, then the text.
    let line = line_of("error \"the log of a number that is not positive\"");
    let want = "the log of a number that is not positive";
    assert!(text.starts_with("caught: ") && text.ends_with(want), "{text}");
    assert!(text.contains(&format!("exceptions.q:{line}:")), "the line {line}: {text}");
    assert_eq!(again, format!("{}!", &text["caught: ".len()..]));
    let (text, again) = ex::typed_catch(2.0).unwrap();
    assert_eq!((text.as_str(), again.as_str()), ("no error", ""));
}

#[test]
fn a_handler_that_raises_again_reaches_the_outer_handler() {
    let (trace, msg) = ex::nested(2.0).unwrap();
    assert_eq!((trace, msg.as_str()), (11, ""), "no error: both blocks ran to their end");
    for x in [0.0f32, -3.0] {
        let (trace, msg) = ex::nested(x).unwrap();
        assert_eq!(trace, 102, "inner handler (2), then the outer one (+100), not the +10");
        assert!(msg.contains("the log of a number that is not positive"), "{msg}");
    }
}

#[test]
fn failures_inside_a_loop_are_caught_one_by_one() {
    let v = [1.0f32, -1.0, 2.5, 0.0, 4.0, -7.0];
    let (count, total) = ex::count_failures(&vecf(&v)).unwrap();
    let want_count = v.iter().filter(|x| **x <= 0.0).count() as i32;
    let want_total: f32 = v.iter().filter(|x| **x > 0.0).map(|x| x.ln()).sum();
    assert_eq!(count, want_count);
    assert!((total - want_total).abs() < 1e-5, "{total} vs {want_total}");
}

#[test]
fn an_error_in_a_device_function_is_caught_around_the_launch() {
    let a = [4.0f32, 9.0, 0.25];
    let (b, ok, msg) = ex::all_roots(&vecf(&a)).unwrap();
    assert_eq!((ok, msg.as_str()), (1, ""));
    let want: Vec<f32> = a.iter().map(|x| x.sqrt()).collect();
    assert_eq!(b.to_vec().unwrap(), want);
    let (_, ok, msg) = ex::all_roots(&vecf(&[4.0, -9.0, 0.25])).unwrap();
    assert_eq!(ok, 0);
    assert!(msg.contains("the square root of a negative element"), "{msg}");
}

#[test]
fn an_uncaught_kernel_error_is_an_err_naming_the_kernel_and_line() {
    let e = ex::roots_unguarded(&vecf(&[1.0, -1.0])).unwrap_err().to_string();
    let line = line_of("error \"the square root of a negative element\"");
    assert!(e.contains(&format!("exceptions.q:{line}:")), "the Quasar line {line}: {e}");
    assert!(e.contains("`roots`"), "the kernel: {e}");
    assert!(e.contains("the square root of a negative element"), "{e}");
    // Only the failing launch fails.
    let b = ex::roots_unguarded(&vecf(&[1.0, 16.0])).unwrap().to_vec().unwrap();
    assert_eq!(b, vec![1.0, 4.0]);
}
