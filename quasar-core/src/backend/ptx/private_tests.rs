//! The block-shared copies of accumulated-only arrays (`private.rs`) in the emitted PTX.

use super::tests::ptx;

/// The text of the only entry whose name starts with `name`.
fn entry(src: &str, name: &str) -> String {
    let out = ptx(src);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let start = out.text.find(&format!(".entry {name}")).expect("the entry");
    let rest = &out.text[start..];
    rest[..rest.find("\n}\n").unwrap_or(rest.len())].to_string()
}

/// The position of the first line of `text` containing `what`.
fn at(text: &str, what: &str) -> usize {
    text.find(what).unwrap_or_else(|| panic!("no `{what}` in\n{text}"))
}

const HIST: &str = "
function [] = __kernel__ hist(x : vec, h : vec[int], w : mat, pos : int)
    h[int(x[pos] * 15.0)] += 1
    w[0, int(x[pos] * 3.0)] -= x[pos]
endfunction

function [] = run(x : vec, h : vec[int], w : mat)
    parallel_do(numel(x), x, h, w, hist)
endfunction
";

#[test]
fn histograms_add_into_block_shared_copies_merged_at_the_exit() {
    let t = entry(HIST, "hist");
    assert!(t.contains(".shared .align 16 .b8 hist_") && t.contains("_acc[12288];"), "{t}");
    // Cleared, then a barrier, before the position (and the launch-edge test that sends
    // threads past the edge to the exit).
    let (clear, first_bar) = (at(&t, "st.shared.u32"), at(&t, "bar.sync 0"));
    assert!(clear < first_bar && first_bar < at(&t, "%ctaid.x"), "{t}");
    // The updates go to the copies when the block uses them, else to the arrays.
    assert!(t.contains("atom.shared.add.s32"), "{t}");
    assert!(t.contains("atom.shared.add.f32"), "{t}");
    let exit = at(&t, "$L__1:\n");
    assert!(at(&t, "atom.shared.add.s32") < exit && at(&t, "atom.global.add.s32") < exit);
    // At the exit: a second barrier, then one global addition per non-zero element.
    let merge = &t[exit..];
    assert_eq!(t.matches("bar.sync 0").count(), 2, "{t}");
    let (bar, load, add) =
        (at(merge, "bar.sync 0"), at(merge, "ld.shared.s32"), at(merge, "atom.global.add.s32"));
    assert!(bar < load && load < add, "{merge}");
    assert!(merge.contains("ld.shared.f32") && merge.contains("atom.global.add.f32"), "{merge}");
    // Each array decides by its size (and the launch's).
    assert_eq!(t.matches("setp.le.u64").count(), 2, "{t}");
}

#[test]
fn arrays_used_otherwise_and_kernels_with_shared_memory_stay_global() {
    for (body, why) in [
        ("    h[pos] += h[0]", "read"),
        ("    h[pos] *= 2.0", "not an addition"),
        ("    t = shared_zeros(4)\n    syncthreads\n    h[pos] += t[0]", "shared memory"),
    ] {
        let src = format!(
            "function [] = __kernel__ k(h : vec, pos : int)\n{body}\nendfunction\n\
             function [] = run(h : vec)\n    parallel_do(numel(h), h, k)\nendfunction\n"
        );
        let t = entry(&src, "k");
        assert!(!t.contains("_acc[") && !t.contains("atom.shared.add"), "{why}: {t}");
    }
}
