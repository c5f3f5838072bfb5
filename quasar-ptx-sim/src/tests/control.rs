//! Control flow, reconvergence, special registers and `bar.sync` (PTX ISA §9.7.12, §9.7.13.1).

use super::{arg, module, run, REGS};
use crate::{Error, FaultKind, Options};

/// An entry `k(out)` whose threads store `%r20` to `out[linear thread id]`; `body` runs after
/// `%r1` (`%tid.x`) and `%rd5` (the address of the thread's output word) are set.
fn per_thread(body: &str, shared: &str) -> String {
    format!(
        ".visible .entry k(.param .u64 k_out)\n{{\n{REGS}{shared}\tld.param.u64 %rd1, [k_out];\n\
         \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\
         \tmad.lo.u32 %r4, %r2, %r3, %r1;\n\tmul.wide.u32 %rd2, %r4, 8;\n\tadd.s64 %rd5, %rd1, %rd2;\n\
         \tmov.u32 %r20, 0;\n{body}\n\tcvt.u64.u32 %rd20, %r20;\n\tst.global.u64 [%rd5], %rd20;\n\tret;\n}}\n"
    )
}

fn launch(src: &str, grid: u32, block: u32) -> Result<Vec<u64>, Error> {
    let m = module(src);
    let mut out = vec![u64::MAX; (grid * block) as usize];
    let (p, r) = arg(&mut out, "out");
    run(&m, [grid, 1, 1], [block, 1, 1], &[p], &[r], &Options::default())?;
    Ok(out)
}

#[test]
fn divergent_branches_reconverge() {
    // Odd lanes take the branch; each side records the active mask, then the joined one.
    let body = "\tand.b32 %r5, %r1, 1;\n\tsetp.eq.u32 %p1, %r5, 1;\n\t@%p1 bra $L_odd;\n\
                \tactivemask.b32 %r6;\n\tbra.uni $L_join;\n$L_odd:\n\tactivemask.b32 %r6;\n\
                $L_join:\n\tactivemask.b32 %r7;\n\tsetp.eq.u32 %p2, %r7, -1;\n\
                \tselp.u32 %r20, %r6, 0, %p2;";
    let out = launch(&per_thread(body, ""), 1, 32).unwrap();
    for (t, v) in out.iter().enumerate() {
        assert_eq!(*v, if t % 2 == 1 { 0xAAAA_AAAA } else { 0x5555_5555 }, "thread {t}");
    }
}

#[test]
fn loops_with_lane_dependent_trip_counts_reconverge_after_the_loop() {
    // r20 = 0 + 1 + … + (tid - 1), then the mask after the loop must be full.
    let body = "\tmov.u32 %r5, 0;\n$L_head:\n\tsetp.ge.u32 %p1, %r5, %r1;\n\t@%p1 bra $L_done;\n\
                \tadd.u32 %r20, %r20, %r5;\n\tadd.u32 %r5, %r5, 1;\n\tbra.uni $L_head;\n$L_done:\n\
                \tactivemask.b32 %r7;\n\tsetp.ne.u32 %p2, %r7, -1;\n\t@%p2 mov.u32 %r20, 999999;";
    let out = launch(&per_thread(body, ""), 2, 40).unwrap();
    for (i, v) in out.iter().enumerate() {
        let t = (i % 40) as u64;
        // The second warp of each block has 8 lanes: its full mask is 0xFF.
        let full = i % 40 < 32;
        if full {
            assert_eq!(*v, t * t.saturating_sub(1) / 2, "thread {i}");
        }
    }
}

#[test]
fn a_divergent_uniform_branch_is_a_fault() {
    let body = "\tsetp.lt.u32 %p1, %r1, 3;\n\t@%p1 bra.uni $L_x;\n\tmov.u32 %r20, 1;\n$L_x:\n\tmov.u32 %r21, 2;";
    let e = launch(&per_thread(body, ""), 1, 32).unwrap_err();
    assert!(matches!(&e, Error::Fault(f) if f.kind == FaultKind::DivergentUniformBranch), "{e}");
}

#[test]
fn lanes_that_return_early_leave_the_active_mask() {
    let body = "\tsetp.ge.u32 %p1, %r1, 20;\n\t@%p1 bra $L_end;\n\tactivemask.b32 %r20;\n$L_end:";
    let out = launch(&per_thread(body, ""), 1, 32).unwrap();
    assert_eq!(out[0], 0x000F_FFFF);
    assert_eq!(out[25], 0);
}

#[test]
fn special_registers_in_three_dimensions() {
    // out[linear global id] = packed (tid, ctaid) checked against the launch below.
    let src = format!(
        ".visible .entry k(.param .u64 k_out)\n{{\n{REGS}\tld.param.u64 %rd1, [k_out];\n\
         \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %tid.y;\n\tmov.u32 %r3, %tid.z;\n\
         \tmov.u32 %r4, %ntid.x;\n\tmov.u32 %r5, %ntid.y;\n\tmov.u32 %r6, %ntid.z;\n\
         \tmov.u32 %r7, %ctaid.x;\n\tmov.u32 %r8, %ctaid.y;\n\tmov.u32 %r9, %ctaid.z;\n\
         \tmov.u32 %r10, %nctaid.x;\n\tmov.u32 %r11, %nctaid.y;\n\tmov.u32 %r12, %laneid;\n\
         \tmad.lo.u32 %r13, %r9, %r11, %r8;\n\tmad.lo.u32 %r13, %r13, %r10, %r7;\n\
         \tmul.lo.u32 %r14, %r4, %r5;\n\tmul.lo.u32 %r14, %r14, %r6;\n\
         \tmad.lo.u32 %r15, %r3, %r5, %r2;\n\tmad.lo.u32 %r15, %r15, %r4, %r1;\n\
         \tmad.lo.u32 %r16, %r13, %r14, %r15;\n\tmul.wide.u32 %rd2, %r16, 8;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \tshl.b32 %r17, %r12, 16;\n\tmad.lo.u32 %r17, %r13, 256, %r17;\n\tadd.u32 %r17, %r17, %r15;\n\
         \tcvt.u64.u32 %rd4, %r17;\n\tst.global.u64 [%rd3], %rd4;\n\tret;\n}}\n"
    );
    let m = module(&src);
    let (grid, block) = ([2u32, 3, 2], [4u32, 2, 3]);
    let n = (12 * 24) as usize;
    let mut out = vec![u64::MAX; n];
    let (p, r) = arg(&mut out, "out");
    run(&m, grid, block, &[p], &[r], &Options::default()).unwrap();
    for (g, v) in out.iter().enumerate() {
        let (b, t) = (g / 24, g % 24);
        // Lanes are consecutive linear thread ids: x fastest, then y, then z.
        assert_eq!(*v, (((t % 32) << 16) | (b * 256 + t)) as u64, "thread {g}");
    }
}

const BAR_SHARED: &str = "\t.shared .align 4 .b8 k_sh[384];\n";

#[test]
fn bar_sync_orders_shared_memory_across_warps() {
    // 96 threads: write shared[t], barrier, read shared[95 - t].
    let body = "\tmov.u64 %rd6, k_sh;\n\tmul.wide.u32 %rd7, %r1, 4;\n\tadd.s64 %rd8, %rd6, %rd7;\n\
                \tadd.u32 %r5, %r1, 1000;\n\tst.shared.u32 [%rd8], %r5;\n\tbar.sync 0;\n\
                \tsub.u32 %r6, 95, %r1;\n\tmul.wide.u32 %rd7, %r6, 4;\n\tadd.s64 %rd8, %rd6, %rd7;\n\
                \tld.shared.u32 %r20, [%rd8];";
    let out = launch(&per_thread(body, BAR_SHARED), 3, 96).unwrap();
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, 1000 + 95 - (i % 96) as u64);
    }
}

#[test]
fn threads_at_different_barriers_are_a_mismatch() {
    let body = "\tand.b32 %r5, %r1, 1;\n\tsetp.eq.u32 %p1, %r5, 1;\n\t@%p1 bra $L_b;\n\
                \tbar.sync 0;\n\tbra.uni $L_e;\n$L_b:\n\tbar.sync 0;\n$L_e:";
    let e = launch(&per_thread(body, ""), 1, 64).unwrap_err();
    let Error::Fault(f) = &e else { panic!("{e}") };
    let FaultKind::BarrierMismatch { lines } = &f.kind else { panic!("{e}") };
    assert_eq!(lines.len(), 2, "{e}");
}

#[test]
fn exited_threads_do_not_hold_a_barrier() {
    let body = "\tsetp.ge.u32 %p1, %r1, 40;\n\t@%p1 bra $L_end;\n\tbar.sync 0;\n\tmov.u32 %r20, 7;\n$L_end:";
    let out = launch(&per_thread(body, ""), 1, 64).unwrap();
    assert_eq!(out[..40], [7; 40]);
    assert_eq!(out[40..], [0; 24]);
}

#[test]
fn a_warp_sync_waiting_for_lanes_at_a_barrier_is_a_deadlock() {
    // Lanes 0-15 wait at bar.sync; lanes 16-31 shuffle with the whole warp.
    let body = "\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 bra $L_b;\n\
                \tshfl.sync.idx.b32 %r20, %r1, 0, 31, -1;\n\tbra.uni $L_e;\n$L_b:\n\tbar.sync 0;\n$L_e:";
    let e = launch(&per_thread(body, ""), 1, 32).unwrap_err();
    let Error::Fault(f) = &e else { panic!("{e}") };
    assert!(matches!(&f.kind, FaultKind::Deadlock(m) if m.contains("bar.sync")), "{e}");
    assert!(f.instruction.starts_with("shfl.sync.idx.b32"), "{e}");
}

#[test]
fn launches_outside_the_limits_are_errors() {
    let src = per_thread("", "");
    let e = launch(&src, 1, 2048).unwrap_err().to_string();
    assert!(e.contains("not a valid block"), "{e}");
    let m = module(&per_thread("", "\t.shared .align 4 .b8 k_sh[200000];\n"));
    let e = run(&m, [1, 1, 1], [1, 1, 1], &[vec![0; 8]], &[], &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("bytes of shared memory"), "{e}");
}
