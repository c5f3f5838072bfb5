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
