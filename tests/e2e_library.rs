//! End to end: the run-time library of manual tables 14.1 and 14.2 through `quasar!`, each
//! compared with an independent computation in plain Rust (direct DFT sums, cofactor
//! formulas, C-formatted text, hand-computed bits); the kernel functions marked `(*)`
//! (`and or xor shl shr not maxvalue minvalue`) on the CPU and, where a GPU (or the simulated
//! one: `QUASAR_SIM_GPU=1` or `=ptx`) is there, on the GPU through their PTX.

mod common;

use common::{both, gpu_or_skip};
use quasar::{Array, Complex};

mod lib {
    quasar::quasar! { r#"
function s = formatted(n : int, x : scalar, name : string)
    s = sprintf("%s: n=%05d x=%.3f", name, n, x)
endfunction

function s = joined(a : string, n : int)
    s = strcat(a, "_", n, ".png")
endfunction

function [] = say(n : int)
    printf("count %d\n", n)
endfunction

function v = numbers(s : string)
    v = sscanf(s, "%f,")
endfunction

function [v, t] = codes(s : string)
    v = fromascii(s)
    t = toascii(v + 1)
endfunction

function y = spectrum(x : mat)
    y = fft2(x)
endfunction

function y = roundtrip(x : mat)
    y = irealfft2(fft2(x))
endfunction

function y = columns(x : mat)
    y = fft1(x)
endfunction

function [b, d] = inverse(a : mat)
    b = inv(a)
    d = det(a)
endfunction

function [u, s, v] = decompose(a : mat)
    [u, s, v] = svd(a)
endfunction

function x = solve(a : mat, b : vec)
    x = linsolve(a, b)
endfunction

function r = factor(a : mat)
    r = chol(a)
endfunction

function t = timed(ms : scalar)
    tic()
    pause(ms)
    t = toc()
    toc("")
endfunction

function [] = show(img : mat, lo : scalar, hi : scalar)
    imshow(img, [lo, hi])
    imshow(img, [])
    disp(img)
    disp("done")
endfunction

function [] = plots(x : vec, y : vec)
    hold("off")
    plot(x, y, "r-")
    title("a line")
    xlabel("x")
    ylabel("y")
    xlim([0, 10])
    legend("line")
    repeat
    until !hold("on")
endfunction

function y = bits(a : int, b : int)
    y = [and(a, b), or(a, b), xor(a, b), shl(a, 3), shr(a, 2), not(a)]
endfunction

function [] = write_scaled(file : string, img : mat)
    imwrite(file, img, [0, 2])
endfunction

function img = read_gray(file : string)
    img = imread(file, "gray")
endfunction

function y = tile(x : mat, r : scalar)
    y = repmat(x, [r, 1])
endfunction

function [f, p, i] = shapes(n : int, x : cube)
    f = factorial(n)
    p = ind2pos([2, 3, 4], 17)
    i = pos2ind([2, 3, 4], [1, 1, 1])
endfunction

function y = permuted(x : cube)
    y = shuffledims(x, [2, 0, 1])
endfunction

function t = predicates(s : scalar, c : cscalar, v : vec, m : mat, q : cube)
    t = [isscalar(s), isreal(s), iscomplex(c), isvector(v), ismatrix(v), ismatrix(m), iscube(q), isvector(m), isscalar(v)]
endfunction

function [] = store(file : string, a : mat, n : int)
    save(file, a, n, "label")
endfunction

function [] = __kernel__ bit_kernel(x : vec[int], y : mat[int], pos : int)
    v = x[pos]
    y[pos, 0] = and(v, 12)
    y[pos, 1] = or(v, 5)
    y[pos, 2] = xor(v, 255)
    y[pos, 3] = shl(v, 2)
    y[pos, 4] = shr(v, 1)
    y[pos, 5] = not(v)
    y[pos, 6] = maxvalue(v)
    y[pos, 7] = minvalue(v)
endfunction

function y = run_bits(x : vec[int])
    y = int(zeros(numel(x), 8))
    parallel_do(numel(x), x, y, bit_kernel)
endfunction

function [] = __kernel__ limit_kernel(y : vec, pos : int)
    if pos == 0
        y[pos] = maxvalue(y[pos])
    else
        y[pos] = minvalue(y[pos])
    endif
endfunction

function y = run_limits()
    y = zeros(2)
    parallel_do(2, y, limit_kernel)
endfunction

function [] = __kernel__ vector_kernel(x : mat, y : mat, pos : int)
    a = x[pos, 0..3]
    b = x[pos, 4..7]
    y[pos, 0] = dotprod(a, b)
    y[pos, 1] = lerp(x[pos, 0], x[pos, 1], x[pos, 2])
    y[pos, 2] = sign(x[pos, 3])
    y[pos, 3] = saturate(x[pos, 4])
endfunction

function y = run_vectors(x : mat)
    y = zeros(size(x, 0), 4)
    parallel_do(size(x, 0), x, y, vector_kernel)
endfunction

function [y, line1, line2] = file_roundtrip(path : string, x : mat, textpath : string)
    f = fopen(path, "wb")
    fwrite(f, x, "float32")
    fclose(f)
    g = fopen(path, "rb")
    y = fread(g, size(x), "float32")
    fclose(g)
    t = fopen(textpath, "w")
    fprintf(t, "first %d\n", 7)
    fprintf(t, "second\n")
    fclose(t)
    t = fopen(textpath, "r")
    line1 = fgets(t)
    line2 = fgets(t)
    fclose(t)
endfunction

function t = types(s : scalar, n : int, v : vec, m : mat, c : ccube, str : string)
    t = [type(s, "scalar"), type(n, "int"), type(v, "vec"), type(v, "mat"), type(m, "mat"), type(c, "ccube"), type(str, "string"), type(s, "int")]
endfunction

function y = hermitian(z : cmat)
    y = herm_transpose(z)
endfunction

function [] = close_twice(path : string)
    f = fopen(path, "w")
    fclose(f)
    fclose(f)
endfunction

function [] = __kernel__ coord_kernel(x : vec[int], y : mat[int], z : mat, pos : int)
    v = x[pos]
    y[pos, 0] = mirror_ext(v, 5)
    y[pos, 1] = periodize(v, 5)
    y[pos, 2] = mirror_ext(v, 0)
    y[pos, 3] = periodize(v, -3)
    p = ind2pos([3, 4, 5], mod(v, 60))
    y[pos, 4] = p[0]
    y[pos, 5] = p[1]
    y[pos, 6] = p[2]
    y[pos, 7] = pos2ind([3, 4, 5], p)
    z[pos, 0] = mirror_ext(float(v) + 0.5, 4)
    z[pos, 1] = periodize(float(v) - 0.25, 4)
endfunction

function [y, z] = run_coords(x : vec[int])
    y = int(zeros(numel(x), 8))
    z = zeros(numel(x), 2)
    parallel_do(numel(x), x, y, z, coord_kernel)
endfunction

function [] = __kernel__ position_kernel(y : cube[int], pos : int)
    p = ind2pos(size(y), pos)
    y[p[0], p[1], p[2]] = pos2ind(size(y), p) + 1
endfunction

function y = run_positions(a : int, b : int, c : int)
    y = int(zeros(a, b, c))
    parallel_do(a * b * c, y, position_kernel)
endfunction

function [] = __kernel__ outside_kernel(y : vec[int], k : int, pos : int)
    p = ind2pos([2, 3], k + pos)
    y[pos] = p[0]
endfunction

function y = run_outside(k : int)
    y = int(zeros(2))
    parallel_do(2, y, k, outside_kernel)
endfunction

function [] = __kernel__ angle_kernel(c : cvec, r : vec, y : mat, pos : int)
    y[pos, 0] = angle(c[pos])
    y[pos, 1] = angle(r[pos])
endfunction

function y = run_angles(c : cvec, r : vec)
    y = zeros(numel(c), 2)
    parallel_do(numel(c), c, r, y, angle_kernel)
endfunction

function [a : string, b : string, c : string, d : string, e : string, f : string] = type_names(s : scalar, n : int, m : mat, q : cube[int], z : cscalar, str : string)
    a = type(s)
    b = type(n)
    c = type(m)
    d = type(q)
    e = type(z)
    f = type(str)
endfunction

function [a, s, n, t : string, first] = load_back(file : string, x : mat, k : int)
    save(file, x, "label", k)
    [a : mat, s : string, n : int] = load(file)
    [p, q, r] = load(file)
    t = strcat(type(p), ",", type(q), ",", type(r))
    first : mat = load(file)
endfunction

function s : string = load_as_string(file : string)
    s = load(file)
endfunction

function [n, first, last] = listing(pattern : string)
    files = dir(pattern)
    n = numel(files)
    first : string = files[0]
    last : string = files[n - 1]
endfunction

function [y, b, t : string, whole] = cells_roundtrip(x : mat)
    c = mat2cell(x, [1, 2], [3, 1])
    y : mat = cell2mat(c)
    b : mat = c[1, 0]
    t = type(c)
    whole : mat = cell2mat(mat2cell(x))
endfunction

function y : mat = cells_mismatch(x : mat)
    y = cell2mat({x, transpose(x)})
endfunction

function [] = __kernel__ shared_kernel(y : vec, pos : int, blkpos : int, blkdim : int)
    s = shared(blkdim)
    s[blkpos] = pos
    syncthreads
    y[pos] = s[blkdim - 1 - blkpos]
endfunction

function [] = __kernel__ plain_kernel(y : mat, pos : ivec2)
    y[pos] = pos[0] * 100 + pos[1]
endfunction

function [a, b, c, y, z] = block_sizes()
    a = max_block_size(shared_kernel, [4096])
    b = max_block_size(plain_kernel, [64, 64])
    c = max_block_size([64, 64])
    y = zeros(64, 64)
    parallel_do([size(y), b], y, plain_kernel)
    z = zeros(2048)
    parallel_do(2048, z, shared_kernel)
endfunction

function [] = __kernel__ stride_kernel(y : vec, pos : int, blkdim : int, blkcnt : int)
    i = pos
    while i < numel(y)
        y[i] = 2 * i
        i += blkdim * blkcnt
    endwhile
endfunction

function [] = __kernel__ block_probe(y : vec, pos : int, blkpos : int, blkdim : int)
    if pos < numel(y)
        y[pos] = blkdim * 1000 + blkpos
    endif
endfunction

function [a, b] = explicit_blocks(n : int, blk : int)
    a = zeros(n)
    % `[dims, blkdims]` with numbers, for a one-dimensional kernel.
    parallel_do([n, blk], a, block_probe)
    b = zeros(n)
    % `parallel_do(dims, blkdims, args…, kernel)`.
    parallel_do(n, 2 * blk, b, block_probe)
endfunction

function [blk, cnt, y, big, square, plain] = launch_choices(n : int, large : int)
    blk = opt_block_size(stride_kernel, n)
    cnt = opt_block_cnt(stride_kernel, blk, n)
    y = zeros(n)
    % The manual's §9.8.2 form; one-dimensional (the kernel's `pos : int`), in blocks of `blk`.
    parallel_do([cnt .* blk, blk], y, stride_kernel)
    big = opt_block_cnt(stride_kernel, blk, large)
    square = opt_block_size(stride_kernel)
    plain = opt_block_size(plain_kernel, [1080, 1920])
endfunction

function [nsm, arch, warp, threads, warps, blocks, shared] = device_features()
    nsm = gpu_feature("num_sm")
    arch = gpu_feature("cuda_arch")
    warp = gpu_feature("warp_size")
    threads = gpu_feature("max_threads_per_block")
    warps = gpu_feature("max_warps_per_sm")
    blocks = gpu_feature("max_blocks_per_sm")
    shared = gpu_feature("max_shared_mem_per_block")
endfunction

function v = named_feature(name : string)
    v = gpu_feature(name)
endfunction

function c = mismatched_count()
    c = opt_block_cnt(stride_kernel, [16, 32], [100])
endfunction

function [d, l, a] = host_numbers(u : vec, v : vec, t : scalar, z : cscalar)
    d = dotprod(u, v)
    l = lerp(u[0], v[0], t)
    a = angle(z)
endfunction
"# }
}

fn mat(m: usize, n: usize, v: &[f32]) -> Array<f32> {
    Array::from_vec(&[m, n], v.to_vec()).unwrap()
}

#[test]
fn strings_follow_c_and_matlab() {
    assert_eq!(lib::formatted(42, 1.23456, "v").unwrap(), "v: n=00042 x=1.235");
    assert_eq!(lib::joined("out", 7).unwrap(), "out_7.png");
    lib::say(3).unwrap();
    assert_eq!(lib::numbers("1.5,-2,1e3").unwrap().to_vec().unwrap(), vec![1.5, -2.0, 1000.0]);
    let (v, t) = lib::codes("HAL").unwrap();
    assert_eq!(v.to_vec().unwrap(), vec![72.0, 65.0, 76.0]);
    assert_eq!(t, "IBM");
    let e = lib::codes("€").unwrap_err().to_string();
    assert!(e.starts_with("`fromascii`"), "{e}");
}

/// The 2-D DFT by its definition, in f64.
fn dft2(m: usize, n: usize, x: &[f32]) -> Vec<Complex<f64>> {
    let mut out = vec![Complex::new(0.0, 0.0); m * n];
    for k in 0..m {
        for l in 0..n {
            for i in 0..m {
                for j in 0..n {
                    let a = -2.0
                        * std::f64::consts::PI
                        * ((i * k) as f64 / m as f64 + (j * l) as f64 / n as f64);
                    out[k * n + l] += Complex::from_polar(f64::from(x[i * n + j]), a);
                }
            }
        }
    }
    out
}

#[test]
fn ffts_match_the_definition() {
    let v: Vec<f32> = (0..12).map(|i| ((i * 5) % 7) as f32 - 2.0).collect();
    let x = mat(3, 4, &v);
    let y = lib::spectrum(&x).unwrap();
    assert_eq!(y.shape(), &[3, 4]);
    for (a, b) in y.to_vec().unwrap().iter().zip(dft2(3, 4, &v)) {
        assert!(
            (f64::from(a.re) - b.re).abs() < 1e-4 && (f64::from(a.im) - b.im).abs() < 1e-4,
            "{a} vs {b}"
        );
    }
    let back = lib::roundtrip(&x).unwrap().to_vec().unwrap();
    for (a, b) in back.iter().zip(&v) {
        assert!((a - b).abs() < 1e-5);
    }
    // fft1 of a matrix: each column (MATLAB's fft); a column of [1, 1, 1] gives [3, 0, 0].
    let c = lib::columns(&mat(3, 2, &[1.0, 0.0, 1.0, 1.0, 1.0, 0.0])).unwrap().to_vec().unwrap();
    let re: Vec<f32> = c.iter().map(|z| z.re).collect();
    assert!((re[0] - 3.0).abs() < 1e-6 && (re[1] - 1.0).abs() < 1e-6 && re[2].abs() < 1e-6);
}

#[test]
fn linear_algebra_matches_closed_forms() {
    // inv of [[a, b], [c, d]] = [[d, -b], [-c, a]] / (ad - bc).
    let (b, d) = lib::inverse(&mat(2, 2, &[4.0, 7.0, 2.0, 6.0])).unwrap();
    assert!((d - 10.0).abs() < 1e-5);
    let expect = [0.6, -0.7, -0.2, 0.4];
    for (g, e) in b.to_vec().unwrap().iter().zip(expect) {
        assert!((g - e).abs() < 1e-6, "{g} vs {e}");
    }
    // The singular values of diag(3, -2) are 3 and 2.
    let (u, s, v) = lib::decompose(&mat(2, 2, &[3.0, 0.0, 0.0, -2.0])).unwrap();
    let s = s.to_vec().unwrap();
    assert!((s[0] - 3.0).abs() < 1e-6 && (s[3] - 2.0).abs() < 1e-6 && s[1] == 0.0);
    assert_eq!((u.shape(), v.shape()), (&[2, 2][..], &[2, 2][..]));
    let x = lib::solve(
        &mat(2, 2, &[2.0, 1.0, 1.0, 3.0]),
        &Array::from_vec(&[2], vec![3.0, 5.0]).unwrap(),
    )
    .unwrap();
    let x = x.to_vec().unwrap();
    assert!((x[0] - 0.8).abs() < 1e-6 && (x[1] - 1.4).abs() < 1e-6);
    // chol([[4, 2], [2, 5]]) = [[2, 1], [0, 2]].
    let r = lib::factor(&mat(2, 2, &[4.0, 2.0, 2.0, 5.0])).unwrap().to_vec().unwrap();
    assert_eq!(r, vec![2.0, 1.0, 0.0, 2.0]);
    let e = lib::inverse(&mat(2, 2, &[1.0, 2.0, 2.0, 4.0])).unwrap_err().to_string();
    assert!(e.starts_with("`inv`: the matrix is singular"), "{e}");
}

#[test]
fn timing_display_and_figures() {
    // toc() returns milliseconds (what it prints; real code sums them as milliseconds).
    let t = lib::timed(15.0).unwrap();
    assert!(t >= 14.0, "{t}");
    let dir = tempfile_dir("figures");
    quasar::figure::set_output(Some(dir.clone()));
    let img = mat(2, 2, &[0.0, 1.0, 2.0, 4.0]);
    lib::show(&img, 0.0, 4.0).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    let shown = quasar::imread(dir.join(&files[0])).unwrap().to_vec().unwrap();
    // [0, 4] -> 0..255: 0, 63.75, 127.5, 255, rounded.
    assert_eq!(shown, vec![0.0, 64.0, 128.0, 255.0]);
    lib::plots(
        &Array::from_vec(&[3], vec![0.0, 5.0, 10.0]).unwrap(),
        &Array::from_vec(&[3], vec![1.0, 4.0, 2.0]).unwrap(),
    )
    .unwrap();
    let plot = quasar::figure::plot::current();
    assert_eq!((plot.title.as_str(), plot.xlabel.as_str(), plot.legend.len()), ("a line", "x", 1));
    assert!(std::fs::read_dir(&dir).unwrap().count() >= 3);
    quasar::figure::set_output(None);
}

fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("quasar-e2e-library-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn image_files_with_modes_and_ranges() {
    let dir = tempfile_dir("images");
    let p = dir.join("scaled.png");
    let p = p.to_str().unwrap();
    lib::write_scaled(p, &mat(1, 3, &[0.0, 1.0, 2.0])).unwrap();
    let g = lib::read_gray(p).unwrap();
    assert_eq!((g.shape(), g.to_vec().unwrap()), (&[1, 3][..], vec![0.0, 128.0, 255.0]));
    let q = dir.join("saved.qd");
    lib::store(q.to_str().unwrap(), &mat(1, 2, &[1.0, 2.0]), 5).unwrap();
    let v = quasar::files::load(&q).unwrap();
    assert!(matches!(&v[1], quasar::files::Saved::I32(a) if a.to_vec().unwrap() == vec![5]));
    assert!(matches!(&v[2], quasar::files::Saved::Str(s) if s == "label"));
}

#[test]
fn repmat_takes_scalar_dimensions_that_are_whole() {
    let y = lib::tile(&mat(1, 2, &[1.0, 2.0]), 3.0).unwrap();
    assert_eq!((y.shape(), y.to_vec().unwrap()), (&[3, 2][..], vec![1.0, 2.0, 1.0, 2.0, 1.0, 2.0]));
    let e = lib::tile(&mat(1, 2, &[1.0, 2.0]), 1.5).unwrap_err().to_string();
    assert_eq!(e, "`repmat`: the dimension 1.5 is not a whole number");
}

#[test]
fn factorial_positions_permutations_and_type_predicates() {
    let x = Array::from_fn(&[2, 3, 4], |k| k as f32).unwrap();
    let (f, p, i) = lib::shapes(5, &x).unwrap();
    assert_eq!(f, 120.0);
    // Row-major: 17 = 1 * 12 + 1 * 4 + 1.
    assert_eq!(p.to_vec().unwrap(), vec![1, 1, 1]);
    assert_eq!(i, 17);
    assert!(lib::shapes(-1, &x).unwrap_err().to_string().starts_with("`factorial`"));
    let y = lib::permuted(&x).unwrap();
    assert_eq!(y.shape(), &[4, 2, 3]);
    assert_eq!(y.get(&[3usize, 1, 2]).unwrap(), x.get(&[1usize, 2, 3]).unwrap());
    let v = Array::from_vec(&[2], vec![1.0f32, 2.0]).unwrap();
    let m = Array::from_vec(&[1, 2], vec![1.0f32, 2.0]).unwrap();
    let t = lib::predicates(1.0, Complex::new(0.0, 1.0), &v, &m, &x).unwrap().to_vec().unwrap();
    assert_eq!(t, vec![1, 1, 1, 1, 1, 1, 1, 0, 0]);
}

#[test]
fn bit_functions_on_the_host() {
    let a = 0b1011_0110;
    let b = 0b0110_0011;
    let y = lib::bits(a, b).unwrap().to_vec().unwrap();
    assert_eq!(y, vec![a & b, a | b, a ^ b, a << 3, a >> 2, !a]);
    let y = lib::bits(-8, 1).unwrap().to_vec().unwrap();
    assert_eq!((y[4], y[5]), (-2, 7));
}

fn bit_expect(x: &[i32]) -> Vec<i32> {
    x.iter()
        .flat_map(|&v| [v & 12, v | 5, v ^ 255, v.wrapping_shl(2), v >> 1, !v, i32::MAX, i32::MIN])
        .collect()
}

#[test]
fn bit_functions_and_limits_in_kernels_on_both_devices() {
    let x: Vec<i32> = vec![0, 1, 7, -1, -100, 12345, i32::MAX, i32::MIN];
    let xa = Array::from_vec(&[x.len()], x.clone()).unwrap();
    let cpu = common::on(quasar::SchedMode::Cpu, || lib::run_bits(&xa)).unwrap().to_vec().unwrap();
    assert_eq!(cpu, bit_expect(&x));
    let limits = common::on(quasar::SchedMode::Cpu, lib::run_limits).unwrap().to_vec().unwrap();
    assert_eq!(limits, vec![f32::MAX, f32::MIN]);
    if !gpu_or_skip("bit_functions_and_limits_in_kernels_on_both_devices") {
        return;
    }
    let (c, g) = both("bit_kernel", false, || lib::run_bits(&xa)?.to_vec()).unwrap();
    assert_eq!(c, g);
    let (c, g) = both("limit_kernel", false, || lib::run_limits()?.to_vec()).unwrap();
    assert_eq!(c, g);
}

/// Rows of 8 values: `dotprod` of the two halves, `lerp(x0, x1, x2)`, `sign(x3)`,
/// `saturate(x4)`, by their definitions.
fn vector_expect(x: &[f32]) -> Vec<f32> {
    x.chunks(8)
        .flat_map(|r| {
            let dot = (0..4).fold(0.0f64, |s, k| s + f64::from(r[k]) * f64::from(r[k + 4]));
            let lerp = f64::from(r[0]) + f64::from(r[2]) * (f64::from(r[1]) - f64::from(r[0]));
            let sign = if r[3] > 0.0 {
                1.0
            } else if r[3] < 0.0 {
                -1.0
            } else {
                0.0
            };
            [dot as f32, lerp as f32, sign, r[4].clamp(0.0, 1.0)]
        })
        .collect()
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
}

#[test]
fn dotprod_lerp_sign_saturate_in_kernels_on_both_devices() {
    let rows = 5;
    let x: Vec<f32> = (0..rows * 8).map(|k| ((k * 37 % 23) as f32 - 11.0) / 7.0).collect();
    let xa = mat(rows, 8, &x);
    let want = vector_expect(&x);
    let cpu =
        common::on(quasar::SchedMode::Cpu, || lib::run_vectors(&xa)).unwrap().to_vec().unwrap();
    assert!(close(&cpu, &want), "{cpu:?} vs {want:?}");
    if !gpu_or_skip("dotprod_lerp_sign_saturate_in_kernels_on_both_devices") {
        return;
    }
    let (_, g) = both("vector_kernel", false, || lib::run_vectors(&xa)?.to_vec()).unwrap();
    assert!(close(&g, &want), "{g:?} vs {want:?}");
}

#[test]
fn dotprod_lerp_and_angle_on_the_host() {
    let u = Array::from_vec(&[3], vec![1.0f32, -2.0, 0.5]).unwrap();
    let v = Array::from_vec(&[3], vec![4.0f32, 3.0, -6.0]).unwrap();
    let (d, l, a) = lib::host_numbers(&u, &v, 0.25, Complex::new(-1.0, 1.0)).unwrap();
    assert_eq!(d, 1.0 * 4.0 - 2.0 * 3.0 - 0.5 * 6.0);
    assert_eq!(l, 1.0 + 0.25 * (4.0 - 1.0));
    assert!((a - 3.0 * std::f32::consts::FRAC_PI_4).abs() < 1e-6, "{a}");
}

#[test]
fn files_through_identifiers_write_read_and_close() {
    let dir = tempfile_dir("files");
    let (bin, txt) = (dir.join("x.bin"), dir.join("x.txt"));
    let x = mat(2, 3, &[1.5, -2.0, 3.25, 0.0, 1e-3, 7.0]);
    let (y, l1, l2) =
        lib::file_roundtrip(bin.to_str().unwrap(), &x, txt.to_str().unwrap()).unwrap();
    assert_eq!((y.shape(), y.to_vec().unwrap()), (x.shape(), x.to_vec().unwrap()));
    // The bytes are the elements in row-major order as little-endian f32.
    let bytes = std::fs::read(&bin).unwrap();
    let want: Vec<u8> = x.to_vec().unwrap().iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(bytes, want);
    assert_eq!((l1.as_str(), l2.as_str()), ("first 7\n", "second\n"));
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), "first 7\nsecond\n");
    let e = lib::close_twice(dir.join("y.txt").to_str().unwrap()).unwrap_err().to_string();
    assert!(e.starts_with("`fclose`") && e.contains("not an open file"), "{e}");
}

#[test]
fn herm_transpose_conjugates_the_transpose() {
    let z: Vec<Complex<f32>> =
        (0..6).map(|k| Complex::new(k as f32, 1.0 - 2.0 * k as f32)).collect();
    let za = Array::from_vec(&[2, 3], z.clone()).unwrap();
    let y = lib::hermitian(&za).unwrap();
    assert_eq!(y.shape(), &[3, 2]);
    let y = y.to_vec().unwrap();
    for i in 0..2 {
        for j in 0..3 {
            assert_eq!(y[j * 2 + i], z[i * 3 + j].conj());
        }
    }
}

#[test]
fn type_with_a_name_follows_the_static_type() {
    let v = Array::from_vec(&[2], vec![1.0f32, 2.0]).unwrap();
    let m = mat(1, 2, &[1.0, 2.0]);
    let c = Array::from_vec(&[1, 1, 1], vec![Complex::new(1.0f32, 0.0)]).unwrap();
    let t = lib::types(1.0, 2, &v, &m, &c, "s").unwrap().to_vec().unwrap();
    // Manual §2.2: a vec is not a mat (ismatrix adds the vectors).
    assert_eq!(t, vec![1, 1, 1, 0, 1, 1, 1, 0]);
}

/// `mirror_ext(x, n)` by its definition (manual §2.4.1): the index reflected at both edges,
/// the edge element repeated (period 2n); `n <= 0` leaves it.
fn mirror_ref(x: i64, n: i64) -> i64 {
    if n <= 0 {
        return x;
    }
    let r = x.rem_euclid(2 * n);
    if r < n {
        r
    } else {
        2 * n - 1 - r
    }
}

/// `mod(x, n)` with the divisor's sign (MATLAB), `mod(x, 0) = x`.
fn mod_ref(x: i64, n: i64) -> i64 {
    if n == 0 {
        x
    } else {
        x - n * (x as f64 / n as f64).floor() as i64
    }
}

fn coord_expect(x: &[i32]) -> (Vec<i32>, Vec<f32>) {
    let (mut y, mut z) = (Vec::new(), Vec::new());
    for &v in x {
        let v = i64::from(v);
        let k = mod_ref(v, 60);
        let p = [k / 20, k / 5 % 4, k % 5];
        let row = [mirror_ref(v, 5), mod_ref(v, 5), v, mod_ref(v, -3), p[0], p[1], p[2], k];
        y.extend(row.iter().map(|&e| e as i32));
        // Float coordinates are truncated to integers first.
        z.push(mirror_ref((v as f64 + 0.5).trunc() as i64, 4) as f32);
        z.push(mod_ref((v as f64 - 0.25).trunc() as i64, 4) as f32);
    }
    (y, z)
}

#[test]
fn coordinates_and_positions_in_kernels_on_both_devices() {
    let x: Vec<i32> = vec![0, 3, 4, 5, 6, 9, 10, 14, -1, -2, -5, -6, -11, 59, 61, 1000, -1000];
    let xa = Array::from_vec(&[x.len()], x.clone()).unwrap();
    let run = || -> quasar::Result<(Vec<i32>, Vec<f32>)> {
        let (y, z) = lib::run_coords(&xa)?;
        Ok((y.to_vec()?, z.to_vec()?))
    };
    let cpu = common::on(quasar::SchedMode::Cpu, run).unwrap();
    assert_eq!(cpu, coord_expect(&x));
    let want: Vec<i32> = (1..=2 * 3 * 4).collect();
    let cube = || lib::run_positions(2, 3, 4)?.to_vec();
    assert_eq!(common::on(quasar::SchedMode::Cpu, cube).unwrap(), want);
    let e = common::on(quasar::SchedMode::Cpu, || lib::run_outside(5)).unwrap_err().to_string();
    assert!(e.contains("ind2pos"), "{e}");
    if !gpu_or_skip("coordinates_and_positions_in_kernels_on_both_devices") {
        return;
    }
    let (c, g) = both("coord_kernel", false, run).unwrap();
    assert_eq!(c, g);
    let (c, g) = both("position_kernel", false, cube).unwrap();
    assert_eq!(c, g);
    let e = common::on(quasar::SchedMode::Gpu, || lib::run_outside(5)).unwrap_err().to_string();
    assert!(e.contains("`ind2pos`") && e.contains("e2e_library.rs"), "{e}");
    let fine = common::on(quasar::SchedMode::Gpu, || lib::run_outside(3)).unwrap();
    assert_eq!(fine.to_vec().unwrap(), vec![1, 1]);
}

#[test]
fn angle_in_kernels_on_both_devices() {
    let c: Vec<Complex<f32>> = [(1.0, 0.0), (-1.0, 1.0), (0.0, -2.0), (-3.0, -0.5), (0.0, 0.0)]
        .iter()
        .map(|&(re, im)| Complex::new(re, im))
        .collect();
    let r = vec![2.0f32, -1.5, 0.0, -0.25, 7.0];
    let ca = Array::from_vec(&[c.len()], c.clone()).unwrap();
    let ra = Array::from_vec(&[r.len()], r.clone()).unwrap();
    let want: Vec<f32> = c
        .iter()
        .zip(&r)
        .flat_map(|(z, &x)| {
            let real = if x < 0.0 { std::f64::consts::PI } else { 0.0 };
            [f64::from(z.im).atan2(f64::from(z.re)) as f32, real as f32]
        })
        .collect();
    let run = || lib::run_angles(&ca, &ra)?.to_vec();
    let cpu = common::on(quasar::SchedMode::Cpu, run).unwrap();
    assert!(close(&cpu, &want), "{cpu:?} vs {want:?}");
    if !gpu_or_skip("angle_in_kernels_on_both_devices") {
        return;
    }
    let (_, g) = both("angle_kernel", false, run).unwrap();
    assert!(close(&g, &want), "{g:?} vs {want:?}");
}

#[test]
fn one_argument_type_names_the_type() {
    let m = mat(1, 2, &[1.0, 2.0]);
    let q = Array::from_vec(&[1, 1, 1], vec![3i32]).unwrap();
    let t = lib::type_names(1.0, 2, &m, &q, Complex::new(0.0, 1.0), "s").unwrap();
    // As the compiler prints types (`icube` is `cube[int]`).
    let want = ("scalar", "int", "mat", "icube", "cscalar", "string");
    assert_eq!((&*t.0, &*t.1, &*t.2, &*t.3, &*t.4, &*t.5), want);
}

#[test]
fn load_gives_the_saved_values_checked_against_their_targets() {
    let dir = tempfile_dir("load");
    let file = dir.join("v.qd");
    let x = mat(2, 3, &[1.5, -2.0, 3.25, 0.0, 1e-3, 7.0]);
    let (a, s, n, t, first) = lib::load_back(file.to_str().unwrap(), &x, 42).unwrap();
    assert_eq!((a.shape(), a.to_vec().unwrap()), (x.shape(), x.to_vec().unwrap()));
    assert_eq!((s.as_str(), n, t.as_str()), ("label", 42, "mat,string,int"));
    assert_eq!(first.to_vec().unwrap(), x.to_vec().unwrap());
    let e = lib::load_as_string(file.to_str().unwrap()).unwrap_err().to_string();
    assert!(e.contains("string") && e.contains("mat"), "{e}");
    let e = lib::load_as_string(dir.join("none.qd").to_str().unwrap()).unwrap_err().to_string();
    assert!(e.contains("none.qd"), "{e}");
}

#[test]
fn dir_lists_the_matching_files_sorted() {
    let dir = tempfile_dir("dir");
    for f in ["b.png", "a.png", "c.txt", "d.png"] {
        std::fs::write(dir.join(f), b"x").unwrap();
    }
    let (n, first, last) = lib::listing(dir.join("*.png").to_str().unwrap()).unwrap();
    assert_eq!((n, first.as_str(), last.as_str()), (3, "a.png", "d.png"));
}

#[test]
fn mat2cell_and_cell2mat_cut_and_join_blocks() {
    let x: Vec<f32> = (0..12).map(|k| k as f32).collect();
    let xa = mat(3, 4, &x);
    let (y, b, t, whole) = lib::cells_roundtrip(&xa).unwrap();
    assert_eq!((y.shape(), y.to_vec().unwrap()), (&[3, 4][..], x.clone()));
    // Rows 1..2, columns 0..2 of the row-major 3x4 matrix.
    assert_eq!(
        (b.shape(), b.to_vec().unwrap()),
        (&[2, 3][..], vec![4.0, 5.0, 6.0, 8.0, 9.0, 10.0])
    );
    assert_eq!((t.as_str(), whole.to_vec().unwrap()), ("mat[??]", x));
    let e = lib::cells_mismatch(&mat(2, 3, &[0.0; 6])).unwrap_err().to_string();
    assert!(e.starts_with("`cell2mat`"), "{e}");
}

#[test]
fn max_block_size_follows_the_device_and_the_kernel() {
    let want: Vec<f32> = (0..64 * 64).map(|k| ((k / 64) * 100 + k % 64) as f32).collect();
    // Each block reversed through shared memory (blocks of the size the runtime chose).
    let reversed = |z: &[f32]| {
        let b = z[0] as usize + 1;
        2048 % b == 0 && z.iter().enumerate().all(|(p, &v)| v as usize == p / b * b + b - 1 - p % b)
    };
    type Sizes = (i32, Vec<i32>, Vec<i32>, bool, bool);
    let run = || -> quasar::Result<Sizes> {
        let (a, b, c, y, z) = lib::block_sizes()?;
        Ok((a, b.to_vec()?, c.to_vec()?, y.to_vec()? == want, reversed(&z.to_vec()?)))
    };
    // The CPU: only block-sensitive kernels (and the form without a kernel) are limited.
    let cpu = common::on(quasar::SchedMode::Cpu, run).unwrap();
    assert_eq!(cpu, (1024, vec![64, 64], vec![16, 64], true, true));
    if !gpu_or_skip("max_block_size_follows_the_device_and_the_kernel") {
        return;
    }
    // The GPU: at most its threads per block, the first dimension shrunk first.
    let gpu = common::on(quasar::SchedMode::Gpu, run).unwrap();
    assert_eq!(gpu, (1024, vec![16, 64], vec![16, 64], true, true));
}

#[test]
fn explicit_block_sizes_of_one_dimensional_launches_on_both_devices() {
    let (n, blk) = (200usize, 32usize);
    let expect = |b: usize| (0..n).map(|i| (b * 1000 + i % b) as f32).collect::<Vec<f32>>();
    let run = || -> quasar::Result<(Vec<f32>, Vec<f32>)> {
        let (a, b) = lib::explicit_blocks(n as i32, blk as i32)?;
        Ok((a.to_vec()?, b.to_vec()?))
    };
    let check = |(a, b): (Vec<f32>, Vec<f32>)| {
        assert_eq!(a, expect(blk), "parallel_do([n, blk], …)");
        assert_eq!(b, expect(2 * blk), "parallel_do(n, 2 * blk, …)");
    };
    check(common::on(quasar::SchedMode::Cpu, run).unwrap());
    if gpu_or_skip("explicit_block_sizes_of_one_dimensional_launches_on_both_devices") {
        check(common::on(quasar::SchedMode::Gpu, run).unwrap());
    }
}

#[test]
fn opt_block_size_and_count_follow_the_device() {
    // Launched over `n` (a few blocks: the interpreted PTX is slow); the count for `large`
    // is only asked for.
    let (n, large) = (5000usize, 1usize << 22);
    let rt = quasar::Runtime::global();
    // Expected from the device's features (manual §9.11): blocks of `threads` threads that
    // fit on one multiprocessor, times the multiprocessors.
    let capacity = |threads: usize| -> usize {
        let (nsm, _, warp, max_threads, warps, blocks, _) = lib::device_features().unwrap();
        let [nsm, warp, max_threads, warps, blocks] =
            [nsm, warp, max_threads, warps, blocks].map(|v| v as usize);
        assert!(threads <= max_threads);
        nsm * blocks.min(warps / threads.div_ceil(warp))
    };
    let check = |gpu: bool| {
        let (blk, cnt, y, big, square, plain) =
            lib::launch_choices(n as i32, large as i32).unwrap();
        let (blk, cnt, big) = (blk as usize, cnt as usize, big as usize);
        // The runtime's own choice for one dimension: 256 threads (manual: "quite often 16×32"
        // in two dimensions, as `square` is).
        assert_eq!(blk, 256);
        // All blocks active at once: one per worker thread on the CPU.
        let most = if gpu { capacity(blk) } else { rayon::current_num_threads() };
        assert_eq!(cnt, n.div_ceil(blk).min(most), "gpu: {gpu}");
        assert_eq!(big, large.div_ceil(blk).min(most), "gpu: {gpu}");
        assert!(big < large.div_ceil(blk));
        let y = y.to_vec().unwrap();
        assert!(y.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32));
        assert_eq!(square.to_vec().unwrap(), [16, 32]);
        let plain = plain.to_vec().unwrap();
        if gpu {
            assert_eq!(plain, [16, 32]);
        } else {
            // Not block-sensitive: whole rows, a few thousand positions per block.
            assert_eq!(plain[1], 1920);
            assert!(plain[0] >= 1 && plain[0] * 1920 <= 1 << 16, "{plain:?}");
        }
    };
    common::on(quasar::SchedMode::Cpu, || check(false));
    let e = lib::mismatched_count().unwrap_err().to_string();
    assert!(e.contains("`opt_block_cnt`") && e.contains("differ"), "{e}");
    if rt.gpu().is_none() {
        // No GPU: the CPU as a device.
        let f = lib::device_features().unwrap();
        let workers = rayon::current_num_threads() as i32;
        assert_eq!(f, (workers, 0, 32, 1024, 32, 1, i32::MAX));
    }
    let e = lib::named_feature("speed").unwrap_err().to_string();
    assert!(e.contains("`gpu_feature`") && e.contains("max_blocks_per_sm"), "{e}");
    if !gpu_or_skip("opt_block_size_and_count_follow_the_device") {
        return;
    }
    let g = rt.gpu().unwrap();
    let (_, arch, warp, threads, warps, _, shared) = lib::device_features().unwrap();
    assert_eq!(warp as usize, g.backend().warp_size());
    assert_eq!(threads as usize, g.backend().max_threads_per_block());
    assert!(arch >= 300 && arch % 10 == 0 && warps * warp >= threads && shared >= 48 * 1024);
    if g.name().contains("simulated") {
        // The simulated device reports the sm_80 its PTX targets (an A100).
        assert_eq!(lib::device_features().unwrap(), (108, 800, 32, 1024, 64, 32, 48 * 1024));
        assert_eq!(lib::named_feature("max_shared_mem_per_sm").unwrap(), 164 * 1024);
    }
    common::on(quasar::SchedMode::Gpu, || check(true));
}
