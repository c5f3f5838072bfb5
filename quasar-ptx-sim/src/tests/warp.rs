//! Warp-level instructions: `shfl.sync`, `vote.sync`, `match.sync`, `activemask`,
//! `bar.warp.sync` (PTX ISA §9.7.8.6, §9.7.13.3-4, §9.7.13.7-8).

use super::{arg, module, run, REGS};
use crate::{Error, FaultKind, Options};

/// One warp (or `n` threads): `body` computes `%r20` from `%r1` (the lane) and stores it.
fn warp(body: &str, n: u32) -> Result<Vec<u32>, Error> {
    let src = format!(
        ".visible .entry k(.param .u64 k_out)\n{{\n{REGS}\tld.param.u64 %rd1, [k_out];\n\
         \tmov.u32 %r1, %laneid;\n\tmov.u32 %r9, %tid.x;\n\tmul.wide.u32 %rd2, %r9, 8;\n\
         \tadd.s64 %rd5, %rd1, %rd2;\n\tmov.u32 %r20, 12345;\n{body}\n\tcvt.u64.u32 %rd20, %r20;\n\
         \tst.global.u64 [%rd5], %rd20;\n\tret;\n}}\n"
    );
    let m = module(&src);
    let mut out = vec![0u64; n as usize];
    let (p, r) = arg(&mut out, "out");
    run(&m, [1, 1, 1], [n, 1, 1], &[p], &[r], &Options::default())?;
    Ok(out.into_iter().map(|v| v as u32).collect())
}

/// `r20 = source lane | (p << 8)` of a shuffle of the lane numbers.
fn shfl(mode: &str, b: u32, c: u32) -> Vec<u32> {
    let body = format!(
        "\tshfl.sync.{mode}.b32 %r5|%p1, %r1, {b}, {c}, -1;\n\tselp.u32 %r6, 256, 0, %p1;\n\
         \tor.b32 %r20, %r5, %r6;"
    );
    warp(&body, 32).unwrap()
}

#[test]
fn shuffles_follow_the_isa_lane_formulas() {
    // down: j = lane + b, valid while j <= maxLane (c = 31: the whole warp).
    let r = shfl("down", 4, 31);
    for l in 0..32u32 {
        let want = if l + 4 <= 31 { (l + 4) | 256 } else { l };
        assert_eq!(r[l as usize], want, "down lane {l}");
    }
    // up: j = lane - b, valid while j >= maxLane (c = 0).
    let r = shfl("up", 3, 0);
    for l in 0..32u32 {
        let want = if l >= 3 { (l - 3) | 256 } else { l };
        assert_eq!(r[l as usize], want, "up lane {l}");
    }
    let r = shfl("bfly", 5, 31);
    for l in 0..32u32 {
        assert_eq!(r[l as usize], (l ^ 5) | 256, "bfly lane {l}");
    }
    // idx in segments of 8 lanes: c = ((32 - 8) << 8) | 31.
    let r = shfl("idx", 2, (24 << 8) | 31);
    for l in 0..32u32 {
        assert_eq!(r[l as usize], ((l & !7) | 2) | 256, "idx lane {l}");
    }
    // down within segments of 8: lanes past their segment keep their own value.
    let r = shfl("down", 4, (24 << 8) | 31);
    for l in 0..32u32 {
        let want = if (l & 7) + 4 <= 7 { (l + 4) | 256 } else { l };
        assert_eq!(r[l as usize], want, "segmented down lane {l}");
    }
}

#[test]
fn votes_over_the_active_lanes_of_a_divergent_branch() {
    // Odd lanes only: membermask = activemask; ballot of (lane % 4 == 1).
    let body = "\tand.b32 %r5, %r1, 1;\n\tsetp.eq.u32 %p1, %r5, 0;\n\t@%p1 bra $L_e;\n\
                \tactivemask.b32 %r6;\n\tand.b32 %r7, %r1, 3;\n\tsetp.eq.u32 %p2, %r7, 1;\n\
                \tvote.sync.ballot.b32 %r20, %p2, %r6;\n$L_e:";
    let r = warp(body, 32).unwrap();
    for (l, v) in r.iter().enumerate() {
        assert_eq!(*v, if l % 2 == 1 { 0x2222_2222 } else { 12345 }, "lane {l}");
    }
    let vote = |mode: &str, cond: &str| {
        let body = format!(
            "\t{cond};\n\tvote.sync.{mode}.pred %p2, %p1, -1;\n\tselp.u32 %r20, 1, 0, %p2;"
        );
        warp(&body, 32).unwrap()[0]
    };
    assert_eq!(vote("all", "setp.lt.u32 %p1, %r1, 32"), 1);
    assert_eq!(vote("all", "setp.lt.u32 %p1, %r1, 31"), 0);
    assert_eq!(vote("any", "setp.eq.u32 %p1, %r1, 17"), 1);
    assert_eq!(vote("any", "setp.eq.u32 %p1, %r1, 40"), 0);
    assert_eq!(vote("uni", "setp.eq.u32 %p1, %r1, 40"), 1);
    assert_eq!(vote("uni", "setp.eq.u32 %p1, %r1, 3"), 0);
    // A negated source predicate.
    let r = warp("\tsetp.lt.u32 %p1, %r1, 8;\n\tvote.sync.ballot.b32 %r20, !%p1, -1;", 32).unwrap();
    assert_eq!(r[0], 0xFFFF_FF00);
}

#[test]
fn match_any_and_all() {
    // Lanes with equal lane / 8 match.
    let r = warp("\tshr.u32 %r5, %r1, 3;\n\tmatch.any.sync.b32 %r20, %r5, -1;", 32).unwrap();
    for (l, v) in r.iter().enumerate() {
        assert_eq!(*v, 0xFF << (l & !7), "lane {l}");
    }
    let all = |v: &str| {
        let body = format!(
            "\t{v};\n\tmatch.all.sync.b32 %r6|%p1, %r5, -1;\n\tselp.u32 %r7, 1, 0, %p1;\n\
             \tshl.b32 %r7, %r7, 31;\n\tshr.u32 %r6, %r6, 1;\n\tor.b32 %r20, %r6, %r7;"
        );
        warp(&body, 32).unwrap()[3]
    };
    assert_eq!(all("mov.u32 %r5, 7"), 0x8000_0000 | 0x7FFF_FFFF, "all equal: d = mask, p = 1");
    assert_eq!(all("min.u32 %r5, %r1, 30"), 0, "not all equal: d = 0, p = 0");
}

#[test]
fn warp_synchronous_instructions_do_not_wait_for_exited_lanes() {
    let body = "\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 ret;\n\tbar.warp.sync -1;\n\
                \tsetp.lt.u32 %p2, %r1, 20;\n\tvote.sync.ballot.b32 %r20, %p2, -1;";
    let r = warp(body, 32).unwrap();
    assert_eq!(r[20], 0x000F_0000);
    // A partial warp: the missing lanes do not exist.
    let r = warp("\tvote.sync.ballot.b32 %r20, %p0, -1;\n\tactivemask.b32 %r20;", 20).unwrap();
    assert_eq!(r[0], 0x000F_FFFF);
}

#[test]
fn lanes_wait_at_a_warp_sync_until_their_membermask_arrives() {
    // Lanes 0-15 take a longer path to the same shuffle: the shuffle sees all 32 lanes.
    let body = "\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 bra $L_long;\n\tbra.uni $L_shfl;\n$L_long:\n\
                \tadd.u32 %r8, %r1, 1;\n\tadd.u32 %r8, %r8, 1;\n\tbra.uni $L_shfl;\n\
                $L_shfl:\n\tshfl.sync.bfly.b32 %r20, %r1, 16, 31, -1;";
    let r = warp(body, 32).unwrap();
    for l in 0..32u32 {
        assert_eq!(r[l as usize], l ^ 16);
    }
}

#[test]
fn misused_warp_synchronous_instructions_are_faults() {
    let fault = |body: &str| match warp(body, 32) {
        Err(Error::Fault(f)) => f,
        r => panic!("{r:?}"),
    };
    // A lane outside its own membermask.
    let f = fault("\tshfl.sync.idx.b32 %r20, %r1, 0, 31, 1;");
    assert!(
        matches!(&f.kind, FaultKind::WarpSync(m) if m.contains("not in its own membermask")),
        "{f}"
    );
    // Different membermasks.
    let f = fault(
        "\tactivemask.b32 %r5;\n\tadd.u32 %r5, %r5, %r1;\n\tvote.sync.ballot.b32 %r20, %p0, %r5;",
    );
    assert!(
        matches!(&f.kind, FaultKind::WarpSync(m) if m.contains("different membermasks")),
        "{f}"
    );
    // Reading a lane that does not take part (lanes 0-15 exited).
    let f = fault(
        "\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 ret;\n\tshfl.sync.idx.b32 %r20, %r1, 0, 31, -1;",
    );
    assert!(matches!(&f.kind, FaultKind::WarpSync(m) if m.contains("does not take part")), "{f}");
}
