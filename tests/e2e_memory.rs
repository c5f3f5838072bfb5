//! End to end: Quasar code that asks for more memory than there is gets `Err(OutOfMemory)`,
//! never an abort of the host process; a kernel that panics in its Rust code is an `Err` too.
//! The host memory budget is process-wide, so this file holds one test.

mod q {
    quasar::quasar! { r#"
function y = big(m : int, n : int)
    y = zeros(m, n)
endfunction

function y = twice(x : mat)
    y = x .* 2
endfunction

function y = total(x : mat)
    y = sum(x)
endfunction
"# }
}

fn oom(e: &quasar::Error) -> Option<usize> {
    match e {
        quasar::Error::OutOfMemory { bytes, device, .. } if device == "host" => Some(*bytes),
        _ => None,
    }
}

#[test]
fn huge_arrays_are_errors_not_aborts() {
    // 2^30 x 2^30 scalars: 2^62 bytes, more than any allocator can give (this aborted the
    // process with SIGABRT before).
    let e = q::big(1 << 30, 1 << 30).unwrap_err();
    assert_eq!(oom(&e), Some(1 << 62), "{e}");

    // zeros(100000, 100000) is 40 GB: with a 64 MiB budget it is refused, whatever the machine.
    quasar::set_host_memory_limit(Some(64 << 20));
    let e = q::big(100_000, 100_000).unwrap_err();
    assert_eq!(oom(&e), Some(40_000_000_000), "{e}");
    // Within the budget, everything works; a result that does not fit is an error too. The
    // budget grows by 1 KiB for the small host arrays of the launches: `x .* 2` is a generated
    // kernel (the kernel generator), whose launch dimensions are an `ivec2`.
    quasar::set_host_memory_limit(Some((64 << 20) + 1024));
    let x = q::big(2048, 2048).unwrap(); // 16 MiB
    let y = q::twice(&x).unwrap();
    assert_eq!(q::total(&y).unwrap(), 0.0);
    let z = q::twice(&y).unwrap();
    let w = q::twice(&z).unwrap(); // 64 MiB in four arrays: a fifth does not fit
    let e = q::twice(&w).unwrap_err();
    assert_eq!(oom(&e), Some(16 << 20), "{e}");
    quasar::set_host_memory_limit(None);
}
