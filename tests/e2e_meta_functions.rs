//! End to end: the meta functions answered when compiling (manual §8.6, §17.2.6). Run on
//! the CPU and, in .ci/run, with every launch on interpreted PTX (where `$target("gpu")`
//! holds inside the kernel).

mod m {
    quasar::quasar!(file = "tests/common/meta_functions.q");
}

#[test]
fn str_gives_the_expression_text_and_eval_its_value() {
    assert_eq!(m::expression_text().unwrap(), "(x + y) * (3 * x) ^ 99");
    assert_eq!(m::folded().unwrap(), 6.5);
}

#[test]
fn target_is_answered_by_the_back_end_that_compiles_the_code() {
    assert_eq!(m::host_target().unwrap(), 1, "host code runs on the CPU");
    let y = m::which_target(40).unwrap().to_vec().unwrap();
    let on_gpu = std::env::var("QUASAR_SIM_GPU").is_ok()
        && std::env::var("QUASAR_DEVICE").is_ok_and(|d| d == "gpu");
    let want = if on_gpu { 1.0 } else { 2.0 };
    assert!(y.iter().all(|v| *v == want), "{y:?}");
}

#[test]
fn check_decides_conditions_from_the_assertions_before_it() {
    let (s1, s2, s3, s4, s5) = m::checked_equalities().unwrap();
    assert_eq!([s1.as_str(), &s2, &s3, &s4], ["Unsatisfiable", "Valid", "Valid", "Unsatisfiable"]);
    assert_eq!(s5, "(a==4)");
    let (s1, s2, s3, s4) = m::checked_inequalities().unwrap();
    assert_eq!([s1.as_str(), &s2, &s3], ["Valid", "Satisfiable", "Unsatisfiable"]);
    assert_eq!(s4, "(a>2) && (a<4)");
}

#[test]
fn assertions_end_with_their_block_and_with_an_assignment() {
    let (s1, s2, s3, s4, y) = m::checked_values(25.0).unwrap();
    assert_eq!([s1.as_str(), &s2, &s3, &s4], ["Valid", "Valid", "Satisfiable", "Satisfiable"]);
    assert_eq!(y, 25.0);
    let (_, s2, ..) = m::checked_values(15.0).unwrap();
    assert_eq!(s2, "none");
    assert!(m::checked_values(5.0).is_err(), "the assertion x > 10 still runs");
}

#[test]
fn subs_copies_the_assumptions_of_one_variable_to_another() {
    assert_eq!(m::copied_assumptions().unwrap(), "type(b,\"int\") && (0<=b) && (b<1)");
}

#[test]
fn getsafe_reads_zero_outside_the_array() {
    let x: Vec<f32> = (0..37).map(|i| (i % 7) as f32 - 2.5).collect();
    let arr = quasar::Array::from_vec(&[x.len()], x.clone()).unwrap();
    let s = m::safe_sums(&arr).unwrap().to_vec().unwrap();
    let (sum, squares): (f32, f32) = (x.iter().sum(), x.iter().map(|v| v * v).sum());
    assert!((s[0] - sum).abs() < 1e-3 && (s[1] - squares).abs() < 1e-3, "{s:?}");
}

#[test]
fn getsafe_on_the_host_reads_an_array_declared_safe() {
    assert_eq!(m::safe_host_read(1).unwrap(), 2.5);
    assert_eq!(m::safe_host_read(7).unwrap(), 0.0);
    assert_eq!(m::safe_host_read(-1).unwrap(), 0.0);
}
