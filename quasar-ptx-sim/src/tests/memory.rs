//! Loads, stores, atomics, parameters and module variables; the memcheck
//! (PTX ISA §9.7.9.8-9, §9.7.13.5).

use super::{arg, eval_ext, module, run, REGS};
use crate::{Error, FaultKind, Globals, Launch, Options, Space};

/// An entry `k(out)` with `body` between the pointer load and `ret`.
fn kernel(params: &str, body: &str) -> String {
    format!(".visible .entry k({params})\n{{\n{REGS}{body}\n\tret;\n}}\n")
}

#[test]
fn predicated_off_accesses_do_not_touch_memory() {
    // Lane 0's address is far outside any buffer; its guard is false.
    let mut out = vec![7u64; 2];
    let (p, r) = arg(&mut out, "out");
    let m = module(&kernel(
        ".param .u64 k_out",
        "\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 1;\n\
         \tselp.b64 %rd2, 8, 1099511627776, %p1;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \t@%p1 st.global.u64 [%rd3], 5;\n\t@%p1 ld.global.u64 %rd4, [%rd3];\n\
         \t@!%p1 mov.u64 %rd4, 0;",
    ));
    run(&m, [1, 1, 1], [2, 1, 1], &[p], &[r], &Options::default()).unwrap();
    assert_eq!(out, [7, 5]);
}

#[test]
fn out_of_bounds_accesses_name_kernel_line_instruction_thread_and_address() {
    let mut out = vec![0u64; 4];
    let base = out.as_ptr() as u64;
    let (p, r) = arg(&mut out, "out");
    let m = module(&kernel(
        ".param .u64 k_out",
        "\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 8;\n\
         \tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u64 [%rd3], 1;",
    ));
    let e = run(&m, [1, 1, 1], [6, 1, 1], &[p], &[r], &Options::default()).unwrap_err();
    let Error::Fault(f) = e else { panic!("{e}") };
    // Line 16: 3 header lines, the entry and its brace, 6 `.reg` lines, then the body.
    assert_eq!((f.kernel.as_str(), f.line, f.thread), ("k", 16, [4, 0, 0]));
    assert_eq!(f.instruction, "st.global.u64 [%rd3], 1");
    let want = base + 32;
    assert!(
        matches!(f.kind, FaultKind::OutOfBounds { space: Space::Global, address, bytes: 8, .. } if address == want),
        "{f}"
    );
    let text = f.to_string();
    assert!(text.contains("out is [") && text.contains("offset 32"), "{text}");
}

#[test]
fn misaligned_and_shared_out_of_bounds_accesses_fault() {
    let mut out = vec![0u64; 4];
    let (p, r) = arg(&mut out, "out");
    let m = module(&kernel(
        ".param .u64 k_out",
        "\tld.param.u64 %rd1, [k_out];\n\tld.global.u32 %r1, [%rd1+2];",
    ));
    let e = run(&m, [1, 1, 1], [1, 1, 1], &[p], &[r], &Options::default());
    assert!(
        matches!(e, Err(Error::Fault(f)) if matches!(f.kind, FaultKind::Misaligned { bytes: 4, .. }))
    );
    let m = module(&kernel(
        "",
        "\t.shared .align 4 .b8 k_sh[16];\n\tmov.u64 %rd1, k_sh;\n\tst.shared.u32 [%rd1+16], 1;",
    ));
    let e = run(&m, [1, 1, 1], [1, 1, 1], &[], &[], &Options::default());
    assert!(
        matches!(e, Err(Error::Fault(f)) if matches!(f.kind, FaultKind::OutOfBounds { space: Space::Shared, address: 16, .. }))
    );
}

#[test]
fn narrow_loads_extend_and_narrow_stores_write_their_bytes() {
    let mut data = vec![0x0000_0000_0000_80FFu64, 0];
    let body = "\tld.global.s8 %r2, [%rd10];\n\tld.global.u8 %r3, [%rd10+1];\n\
                \tcvt.u64.u32 %rd20, %r2;\n\tcvt.u64.u32 %rd21, %r3;\n\tshl.b64 %rd21, %rd21, 32;\n\
                \tor.b64 %rd20, %rd20, %rd21;\n\tst.global.u8 [%rd11], %r2;";
    // %rd10 points to `data`, %rd11 to `data[1]`.
    let src = format!(
        ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{{\n{REGS}\
        \tld.param.u64 %rd10, [k_in];\n\tadd.s64 %rd11, %rd10, 8;\n{body}\n\
        \tld.param.u64 %rd2, [k_out];\n\tst.global.u64 [%rd2], %rd20;\n\tret;\n}}\n"
    );
    let m = module(&src);
    let mut out = vec![0u64];
    let ((pd, rd), (po, ro)) = (arg(&mut data, "data"), arg(&mut out, "out"));
    run(&m, [1, 1, 1], [1, 1, 1], &[pd, po], &[rd, ro], &Options::default()).unwrap();
    // ld.s8 of 0xFF sign-extends to 0xFFFFFFFF; ld.u8 of 0x80 zero-extends.
    assert_eq!(out[0], 0x0000_0080_FFFF_FFFF);
    assert_eq!(data[1], 0xFF, "st.u8 writes one byte");
}

#[test]
fn atomics_are_indivisible_across_blocks_and_threads() {
    let mut cnt = vec![0u64; 2];
    let (p, r) = arg(&mut cnt, "c");
    let m = module(&kernel(
        ".param .u64 k_c",
        "\tld.param.u64 %rd1, [k_c];\n\tatom.global.add.u32 %r1, [%rd1], 1;\n\
         \tatom.global.add.u64 %rd2, [%rd1+8], 3;",
    ));
    run(&m, [64, 2, 1], [256, 1, 1], &[p], &[r], &Options::default()).unwrap();
    assert_eq!(cnt, [64 * 2 * 256, 3 * 64 * 2 * 256]);
}

#[test]
fn atomic_operations_follow_the_isa_semantics() {
    // d = old; inc(r, s) = r >= s ? 0 : r + 1; dec(r, s) = (r == 0 || r > s) ? s : r - 1.
    let body =
        |op: &str| format!("\tatom.global.{op} %r13, [%rd10], %r11;\n\tcvt.u64.u32 %rd20, %r13;");
    let mut cell = vec![2u64];
    let (p, r) = arg(&mut cell, "cell");
    let addr = u64::from_le_bytes(p.try_into().unwrap());
    let ev =
        |b: &str, i: [u64; 3]| eval_ext(b, &[i], &Options::default(), std::slice::from_ref(&r)).0;
    let one = |op: &str| format!("\tcvt.u32.u64 %r11, %rd11;\n{}", body(op));
    let cur = |a: u64| {
        // SAFETY: `cell` is not accessed by a launch now.
        unsafe { *(a as *const u64) }
    };
    assert_eq!((ev(&one("inc.u32"), [addr, 2, 0])[0], cur(addr)), (2, 0));
    assert_eq!((ev(&one("dec.u32"), [addr, 5, 0])[0], cur(addr)), (0, 5));
    let m1 = u64::from(u32::MAX);
    assert_eq!((ev(&one("min.s32"), [addr, m1, 0])[0], cur(addr)), (5, m1));
    assert_eq!((ev(&one("max.u32"), [addr, 3, 0])[0], cur(addr)), (m1, m1));
    let cas = "\tcvt.u32.u64 %r11, %rd11;\n\tcvt.u32.u64 %r12, %rd12;\n\
               \tatom.global.cas.b32 %r13, [%rd10], %r11, %r12;\n\tcvt.u64.u32 %rd20, %r13;";
    assert_eq!(ev(cas, [addr, 1, 9]), [m1]);
    assert_eq!(cur(addr), m1, "no swap when the compare fails");
    assert_eq!(ev(cas, [addr, m1, 9]), [m1]);
    assert_eq!(cell[0], 9);
}

#[test]
fn float_atomic_add_flushes_subnormals_in_global_memory_only() {
    // "atom.add.f32 on global memory flushes subnormal inputs and results to sign-preserving
    // zero; atom.add.f32 on shared memory supports subnormal inputs and results."
    let mut cell = vec![0u64];
    let (p, r) = arg(&mut cell, "cell");
    let addr = u64::from_le_bytes(p.try_into().unwrap());
    let tiny = u64::from(f32::from_bits(1).to_bits());
    let g =
        "\tcvt.u32.u64 %r2, %rd11;\n\tmov.b32 %f1, %r2;\n\tatom.global.add.f32 %f2, [%rd10], %f1;";
    eval_ext(g, &[[addr, tiny, 0]], &Options::default(), &[r]);
    assert_eq!(cell[0], 0);
    let s = "\t.shared .align 4 .b8 k_sh[4];\n";
    let body = "\tcvt.u32.u64 %r2, %rd11;\n\tmov.b32 %f1, %r2;\n\tmov.u64 %rd5, k_sh;\n\
                \tst.shared.u32 [%rd5], 0;\n\tatom.shared.add.f32 %f2, [%rd5], %f1;\n\
                \tld.shared.u32 %r3, [%rd5];\n\tcvt.u64.u32 %rd20, %r3;";
    let src = format!(
        ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{{\n{REGS}{s}\
        \tld.param.u64 %rd1, [k_in];\n\tld.global.u64 %rd11, [%rd1];\n{body}\n\
        \tld.param.u64 %rd2, [k_out];\n\tst.global.u64 [%rd2], %rd20;\n\tret;\n}}\n"
    );
    let m = module(&src);
    let (mut input, mut out) = (vec![tiny], vec![0u64]);
    let ((pi, ri), (po, ro)) = (arg(&mut input, "in"), arg(&mut out, "out"));
    run(&m, [1, 1, 1], [1, 1, 1], &[pi, po], &[ri, ro], &Options::default()).unwrap();
    assert_eq!(out[0], 1);
}

#[test]
fn parameters_by_value_and_byte_arrays_are_checked_against_declarations() {
    let mut out = vec![0u64];
    let (p, r) = arg(&mut out, "out");
    let m = module(&kernel(
        ".param .u64 k_out, .param .align 4 .b8 k_v[12], .param .f32 k_s",
        "\tld.param.u64 %rd1, [k_out];\n\tld.param.f32 %f1, [k_v+8];\n\tld.param.f32 %f2, [k_s];\n\
         \tadd.f32 %f3, %f1, %f2;\n\tst.global.f32 [%rd1], %f3;",
    ));
    let v: Vec<u8> = [1f32, 2.0, 3.5].iter().flat_map(|x| x.to_le_bytes()).collect();
    let s = 0.25f32.to_le_bytes().to_vec();
    run(&m, [1, 1, 1], [1, 1, 1], &[p.clone(), v.clone(), s.clone()], &[r], &Options::default())
        .unwrap();
    assert_eq!(f32::from_bits(out[0] as u32), 3.75);
    let e =
        run(&m, [1, 1, 1], [1, 1, 1], &[p.clone(), v[..8].to_vec(), s], &[], &Options::default())
            .unwrap_err()
            .to_string();
    assert!(
        e.contains("`k_v` is declared `.param .align 4 .b8[12]` (12 bytes) but 8 bytes"),
        "{e}"
    );
    let e = run(&m, [1, 1, 1], [1, 1, 1], &[p], &[], &Options::default()).unwrap_err().to_string();
    assert!(e.contains("1 parameters given, the entry declares 3"), "{e}");
}

#[test]
fn module_variables_keep_their_values_between_launches() {
    let m = module(&format!(
        ".visible .global .align 4 .u32 quasar_error[4];\n{}",
        kernel("", "\tatom.global.cas.b32 %r1, [quasar_error], 0, 1;\n\tst.global.u32 [quasar_error+12], 42;")
    ));
    let g = Globals::new(&m);
    let l = Launch {
        entry: "k",
        grid: [2, 1, 1],
        block: [40, 1, 1],
        dynamic_shared: 0,
        params: &[],
        buffers: &[],
    };
    // SAFETY: no buffers.
    unsafe { m.launch(&g, &l, &Options::default()) }.unwrap();
    let w = g.read("quasar_error").unwrap();
    assert_eq!(w, [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0]);
    assert!(g.write("quasar_error", &[0; 16]));
    assert_eq!(g.read("quasar_error").unwrap(), [0; 16]);
    assert!(!g.write("quasar_error", &[0; 4]), "sizes must match");
}

/// `malloc` and `free` as CUDA declares them (what the Quasar back end emits for dynamic
/// kernel memory).
const HEAP_DECLS: &str = ".extern .func (.param .b64 func_retval0) malloc\n(\n\t.param .b64 \
                          malloc_param_0\n)\n;\n.extern .func free\n(\n\t.param .b64 \
                          free_param_0\n)\n;\n";

#[test]
fn malloc_gives_each_thread_its_own_memory_and_a_full_heap_gives_null() {
    // Each thread allocates 24 bytes, stores its id there, reads it back through the
    // pointer, and writes the value and whether the pointer was 16-byte aligned.
    let body = "\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n\tmov.u64 %rd2, 24;\n\
                \t{\n\t.param .b64 hp0;\n\tst.param.b64 [hp0], %rd2;\n\t.param .b64 hr0;\n\
                \tcall.uni (hr0), malloc, (hp0);\n\tld.param.b64 %rd3, [hr0];\n\t}\n\
                \tcvt.u64.u32 %rd4, %r1;\n\tst.global.u64 [%rd3+8], %rd4;\n\
                \tld.global.u64 %rd5, [%rd3+8];\n\tand.b64 %rd6, %rd3, 15;\n\
                \tmul.wide.u32 %rd7, %r1, 16;\n\tadd.s64 %rd8, %rd1, %rd7;\n\
                \tst.global.u64 [%rd8], %rd5;\n\tst.global.u64 [%rd8+8], %rd6;\n\
                \t{\n\t.param .b64 hp1;\n\tst.param.b64 [hp1], %rd3;\n\
                \tcall.uni free, (hp1);\n\t}";
    let src = format!("{HEAP_DECLS}{}", kernel(".param .u64 k_out", body));
    let m = module(&src);
    let mut out = vec![u64::MAX; 64];
    let (p, r) = arg(&mut out, "out");
    let (ps, rs) = (std::slice::from_ref(&p), std::slice::from_ref(&r));
    run(&m, [1, 1, 1], [32, 1, 1], ps, rs, &Options::default()).unwrap();
    for t in 0..32 {
        assert_eq!((out[2 * t], out[2 * t + 1]), (t as u64, 0), "thread {t}");
    }
    // A heap of 256 bytes holds 8 allocations of 32: the other threads get null, and their
    // store through it is a fault naming the address 8.
    let small = Options { heap_bytes: 256, ..Options::default() };
    let e = run(&m, [1, 1, 1], [32, 1, 1], &[p], &[r], &small).unwrap_err();
    assert!(
        matches!(&e, Error::Fault(f) if matches!(f.kind, FaultKind::OutOfBounds { address: 8, .. })),
        "{e}"
    );
}
