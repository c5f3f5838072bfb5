use crate::rt::*;
use quasar_runtime::{Array, Error};

#[test]
fn circular_clamped_and_mirror_maps() {
    let n = 4;
    let circ: Vec<_> = (-5..9).map(|i| map_index(i, n, Mode::Circular).unwrap()).collect();
    assert_eq!(circ, [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0]);
    let clamp: Vec<_> = (-3..7).map(|i| map_index(i, n, Mode::Clamped).unwrap()).collect();
    assert_eq!(clamp, [0, 0, 0, 0, 1, 2, 3, 3, 3, 3]);
    // Edge repeated: ... 1 0 | 0 1 2 3 | 3 2 ...
    let mir: Vec<_> = (-9..13).map(|i| map_index(i, n, Mode::Mirror).unwrap()).collect();
    assert_eq!(mir, [0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3]);
    // Far outside.
    assert_eq!(map_index(-12, n, Mode::Mirror), Some(3)); // -3n: an odd reflection
    assert_eq!(map_index(-16, n, Mode::Mirror), Some(0)); // -4n: period 2n
    assert_eq!(map_index(-12, n, Mode::Circular), Some(0));
    assert_eq!(map_index(-13, n, Mode::Circular), Some(3));
    assert_eq!(map_index(i64::MIN, n, Mode::Circular), Some(0));
    assert_eq!(map_index(i64::MAX, n, Mode::Mirror), Some(0)); // q odd, r = 3
    assert_eq!(map_index(i64::MIN, 3, Mode::Mirror), mirror_ext(i64::MIN, 3).try_into().ok());
    assert_eq!(map_index(i64::MAX, 1 << 62, Mode::Clamped), Some((1 << 62) - 1));
    assert_eq!(map_index(-1, 1, Mode::Mirror), Some(0));
    assert_eq!(map_index(5, 1, Mode::Circular), Some(0));
}

#[test]
fn safe_checked_unchecked_and_empty() {
    for m in [Mode::Safe, Mode::Checked, Mode::Unchecked] {
        assert_eq!(map_index(3, 4, m), Some(3));
        assert_eq!((map_index(4, 4, m), map_index(-1, 4, m)), (None, None));
    }
    for m in [Mode::Safe, Mode::Circular, Mode::Mirror, Mode::Clamped] {
        assert_eq!(map_index(0, 0, m), None);
    }
    assert_eq!(Mode::Mirror.for_write(), Mode::Safe);
    assert_eq!(Mode::Checked.for_write(), Mode::Checked);
}

#[test]
fn builtin_periodize_and_mirror_ext() {
    assert_eq!((periodize(-1, 5), periodize(12, 5), periodize(-15, 5)), (4, 2, 0));
    assert_eq!((periodize(7, 0), periodize(7, -3)), (7, -2));
    assert_eq!(
        (mirror_ext(-1, 5), mirror_ext(-2, 5), mirror_ext(5, 5), mirror_ext(9, 5)),
        (0, 1, 4, 0)
    );
    assert_eq!((mirror_ext(-15, 5), mirror_ext(3, 0), mirror_ext(-3, -2)), (4, 3, -3));
}

#[test]
fn offsets_per_dimension_linear_and_extra() {
    let s = [3, 4];
    assert_eq!(elem_offset(&s, &[1, 2], Mode::Checked), Some(6));
    assert_eq!(elem_offset(&s, &[7], Mode::Checked), Some(7)); // linear
    assert_eq!(elem_offset(&s, &[12], Mode::Checked), None);
    // Per dimension: x[1, -1] is outside, not the end of row 0.
    assert_eq!(elem_offset(&s, &[1, -1], Mode::Safe), None);
    assert_eq!(elem_offset(&s, &[1, -1], Mode::Circular), Some(7));
    assert_eq!(elem_offset(&s, &[-1, 5], Mode::Mirror), Some(2));
    assert_eq!(elem_offset(&s, &[9, 9], Mode::Clamped), Some(11));
    // Beyond the rank: extent 1.
    assert_eq!(elem_offset(&s, &[1, 2, 0], Mode::Checked), Some(6));
    assert_eq!(elem_offset(&s, &[1, 2, 1], Mode::Checked), None);
    assert_eq!(elem_offset(&s, &[1, 2, 5], Mode::Circular), Some(6));
    // Partial index on a cube: the last covers the rest.
    assert_eq!(elem_offset(&[2, 3, 4], &[1, 11], Mode::Checked), Some(23));
    assert_eq!(elem_offset(&[2, 3, 4], &[1, 12], Mode::Circular), Some(12));
    assert_eq!(elem_offset(&[], &[], Mode::Checked), Some(0));
    assert_eq!(elem_offset(&[2], &[], Mode::Checked), None);
}

#[test]
fn get_and_set_elements() {
    let a = Array::from_fn(&[2, 3], |i| i as f32).unwrap();
    assert_eq!(get_elem(&a, "img", &[1, 2], Mode::Checked).unwrap(), 5.0);
    assert_eq!(get_elem(&a, "img", &[1, 3], Mode::Safe).unwrap(), 0.0);
    assert_eq!(get_elem(&a, "img", &[-1, 0], Mode::Circular).unwrap(), 3.0);
    assert_eq!(get_elem(&a, "img", &[1, -1], Mode::Mirror).unwrap(), 3.0);
    let e = get_elem(&a, "img", &[2, 0], Mode::Checked).unwrap_err();
    assert!(matches!(&e, Error::IndexOutOfRange { array, .. } if array == "img"));
    assert_eq!(e.to_string(), "index [2, 0] is out of range for `img` with shape [2, 3]");
    assert!(get_elem(&a, "img", &[0, 3], Mode::Unchecked).is_err());

    set_elem(&a, "img", &[0, 1], 10.0, Mode::Checked).unwrap();
    set_elem(&a, "img", &[0, 5], 20.0, Mode::Safe).unwrap();
    // Writes with a mapping mode outside are dropped (manual: they act as 'safe).
    set_elem(&a, "img", &[0, -1], 30.0, Mode::Circular).unwrap();
    set_elem(&a, "img", &[0, 9], 40.0, Mode::Clamped).unwrap();
    assert_eq!(a.to_vec().unwrap(), [0.0, 10.0, 2.0, 3.0, 4.0, 5.0]);
    let e = set_elem(&a, "out", &[0, 3], 1.0, Mode::Checked).unwrap_err();
    assert!(e.to_string().contains("`out`"), "{e}");
    assert!(set_elem(&a, "out", &[6], 1.0, Mode::Unchecked).is_err());
}

#[test]
fn clamp_ext_is_the_clamped_mode_of_map_index() {
    for n in 1..5i64 {
        for i in -7..9i64 {
            let want = map_index(i, n as usize, Mode::Clamped).map(|x| x as i64);
            assert_eq!(Some(clamp_ext(i, n)), want, "clamp_ext({i}, {n})");
        }
    }
}

#[test]
fn split_row_runs_the_border_segments_around_the_interior() {
    let run = |lo: i64, hi: i64, ok: bool| {
        let (mut border, mut inner) = (Vec::new(), None);
        split_row(
            2..9,
            &[2, lo],
            &[9, hi],
            ok,
            &mut |a, b| {
                border.push((a, b));
                Ok(())
            },
            &mut |a, b| {
                inner = Some((a, b));
                Ok(())
            },
        )
        .unwrap();
        (border, inner)
    };
    assert_eq!(run(4, 7, true), (vec![(2, 4), (7, 9)], Some((4, 7))));
    // An interior reaching an end of the row leaves no empty segment there.
    assert_eq!(run(2, 7, true), (vec![(7, 9)], Some((2, 7))));
    assert_eq!(run(2, 9, true), (vec![], Some((2, 9))));
    // Not this row, or an empty interior: the border code over the whole row.
    assert_eq!(run(4, 7, false), (vec![(2, 9)], None));
    assert_eq!(run(6, 6, true), (vec![(2, 9)], None));
    // No bounds: the whole row is interior.
    assert_eq!(run_unbounded(), (0, 3));
    // An error stops the row before the interior.
    let fail = &mut |a, _| {
        if a == 0 {
            Err(Error::Unsupported("stop".into()))
        } else {
            Ok(())
        }
    };
    let mut interior_ran = false;
    let out = split_row(0..3, &[1], &[2], true, fail, &mut |_, _| {
        interior_ran = true;
        Ok(())
    });
    assert!(out.is_err() && !interior_ran);
}

fn run_unbounded() -> (usize, usize) {
    let mut seen = (9, 9);
    split_row(0..3, &[], &[], true, &mut |_, _| Ok(()), &mut |a, b| {
        seen = (a, b);
        Ok(())
    })
    .unwrap();
    seen
}

#[test]
fn lanes_visit_each_position_once_with_its_lane_and_stop_at_an_error() {
    for (lo, hi) in [(0, 0), (3, 3), (5, 9), (2, 18), (7, 40), (9, 3)] {
        let mut seen = Vec::new();
        lanes::<4>(lo, hi, |p, l| {
            seen.push((p, l));
            Ok(())
        })
        .unwrap();
        let want: Vec<_> = (lo..hi.max(lo)).map(|p| (p, (p - lo) % 4)).collect();
        assert_eq!(seen, want, "{lo}..{hi}");
    }
    let mut count = 0;
    let out = lanes::<4>(0, 10, |p, _| {
        count += 1;
        if p == 5 {
            Err(Error::Unsupported("stop".into()))
        } else {
            Ok(())
        }
    });
    assert!(out.is_err());
    assert_eq!(count, 6);
}

#[test]
fn lanes_start_at_the_slot_and_the_identity_and_fold_in_a_fixed_tree() {
    use quasar_runtime::Reduce;
    // Lane 0 starts from the slot's value, the others from the identity.
    let sum = Lanes::<f32, 4>::new(10.0, Reduce::Sum);
    for (l, v) in [1.0f32, 2.0, 4.0, 8.0, 16.0].into_iter().enumerate() {
        let c = sum.at(l % 4);
        c.set(c.get() + v);
    }
    assert_eq!(sum.fold(), 41.0);
    // (l0 + l2) + (l1 + l3): 1e8 + 1 rounds away only if added to 1e8 alone.
    let order = Lanes::<f32, 4>::new(0.0, Reduce::Sum);
    for (l, v) in [1e8f32, 1.0, -1e8, 1.0].into_iter().enumerate() {
        order.at(l).set(v);
    }
    assert_eq!(order.fold(), 2.0);
    let max = Lanes::<i32, 8>::new(0, Reduce::Max);
    max.at(3).set(-5);
    assert_eq!(max.fold(), 0);
    let min = Lanes::<f64, 2>::new(0.0, Reduce::Min);
    min.at(1).set(-2.5);
    assert_eq!(min.fold(), -2.5);
    assert_eq!(Lanes::<f32, 16>::new(-0.0, Reduce::Sum).fold().to_bits(), (-0.0f32).to_bits());
}

#[test]
fn inside_tests_both_offsets() {
    assert!(inside(2, -2, 1, 4));
    assert!(!inside(2, -3, 1, 4));
    assert!(!inside(2, 0, 2, 4));
}

#[test]
fn unflatten_recovers_the_trailing_positions() {
    // A run of 4 x 3 (rows of 3 colour channels): index 7 is row 2, channel 1.
    assert_eq!(unflatten::<2>(7, &[4, 3]), [2, 1]);
    assert_eq!(unflatten::<2>(0, &[4, 3]), [0, 0]);
    assert_eq!(unflatten::<1>(5, &[6]), [5]);
}

#[test]
fn the_baseline_copy_choice_follows_the_crate_feature() {
    // Generated kernels pass (baseline copy, border code) and get the first only with the
    // feature; the arm not chosen must not even be type-checked (it names `rows::<false>`).
    let chosen: &str = crate::rt::x86_baseline_copies!("copy", "border");
    let want = if cfg!(feature = "x86-baseline-copies") { "copy" } else { "border" };
    assert_eq!(chosen, want);
}
