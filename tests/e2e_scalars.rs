//! End to end: host functions over numbers (ints, scalars, complex), control flow, multiple
//! results, optional parameters and calls between functions, each compared with plain Rust.

mod q {
    quasar::quasar! { r#"
function y = poly(x : scalar)
    y = 2 * x^2 + 3 * x - 1
endfunction

function [q, r] = divmod(a : int, b : int)
    q = int(floor(a / b))
    r = mod(a, b)
endfunction

function n = collatz_steps(start : int)
    n = 0
    k = start
    while k != 1
        if mod(k, 2) == 0
            k = int(k / 2)
        else
            k = 3 * k + 1
        endif
        n += 1
    endwhile
endfunction

function s = sum_odd(n : int)
    s = 0
    for i = 0..n
        if mod(i, 2) == 0
            continue
        endif
        if i > 50
            break
        endif
        s += i
    endfor
endfunction

function y = blend(a : scalar, b : scalar, w : scalar = 0.25)
    y = (1 - w) * a + w * b
endfunction

function y = use_blend(a : scalar, b : scalar)
    y = blend(a, b) + blend(a, b, 0.5)
endfunction

function c = classify(x : int)
    match x with
    | 0 ->
        c = 10
    | (1, 2) ->
        c = 20
    | _ ->
        c = 30
    endmatch
endfunction

function y = countdown(n : int)
    y = 0
    repeat
        y += n
        n -= 1
    until n <= 0
endfunction

function z = cmul(a : cscalar, b : cscalar)
    z = a * b
endfunction

function y = checked_sqrt(x : scalar)
    if x < 0
        error "negative input: ", x
    endif
    y = sqrt(x)
endfunction

function y = sign_of(x : scalar)
    y = x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0)
endfunction
"# }
}

#[test]
fn arithmetic_matches_rust() {
    for x in [-2.0f32, -0.5, 0.0, 1.5, 3.0] {
        assert_eq!(q::poly(x).unwrap(), 2.0 * x * x + 3.0 * x - 1.0);
    }
}

#[test]
fn multiple_results_and_integer_semantics() {
    assert_eq!(q::divmod(17, 5).unwrap(), (3, 2));
    // Quasar's mod has the sign of the divisor; a / b on ints is a scalar, floored here.
    assert_eq!(q::divmod(-7, 2).unwrap(), (-4, 1));
}

#[test]
fn while_loops_and_if() {
    fn steps(mut k: i32) -> i32 {
        let mut n = 0;
        while k != 1 {
            k = if k % 2 == 0 { k / 2 } else { 3 * k + 1 };
            n += 1;
        }
        n
    }
    for s in [1, 6, 7, 27] {
        assert_eq!(q::collatz_steps(s).unwrap(), steps(s));
    }
}

#[test]
fn for_with_break_and_continue() {
    let expect: i32 = (0..=100).filter(|i| i % 2 == 1).take_while(|i| *i <= 50).sum();
    assert_eq!(q::sum_odd(100).unwrap(), expect);
    assert_eq!(q::sum_odd(0).unwrap(), 0);
}

#[test]
fn optional_parameters() {
    let (a, b) = (1.0f32, 3.0f32);
    let expect = (0.75 * a + 0.25 * b) + (0.5 * a + 0.5 * b);
    assert!((q::use_blend(a, b).unwrap() - expect).abs() < 1e-6);
    assert_eq!(q::blend(a, b, 0.5).unwrap(), 2.0);
}

#[test]
fn match_and_repeat() {
    assert_eq!(q::classify(0).unwrap(), 10);
    assert_eq!(q::classify(2).unwrap(), 20);
    assert_eq!(q::classify(7).unwrap(), 30);
    assert_eq!(q::countdown(4).unwrap(), 4 + 3 + 2 + 1);
    assert_eq!(q::countdown(0).unwrap(), 0);
}

#[test]
fn complex_numbers() {
    use quasar::__rt::run::Complex;
    let z = q::cmul(Complex::new(1.0, 2.0), Complex::new(3.0, -1.0)).unwrap();
    assert_eq!(z, Complex::new(5.0, 5.0));
}

#[test]
fn errors_are_results_with_the_quasar_location() {
    assert_eq!(q::checked_sqrt(4.0).unwrap(), 2.0);
    let e = q::checked_sqrt(-1.0).unwrap_err().to_string();
    assert!(e.contains("negative input: -1"), "{e}");
    // The inline block's lines are the .rs file's.
    assert!(e.contains("tests/e2e_scalars.rs:74:9"), "{e}");
}

#[test]
fn ternary() {
    assert_eq!(q::sign_of(2.5).unwrap(), 1.0);
    assert_eq!(q::sign_of(-2.5).unwrap(), -1.0);
    assert_eq!(q::sign_of(0.0).unwrap(), 0.0);
}
