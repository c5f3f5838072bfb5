//! End to end: mutable classes and classes with vector fields in kernels and device functions
//! (manual chapter 7), compared with the same computation in Rust. .ci/run also runs this file
//! with every launch on interpreted PTX.

use quasar::Array;

mod k {
    quasar::quasar!(file = "tests/common/mutable_class_kernels.q");
}

fn close(got: f32, want: f32, what: &str) {
    assert!((got - want).abs() <= 1e-4 * want.abs().max(1.0), "{what}: {got} vs {want}");
}

#[test]
fn particles_are_advanced_in_place_by_a_device_function_taking_them_by_value() {
    let (dt, steps) = (0.125f32, 5);
    for n in [1usize, 6, 33] {
        let out = k::advance(n as i32, dt, steps).unwrap().to_vec().unwrap();
        for i in 0..n {
            let f = i as f32;
            let (mut pos, mut vel) = ([f, 0.0, 1.0], [1.0, 2.0 * f, 0.0]);
            for _ in 0..steps {
                for c in 0..3 {
                    pos[c] += dt * vel[c];
                }
                vel[2] -= 10.0 * dt;
            }
            vel[0] += 0.5;
            let hits = i as f32 + steps as f32;
            // mass + the hits before the steps, doubled in place.
            let mass = 2.0 * ((1.0 + f) + f);
            let want = [pos[0], pos[1], pos[2], vel[0], vel[1], vel[2], hits, mass];
            for (c, w) in want.iter().enumerate() {
                close(out[i * 8 + c], *w, &format!("n = {n}, particle {i}, column {c}"));
            }
        }
    }
}

#[test]
fn threads_update_fields_of_shared_elements_together() {
    for (len, bins) in [(1usize, 1usize), (50, 4), (1000, 7)] {
        let x: Vec<i32> = (0..len).map(|p| ((p * 7 + 3) % bins) as i32).collect();
        let (n, total) =
            k::bin_counts(&Array::from_vec(&[len], x.clone()).unwrap(), bins as i32).unwrap();
        let (n, total) = (n.to_vec().unwrap(), total.to_vec().unwrap());
        let mut want_n = vec![0f32; bins];
        let mut want_t = vec![0f32; bins];
        want_n[0] = 100.0;
        for (p, b) in x.iter().enumerate() {
            want_n[*b as usize] += 1.0;
            want_t[*b as usize] += p as f32;
        }
        want_t[bins - 1] += 0.5;
        assert_eq!(n, want_n, "counts, {len} values in {bins} bins");
        assert_eq!(total, want_t, "totals, {len} values in {bins} bins");
    }
}

#[test]
fn a_mutable_local_with_vector_fields_and_a_class_field_changes_in_a_loop() {
    let (height, fall) = (10.0f32, 1.5f32);
    let n = 9;
    let y = k::walk(n as i32, height, fall).unwrap().to_vec().unwrap();
    for p in 0..n {
        let dir = [0.5f32, 0.25, -fall];
        let mut at = [p as f32, 1.0, height];
        let mut steps = 0;
        while at[2] > 0.0 {
            for c in 0..3 {
                at[c] += dir[c];
            }
            steps += 1;
        }
        let want = [steps as f32, at[0], at[2], -dir[2], at[1]];
        for (c, w) in want.iter().enumerate() {
            close(y[p * 5 + c], *w, &format!("thread {p}, column {c}"));
        }
    }
}

#[test]
fn a_mutable_class_argument_is_each_threads_copy() {
    let (n, base, extra) = (40usize, 3, 0.25f32);
    let y = k::offsets(n as i32, base, extra).unwrap().to_vec().unwrap();
    let want: Vec<f32> = (0..n).map(|p| (base + p as i32) as f32 + extra).collect();
    assert_eq!(y, want);
}

#[test]
fn components_of_vector_fields_of_elements_are_written_in_place_by_kernels() {
    let t = 0.25f32;
    for n in [1usize, 5, 40] {
        let got = k::components_kernel_run(n as i32, t).unwrap().to_vec().unwrap();
        let host = k::components_host(n as i32, t).unwrap().to_vec().unwrap();
        let mut want = Vec::new();
        for i in 0..n {
            let f = i as f32;
            let mut vel = [0.0, f, 0.0];
            vel[i % 3] += 10.0;
            if i == 0 {
                // Every thread adds 1 to element 0.
                vel[2] += n as f32;
            }
            let mut tip = [f, 1.0, 1.0 - f];
            tip[(i + 1) % 3] += t;
            want.extend([f, 2.0 * f + t, 0.0]);
            want.extend(vel);
            want.extend(tip);
        }
        for (c, (g, w)) in got.iter().zip(&want).enumerate() {
            close(*g, *w, &format!("kernel, n = {n}, row {}, column {}", c / 9, c % 9));
        }
        assert_eq!(got.len(), want.len());
        assert_eq!(host, got, "the host writes the same components, n = {n}");
    }
}
