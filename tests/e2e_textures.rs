//! End to end: kernel parameters with the texture hints `'hwtex_linear` and `'hwtex_nearest`
//! read at real positions (manual §9.3), against interpolation written here in Rust: element
//! `i` lies at position `i`, the linear read weighs the elements around the position, the
//! nearest read takes `floor(p + 0.5)`, and every element read follows the array's boundary
//! mode. .ci/run also runs this file with every launch on interpreted PTX.

use quasar::Array;

mod k {
    quasar::quasar!(file = "tests/common/textures.q");
}

/// Boundary modes as the manual defines them (§2.4.1).
#[derive(Clone, Copy)]
enum Mode {
    Safe,
    Clamped,
    Circular,
    Mirror,
}

/// The index `i` of a dimension of `n` elements under `mode` (`None`: outside, reads 0).
fn at(i: i64, n: usize, mode: Mode) -> Option<usize> {
    let n = n as i64;
    let j = match mode {
        Mode::Safe => i,
        Mode::Clamped => i.clamp(0, n - 1),
        Mode::Circular => i.rem_euclid(n),
        Mode::Mirror => {
            let k = i.rem_euclid(2 * n);
            if k < n {
                k
            } else {
                2 * n - 1 - k
            }
        }
    };
    (0..n).contains(&j).then_some(j as usize)
}

/// A row-major array of any rank with a boundary mode.
struct Grid<'a> {
    data: &'a [f32],
    shape: &'a [usize],
    mode: Mode,
}

impl Grid<'_> {
    fn get(&self, idx: &[i64]) -> f32 {
        let mut off = 0;
        for (d, &i) in idx.iter().enumerate() {
            match at(i, self.shape[d], self.mode) {
                Some(j) => off = off * self.shape[d] + j,
                None => return 0.0,
            }
        }
        self.data[off]
    }

    /// Linear interpolation at `p`: the corners with the first dimension fastest.
    fn linear(&self, p: &[f32]) -> f32 {
        let base: Vec<i64> = p.iter().map(|x| x.floor() as i64).collect();
        let frac: Vec<f32> = p.iter().map(|x| x - x.floor()).collect();
        let mut sum = 0.0f32;
        for corner in 0..1usize << p.len() {
            let mut w = 1.0f32;
            let mut idx = base.clone();
            for d in 0..p.len() {
                if corner >> d & 1 == 1 {
                    w *= frac[d];
                    idx[d] += 1;
                } else {
                    w *= 1.0 - frac[d];
                }
            }
            sum += w * self.get(&idx);
        }
        sum
    }
}

fn close(got: f32, want: f32) -> bool {
    (got - want).abs() <= 1e-4 * (1.0 + want.abs())
}

#[test]
fn the_manuals_image_scaling_interpolates_as_by_hand() {
    let (h, w) = (5usize, 7usize);
    let x = Array::from_fn(&[h, w], |i| ((i * 7) % 11) as f32 * 0.5 - 1.0).unwrap();
    let xs = x.to_vec().unwrap();
    let (m, n, scale) = (9usize, 12usize, 0.6f32);
    let (by_hand, texture, clamped) = k::rescale(&x, scale, m as i32, n as i32).unwrap();
    let (by_hand, texture, clamped) =
        (by_hand.to_vec().unwrap(), texture.to_vec().unwrap(), clamped.to_vec().unwrap());
    let safe = Grid { data: &xs, shape: &[h, w], mode: Mode::Safe };
    let clamp = Grid { data: &xs, shape: &[h, w], mode: Mode::Clamped };
    for i in 0..m {
        for j in 0..n {
            let p = [scale * i as f32, scale * j as f32];
            let k = i * n + j;
            assert!(close(texture[k], safe.linear(&p)), "texture y[{i}, {j}] = {}", texture[k]);
            assert!(close(by_hand[k], texture[k]), "by hand y[{i}, {j}] = {}", by_hand[k]);
            assert!(close(clamped[k], clamp.linear(&p)), "clamped y[{i}, {j}] = {}", clamped[k]);
        }
    }
    // Past the last row, 'safe reads zeros and 'clamped repeats the edge: they differ there.
    assert!((0..n).any(|j| texture[(m - 1) * n + j] != clamped[(m - 1) * n + j]));
}

#[test]
fn a_vector_shifted_by_a_fraction_wraps_around_with_circular() {
    let x = Array::from_vec(&[6], vec![1.0f32, 4.0, -2.0, 8.0, 0.5, 3.0]).unwrap();
    let xs = x.to_vec().unwrap();
    let g = Grid { data: &xs, shape: &[6], mode: Mode::Circular };
    for d in [0.25f32, -1.75, 5.5] {
        let y = k::shifted(&x, d).unwrap().to_vec().unwrap();
        for (i, v) in y.iter().enumerate() {
            let want = g.linear(&[i as f32 + d]);
            assert!(close(*v, want), "shift {d}: y[{i}] = {v}, want {want}");
        }
    }
}

#[test]
fn a_cube_interpolates_trilinearly_and_mirrors_at_the_edges() {
    let shape = [3usize, 4, 5];
    let x = Array::from_fn(&shape, |i| ((i * 13) % 17) as f32 - 8.0).unwrap();
    let xs = x.to_vec().unwrap();
    let g = Grid { data: &xs, shape: &shape, mode: Mode::Mirror };
    let t = Array::from_vec(&[3], vec![0.5f32, -0.75, 1.25]).unwrap();
    let y = k::trilinear(&x, &t).unwrap().to_vec().unwrap();
    for i in 0..shape[0] {
        for j in 0..shape[1] {
            for l in 0..shape[2] {
                let p = [i as f32 + 0.5, j as f32 - 0.75, l as f32 + 1.25];
                let got = y[(i * shape[1] + j) * shape[2] + l];
                assert!(close(got, g.linear(&p)), "y[{i}, {j}, {l}] = {got}");
            }
        }
    }
}

#[test]
fn a_texture_passed_to_a_device_function_is_read_in_a_loop() {
    let (h, w) = (6usize, 5usize);
    let x = Array::from_fn(&[h, w], |i| (i % 9) as f32 * 0.25 + 1.0).unwrap();
    let xs = x.to_vec().unwrap();
    let g = Grid { data: &xs, shape: &[h, w], mode: Mode::Safe };
    let step = Array::from_vec(&[2], vec![0.5f32, 0.75]).unwrap();
    let y = k::line_sums(&x, &step, 4).unwrap().to_vec().unwrap();
    for i in 0..h {
        for j in 0..w {
            let p = [i as f32 + 0.25, j as f32 + 0.25];
            let mut want = 0.0f32;
            for s in 0..4 {
                want += g.linear(&[p[0] + s as f32 * 0.5, p[1] + s as f32 * 0.75]);
            }
            assert!(close(y[i * w + j], want), "y[{i}, {j}] = {}, want {want}", y[i * w + j]);
        }
    }
}

#[test]
fn nearest_rounds_halves_up_beside_an_integer_subscript_and_on_integers() {
    let (h, w) = (4usize, 3usize);
    let x = Array::from_fn(&[h, w], |i| i as f32 + 1.0).unwrap();
    let labels = Array::from_fn(&[h, w], |i| (i * 5 % 7) as i32).unwrap();
    let (xs, ls) = (x.to_vec().unwrap(), labels.to_vec().unwrap());
    let (m, n, s, c) = (8usize, 5usize, 0.5f32, -0.5f32);
    let (rows, lab) = k::nearest(&x, &labels, s, c, m as i32, n as i32).unwrap();
    let (rows, lab) = (rows.to_vec().unwrap(), lab.to_vec().unwrap());
    let round = |p: f32| (p + 0.5).floor() as i64;
    for i in 0..m {
        for j in 0..n {
            let r = round(s * i as f32 + c);
            let want = match (at(r, h, Mode::Safe), at(j as i64, w, Mode::Safe)) {
                (Some(a), Some(b)) => xs[a * w + b],
                _ => 0.0,
            };
            assert_eq!(rows[i * n + j], want, "rows[{i}, {j}]");
            let (a, b) = (round(s * i as f32), round(s * j as f32));
            let want = ls[at(a, h, Mode::Clamped).unwrap() * w + at(b, w, Mode::Clamped).unwrap()];
            assert_eq!(lab[i * n + j], want, "labels[{i}, {j}]");
        }
    }
}
