//! Emitted instruction sequences of cooperative groups and warp shuffles (manual §9.8).
//! (`tests/ptxas.rs` assembles `tests/ptx_kernels/coop.q`.)

use super::tests::{instruction_lines, ptx};

/// The instructions of the only kernel of `src` (opcodes with their suffixes), which must
/// compile without diagnostics.
fn opcodes(src: &str) -> Vec<String> {
    instruction_lines(src)
        .iter()
        .map(|l| {
            let l = if l.starts_with('@') { l.split_once(' ').map_or("", |x| x.1) } else { l };
            l.split_whitespace().next().unwrap_or("").to_string()
        })
        .collect()
}

fn count(ops: &[String], op: &str) -> usize {
    ops.iter().filter(|o| *o == op).count()
}

/// A kernel over `x : vec` with `coalesced_threads` whose body is `body`.
fn warp_kernel(body: &str) -> String {
    format!(
        "function [] = __kernel__ k(coalesced_threads : thread_block, x : vec, n : vec[int], \
         d : vec[scalar'double], pos : int)\n{{!kernel target=\"nvidia_cuda\"}}\n{body}\nendfunction"
    )
}

#[test]
fn the_manuals_reduce_sum_shuffles_down_five_times() {
    let src = "function y : scalar = __kernel__ reduce_sum(coalesced_threads : thread_block, x : vec, pos : int)
    {!kernel target=\"nvidia_cuda\"}
    val = x[pos]
    lane = coalesced_threads.thread_idx
    val += coalesced_threads.shfl_down(val, 16)
    val += coalesced_threads.shfl_down(val, 8)
    val += coalesced_threads.shfl_down(val, 4)
    val += coalesced_threads.shfl_down(val, 2)
    val += coalesced_threads.shfl_down(val, 1)
    if lane==0
        y += val
    endif
endfunction";
    let out = ptx(src);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let text = &out.text;
    assert_eq!(text.matches("shfl.sync.down.b32").count(), 5, "{text}");
    assert!(text.contains("mov.u32 %r") && text.contains("%laneid"), "{text}");
    assert!(text.contains("activemask.b32"), "{text}");
    // An f32 value moves through a .b32 register; the clamp lane is 31 for `down`.
    assert!(text.contains(", 31, %r"), "{text}");
    // Every thread stays (no early exit past the launch edge), so warps are complete.
    assert!(!text.contains("setp.ge.u32"), "{text}");
}

#[test]
fn shuffle_modes_and_widths() {
    let ops = opcodes(&warp_kernel(
        "x[pos] = coalesced_threads.shfl(x[pos], 0) + coalesced_threads.shfl_up(x[pos], 1)\n\
         n[pos] = coalesced_threads.shfl_xor(n[pos], 3)\n\
         d[pos] = coalesced_threads.shfl_down(d[pos], 1)",
    ));
    assert_eq!(count(&ops, "shfl.sync.idx.b32"), 1);
    assert_eq!(count(&ops, "shfl.sync.up.b32"), 1);
    assert_eq!(count(&ops, "shfl.sync.bfly.b32"), 1);
    // A float64 is shuffled as two 32-bit halves.
    assert_eq!(count(&ops, "shfl.sync.down.b32"), 2);
    assert_eq!(count(&ops, "mov.b64"), 2);
    let out = ptx(&warp_kernel("x[pos] = coalesced_threads.shfl_up(x[pos], 1)"));
    assert!(out.text.contains("shfl.sync.up.b32") && out.text.contains(", 0, %r"), "{}", out.text);
}

#[test]
fn votes_and_matches() {
    let ops = opcodes(&warp_kernel(
        "n[pos] = coalesced_threads.all(x[pos] > 0) + coalesced_threads.any(n[pos]) + \
         coalesced_threads.ballot(x[pos] > 1.0) + coalesced_threads.match_any(n[pos]) + \
         coalesced_threads.match_all(x[pos]) + coalesced_threads.match_any(d[pos]) + \
         coalesced_threads.active_mask + coalesced_threads.size",
    ));
    for op in [
        "vote.sync.all.pred",
        "vote.sync.any.pred",
        "vote.sync.ballot.b32",
        "match.any.sync.b32",
        "match.all.sync.b32",
        "match.any.sync.b64",
    ] {
        assert_eq!(count(&ops, op), 1, "{op} in {ops:?}");
    }
    assert_eq!(count(&ops, "activemask.b32"), 7);
}

#[test]
fn thread_block_index_size_and_barriers() {
    let src = "function [] = __kernel__ k(this_thread_block : thread_block, x : vec, pos : int)
    x[pos] = this_thread_block.thread_idx + this_thread_block.size
    this_thread_block.sync()
    syncthreads(warp)
    syncthreads(block)
endfunction";
    let ops = opcodes(src);
    assert_eq!(count(&ops, "bar.sync"), 2, "{ops:?}");
    assert_eq!(count(&ops, "bar.warp.sync"), 1, "{ops:?}");
    // `pos`, then the linear index (2) and the size (2) of the block, twice.
    assert_eq!(count(&ops, "mad.lo.s32"), 5, "{ops:?}");
    assert_eq!(count(&ops, "mul.lo.s32"), 4, "{ops:?}");
    // `syncthreads(warp)` waits for the active threads of a possibly diverged warp.
    assert_eq!(count(&ops, "activemask.b32"), 1, "{ops:?}");
}

#[test]
fn tiles_use_segment_masks() {
    let src = "function [] = __kernel__ k(this_thread_block : thread_block, x : vec, pos : int)
    t = this_thread_block.partition(8)
    x[pos] = t.shfl(x[pos], 0) + t.shfl_up(x[pos], 1) + t.thread_idx + t.size + t.any(x[pos])
endfunction";
    let out = ptx(src);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    // Segment mask 32 - 8 = 24 in bits 8–12: 6175 for idx (clamp 31), 6144 for up.
    assert!(
        out.text.contains("shfl.sync.idx.b32") && out.text.contains(", 6175, "),
        "{}",
        out.text
    );
    assert!(out.text.contains(", 6144, "), "{}", out.text);
    assert!(out.text.contains("vote.sync.ballot.b32"), "{}", out.text);
}

#[test]
fn unsupported_groups_are_reported_not_miscompiled() {
    let cases = [
        ("this_thread_block", "this_thread_block.shfl(x[pos], 0)", "this_thread_block"),
        ("this_grid", "this_grid.sync()", "cooperative launch"),
        ("this_multi_grid", "this_multi_grid.thread_idx", "this_multi_grid"),
        ("coalesced_threads", "coalesced_threads.partition(pos).size", "power of two"),
    ];
    for (param, expr, what) in cases {
        let src = format!(
            "function [] = __kernel__ k({param} : thread_block, x : vec, pos : int)\n\
             x[pos] = {expr}\nendfunction"
        )
        .replace("x[pos] = this_grid.sync()", "this_grid.sync()");
        let out = ptx(&src);
        assert_eq!(out.diagnostics.len(), 1, "{src}: {:?}", out.diagnostics);
        assert!(out.diagnostics[0].message.contains(what), "{:?}", out.diagnostics);
    }
}
