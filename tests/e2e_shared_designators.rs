//! End to end: shared memory designators (manual §9.2) in kernels, compared with the same
//! computation in Rust. .ci/run also runs this file with every launch on interpreted PTX.

use quasar::Array;

mod m {
    quasar::quasar!(file = "tests/common/shared_designators.q");
}

#[test]
fn the_manuals_shared_memory_histogram() {
    for n in [1usize, 100, 5000] {
        let im: Vec<f32> = (0..n).map(|i| ((i * 7 + i / 3) % 16) as f32).collect();
        let mut want = [0f32; 16];
        for v in &im {
            want[*v as usize] += 1.0;
        }
        let x = Array::from_vec(&[n], im).unwrap();
        let h = m::histogram16(&x).unwrap().to_vec().unwrap();
        assert_eq!(h, want, "n = {n}");
    }
}

#[test]
fn an_uninitialised_designator_filled_by_the_block() {
    let w: Vec<f32> = (0..8).map(|k| k as f32 * 0.5 - 1.0).collect();
    let n: usize = 300;
    let (y, t) = m::table_lookup(&Array::from_vec(&[8], w.clone()).unwrap(), n as i32).unwrap();
    let (y, t) = (y.to_vec().unwrap(), t.to_vec().unwrap());
    let table: Vec<f32> = w.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(t, table);
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, table[i % 8] * i as f32, "y[{i}]");
    }
}
