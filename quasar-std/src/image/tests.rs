//! Tests of `imread`/`imwrite`. Fixtures (8 x 6 RGB and grayscale images and friends) are
//! generated into temporary directories.

use super::*;
use std::path::PathBuf;

/// An `M x N x C` fixture whose values are all distinct-ish integers in 0..255.
fn fixture(shape: &[usize]) -> Array<f32> {
    Array::from_fn(shape, |i| ((i * 37 + 11) % 256) as f32).unwrap()
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Round trip through `name` in a temporary directory.
fn round_trip(a: &Array<f32>, name: &str) -> Array<f32> {
    let dir = tmp();
    let p = dir.path().join(name);
    imwrite(&p, a).unwrap();
    imread(&p).unwrap()
}

/// Writes a PNG with the `png` crate directly (color types and depths `imwrite` does not
/// produce); 16-bit samples are big-endian, as PNG stores them.
fn write_png(
    path: &Path,
    w: u32,
    h: u32,
    color: ::png::ColorType,
    depth: ::png::BitDepth,
    data: &[u8],
) {
    let file = std::fs::File::create(path).unwrap();
    let mut enc = ::png::Encoder::new(io::BufWriter::new(file), w, h);
    enc.set_color(color);
    enc.set_depth(depth);
    enc.write_header().unwrap().write_image_data(data).unwrap();
}

fn be16(samples: &[u16]) -> Vec<u8> {
    samples.iter().flat_map(|v| v.to_be_bytes()).collect()
}

fn values(a: &Array<f32>) -> Vec<f32> {
    a.to_vec().unwrap()
}

/// The bundled input image of the main example.
fn example_input() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/input.png")
}

#[test]
fn png_rgb_round_trip_is_exact() {
    let a = fixture(&[8, 6, 3]);
    let b = round_trip(&a, "rgb.png");
    assert_eq!(b.shape(), &[8, 6, 3]);
    assert_eq!(values(&b), values(&a));
}

#[test]
fn png_gray_round_trip_is_exact_and_two_dimensional() {
    let a = fixture(&[8, 6]);
    let b = round_trip(&a, "gray.png");
    assert_eq!(b.shape(), &[8, 6]);
    assert_eq!(values(&b), values(&a));
    // M x N x 1 is written as grayscale too and reads back as M x N.
    let c = round_trip(&a.reshape(&[8, 6, 1]).unwrap(), "gray1.png");
    assert_eq!(c.shape(), &[8, 6]);
    assert_eq!(values(&c), values(&a));
}

#[test]
fn png_rgba_round_trip_and_alpha_is_dropped_by_default() {
    let a = fixture(&[8, 6, 4]);
    let dir = tmp();
    let p = dir.path().join("rgba.png");
    imwrite(&p, &a).unwrap();
    let rgba = imread_mode(&p, "rgba").unwrap();
    assert_eq!(rgba.shape(), &[8, 6, 4]);
    assert_eq!(values(&rgba), values(&a));
    let rgb = imread(&p).unwrap();
    assert_eq!(rgb.shape(), &[8, 6, 3]);
    let expected: Vec<f32> = values(&a).chunks(4).flat_map(|p| p[..3].to_vec()).collect();
    assert_eq!(values(&rgb), expected);
}

#[test]
#[cfg(feature = "image-formats")]
fn tiff_and_bmp_round_trips_are_exact() {
    for name in ["x.tif", "x.tiff", "x.bmp", "X.PNG", "x.TiF"] {
        let a = fixture(&[8, 6, 3]);
        let b = round_trip(&a, name);
        assert_eq!(b.shape(), &[8, 6, 3], "{name}");
        assert_eq!(values(&b), values(&a), "{name}");
    }
    let a = fixture(&[8, 6]);
    let b = round_trip(&a, "gray.tif");
    assert_eq!(b.shape(), &[8, 6]);
    assert_eq!(values(&b), values(&a));
    let a = fixture(&[8, 6, 4]);
    for name in ["rgba.tif", "rgba.bmp"] {
        let dir = tmp();
        let p = dir.path().join(name);
        imwrite(&p, &a).unwrap();
        assert_eq!(values(&imread_mode(&p, "rgba").unwrap()), values(&a), "{name}");
    }
}

#[test]
#[cfg(feature = "image-formats")]
fn bmp_gray_reads_back_with_the_same_values() {
    // The BMP codec may store grayscale as a palette image; the values must survive either way.
    let a = fixture(&[8, 6]);
    let dir = tmp();
    let p = dir.path().join("gray.bmp");
    imwrite(&p, &a).unwrap();
    let b = imread_mode(&p, "gray").unwrap();
    assert_eq!(b.shape(), &[8, 6]);
    assert_eq!(values(&b), values(&a));
    // imread gives the palette's colors (gray, so R = G = B).
    let c = imread(&p).unwrap();
    assert_eq!(c.shape(), &[8, 6, 3]);
    let expected: Vec<f32> = values(&a).iter().flat_map(|&v| [v, v, v]).collect();
    assert_eq!(values(&c), expected);
}

#[test]
#[cfg(feature = "jpeg")]
fn jpeg_round_trip_is_close() {
    // A smooth image: JPEG at quality 95 keeps it within a few levels.
    let smooth = |shape: &[usize]| {
        let c = shape.get(2).copied().unwrap_or(1);
        let n = shape[1];
        Array::from_fn(shape, |i| {
            let (p, ch) = (i / c, i % c);
            let (m, x) = (p / n, p % n);
            (20 + 5 * m + 4 * x + 30 * ch) as f32
        })
        .unwrap()
    };
    for (shape, name) in [(&[16usize, 24, 3][..], "c.jpg"), (&[16, 24][..], "g.jpeg")] {
        let a = smooth(shape);
        let b = round_trip(&a, name);
        assert_eq!(b.shape(), shape, "{name}");
        let worst =
            values(&a).iter().zip(values(&b)).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
        assert!(worst <= 8.0, "{name}: max error {worst}");
    }
}

#[test]
fn layout_is_row_major_with_rows_first() {
    // 2 rows x 5 columns; only pixel (row 1, column 4) is red, only (row 0, column 1) green.
    let (n, c) = (5, 3);
    let a = Array::<f32>::zeros(&[2, n, c]).unwrap();
    {
        let mut v = a.host_view_mut().unwrap();
        v[(n + 4) * c] = 255.0; // (m, n, c) = (1, 4, 0) at (m * N + n) * C + c
        v[c + 1] = 200.0; // (0, 1, 1)
    }
    assert_eq!(a.get(&[1usize, 4, 0]).unwrap(), 255.0);
    assert_eq!(a.get(&[0usize, 1, 1]).unwrap(), 200.0);
    let dir = tmp();
    let p = dir.path().join("layout.png");
    imwrite(&p, &a).unwrap();
    // Decode independently: the file is 5 wide and 2 high, with x the column and y the row.
    let decoder = ::png::Decoder::new(io::BufReader::new(std::fs::File::open(&p).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height, info.color_type), (5, 2, ::png::ColorType::Rgb));
    let pixel = |x: usize, y: usize| &buf[(y * 5 + x) * 3..][..3];
    assert_eq!(pixel(4, 1), [255, 0, 0]);
    assert_eq!(pixel(1, 0), [0, 200, 0]);
    assert_eq!(pixel(0, 0), [0, 0, 0]);
    let b = imread(&p).unwrap();
    assert_eq!(b.get(&[1usize, 4, 0]).unwrap(), 255.0);
    assert_eq!(b.get(&[0usize, 1, 1]).unwrap(), 200.0);
}

#[test]
fn modes_gray_rgb_rgba() {
    let dir = tmp();
    let color = dir.path().join("color.png");
    let gray = dir.path().join("gray.png");
    let a = fixture(&[8, 6, 3]);
    let g = fixture(&[8, 6]);
    imwrite(&color, &a).unwrap();
    imwrite(&gray, &g).unwrap();

    // "gray" of a color file: Rec. 601 luminance, not rounded.
    let lum = imread_mode(&color, "gray").unwrap();
    assert_eq!(lum.shape(), &[8, 6]);
    let expected: Vec<f32> =
        values(&a).chunks(3).map(|p| 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]).collect();
    assert_eq!(values(&lum), expected);
    // "gray" of a gray file: unchanged.
    assert_eq!(values(&imread_mode(&gray, "GRAY").unwrap()), values(&g));

    // "rgb" of a gray file: replicated; of a color file: the same as imread.
    let rgb = imread_mode(&gray, "rgb").unwrap();
    assert_eq!(rgb.shape(), &[8, 6, 3]);
    let expected: Vec<f32> = values(&g).iter().flat_map(|&v| [v, v, v]).collect();
    assert_eq!(values(&rgb), expected);
    assert_eq!(values(&imread_mode(&color, "rgb").unwrap()), values(&a));

    // "rgba" without alpha in the file: opaque.
    let rgba = imread_mode(&color, "rgba").unwrap();
    assert_eq!(rgba.shape(), &[8, 6, 4]);
    let expected: Vec<f32> = values(&a).chunks(3).flat_map(|p| [p[0], p[1], p[2], 255.0]).collect();
    assert_eq!(values(&rgba), expected);
    let rgba = imread_mode(&gray, "rgba").unwrap();
    let expected: Vec<f32> = values(&g).iter().flat_map(|&v| [v, v, v, 255.0]).collect();
    assert_eq!(values(&rgba), expected);

    // "auto" is imread.
    assert_eq!(imread_mode(&gray, "auto").unwrap().shape(), &[8, 6]);
    assert_eq!(imread_mode(&color, "auto").unwrap().shape(), &[8, 6, 3]);
}

#[test]
fn gray_alpha_file_reads_as_gray_without_alpha() {
    let dir = tmp();
    let p = dir.path().join("la.png");
    let data: Vec<u8> =
        (0..2u8).flat_map(|y| (0..3u8).flat_map(move |x| [10 * x + y, 7])).collect();
    write_png(&p, 3, 2, ::png::ColorType::GrayscaleAlpha, ::png::BitDepth::Eight, &data);
    let a = imread(&p).unwrap();
    assert_eq!(a.shape(), &[2, 3]);
    assert_eq!(values(&a), vec![0.0, 10.0, 20.0, 1.0, 11.0, 21.0]);
    let rgba = imread_mode(&p, "rgba").unwrap();
    assert_eq!(rgba.shape(), &[2, 3, 4]);
    assert_eq!(&values(&rgba)[4..8], &[10.0, 10.0, 10.0, 7.0]);
}

#[test]
fn sixteen_bit_files_are_scaled_to_0_255() {
    let dir = tmp();
    let p = dir.path().join("g16.png");
    let samples: [u16; 4] = [0, 257 * 100, 65535, 1000];
    write_png(&p, 2, 2, ::png::ColorType::Grayscale, ::png::BitDepth::Sixteen, &be16(&samples));
    let a = imread(&p).unwrap();
    assert_eq!(a.shape(), &[2, 2]);
    let v = values(&a);
    assert_eq!(&v[..3], &[0.0, 100.0, 255.0]);
    assert!((v[3] - 1000.0 / 257.0).abs() < 1e-4, "{}", v[3]);

    let p = dir.path().join("rgb16.png");
    let rgb = be16(&[65535, 0, 25700]);
    write_png(&p, 1, 1, ::png::ColorType::Rgb, ::png::BitDepth::Sixteen, &rgb);
    let a = imread(&p).unwrap();
    assert_eq!(a.shape(), &[1, 1, 3]);
    assert_eq!(values(&a), vec![255.0, 0.0, 100.0]);
}

#[test]
fn imwrite_rounds_and_clamps() {
    let input = [-5.0, 0.49, 0.5, 1.5, 2.5, 127.4, 254.5, 300.0, f32::NAN, f32::INFINITY];
    let expected = [0.0, 0.0, 1.0, 2.0, 3.0, 127.0, 255.0, 255.0, 0.0, 255.0];
    let mut data = input.to_vec();
    data.extend([f32::NEG_INFINITY, 255.0]);
    let mut want = expected.to_vec();
    want.extend([0.0, 255.0]);
    let a = Array::from_vec(&[3, 4], data).unwrap();
    let b = round_trip(&a, "clamp.png");
    assert_eq!(values(&b), want);
}

#[test]
fn imwrite_range_maps_min_max_to_0_255() {
    let a = Array::from_vec(&[1, 5], vec![-1.0, -0.5, 0.0, 1.0, 2.0]).unwrap();
    let dir = tmp();
    let p = dir.path().join("range.png");
    imwrite_range(&p, &a, -1.0, 1.0).unwrap();
    assert_eq!(values(&imread(&p).unwrap()), vec![0.0, 64.0, 128.0, 255.0, 255.0]);
    for (lo, hi) in [(1.0, 1.0), (2.0, 1.0), (f32::NAN, 1.0), (0.0, f32::INFINITY)] {
        let e = imwrite_range(&p, &a, lo, hi).unwrap_err();
        assert!(matches!(e, Error::Io { .. }), "{e}");
        assert!(e.to_string().contains("range.png") && e.to_string().contains("range"), "{e}");
    }
}

#[test]
fn missing_file_is_an_io_error_with_the_path() {
    let dir = tmp();
    let p = dir.path().join("does-not-exist.png");
    let e = imread(&p).unwrap_err();
    match &e {
        Error::Io { path, source } => {
            assert_eq!(path, &p);
            assert_eq!(source.kind(), io::ErrorKind::NotFound);
        }
        other => panic!("expected Error::Io, got {other:?}"),
    }
    assert!(e.to_string().contains("does-not-exist.png"), "{e}");
}

#[test]
fn corrupt_files_are_errors_not_panics() {
    let dir = tmp();
    // Random bytes under a .png name.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let junk: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let p = dir.path().join("x.png");
    std::fs::write(&p, &junk).unwrap();
    let e = imread(&p).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("x.png") && msg.contains("decode"), "{msg}");

    // A valid PNG cut short.
    let good = dir.path().join("good.png");
    imwrite(&good, &fixture(&[64, 64, 3])).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.path().join("truncated.png");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = imread(&cut).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("truncated.png") && msg.contains("decode"), "{msg}");

    // An empty file and a PNG signature with nothing after it, under other names.
    for (name, data) in [
        ("empty.png", &b""[..]),
        ("sig.jpg", &b"\x89PNG\r\n\x1a\n"[..]),
        ("text.tif", &b"hello"[..]),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, data).unwrap();
        let e = imread(&p).unwrap_err();
        assert!(e.to_string().contains(name), "{e}");
    }
    // A directory is not an image either.
    assert!(imread(dir.path()).is_err());
}

#[test]
#[cfg(not(feature = "image-formats"))]
fn unsupported_input_format_is_an_error() {
    // A GIF (the codec is not enabled) is reported as unsupported, with the path.
    let dir = tmp();
    let p = dir.path().join("anim.gif");
    std::fs::write(&p, b"GIF89a\x01\x00\x01\x00\x00\x00\x00;").unwrap();
    let e = imread(&p).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("anim.gif") && msg.contains("unsupported"), "{msg}");
    assert!(msg.contains("the `image-formats` feature of quasar adds TIFF"), "{msg}");
}

#[test]
#[cfg(not(feature = "image-formats"))]
fn writing_a_format_whose_feature_is_off_names_the_feature() {
    let dir = tmp();
    let p = dir.path().join("x.tif");
    let e = imwrite(&p, &fixture(&[8, 6])).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "imwrite cannot write the extension `.tif` (enable the `image-formats` feature of \
             quasar): the image formats of this build are .png, .jpg/.jpeg"
        ),
        "{e}"
    );
    assert!(!p.exists());
}

#[test]
fn a_palette_png_reads_as_rgb() {
    let dir = tmp();
    let p = dir.path().join("pal.png");
    let file = std::fs::File::create(&p).unwrap();
    let mut enc = ::png::Encoder::new(io::BufWriter::new(file), 2, 1);
    enc.set_color(::png::ColorType::Indexed);
    enc.set_depth(::png::BitDepth::Eight);
    enc.set_palette(vec![10, 20, 30, 200, 100, 0]);
    enc.write_header().unwrap().write_image_data(&[1, 0]).unwrap();
    let a = imread(&p).unwrap();
    assert_eq!(a.shape(), &[1, 2, 3]);
    assert_eq!(values(&a), vec![200.0, 100.0, 0.0, 10.0, 20.0, 30.0]);
}

#[test]
fn unsupported_extension_is_an_error() {
    let dir = tmp();
    let a = fixture(&[8, 6, 3]);
    for name in ["out.gif", "out.webp", "out", "out.png.txt"] {
        let p = dir.path().join(name);
        let e = imwrite(&p, &a).unwrap_err();
        match &e {
            Error::Io { path, source } => {
                assert_eq!(path, &p);
                assert_eq!(source.kind(), io::ErrorKind::Unsupported);
            }
            other => panic!("expected Error::Io, got {other:?}"),
        }
        assert!(e.to_string().contains(".png"), "{e}");
        assert!(!p.exists(), "{name} must not be created");
    }
}

#[test]
fn wrong_shapes_are_errors_naming_path_and_shape() {
    let dir = tmp();
    let p = dir.path().join("bad.png");
    let cases: [&[usize]; 6] = [&[8, 6, 2], &[8, 6, 5], &[48], &[2, 4, 6, 3], &[0, 6], &[8, 0, 3]];
    for shape in cases {
        let a = Array::<f32>::zeros(shape).unwrap();
        let e = imwrite(&p, &a).unwrap_err();
        match &e {
            Error::InvalidShape { shape: s, reason } => {
                assert_eq!(s, shape);
                assert!(reason.contains("bad.png"), "{reason}");
            }
            other => panic!("expected Error::InvalidShape for {shape:?}, got {other:?}"),
        }
        assert!(!p.exists());
    }
    let e = imwrite(&p, &Array::<f32>::zeros(&[8, 6, 2]).unwrap()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "invalid shape [8, 6, 2]: imwrite cannot write it to `{}`: an image is M x N or \
             M x N x 1 (grayscale), M x N x 3 (RGB) or M x N x 4 (RGBA)",
            p.display()
        )
    );
    // JPEG has no alpha.
    let e = imwrite(dir.path().join("a.jpg"), &fixture(&[8, 6, 4])).unwrap_err();
    assert!(matches!(e, Error::InvalidShape { .. }) && e.to_string().contains("alpha"), "{e}");
}

#[test]
fn unwritable_path_is_an_io_error() {
    let dir = tmp();
    let p = dir.path().join("no-such-dir").join("out.png");
    let e = imwrite(&p, &fixture(&[8, 6])).unwrap_err();
    match &e {
        Error::Io { path, .. } => assert_eq!(path, &p),
        other => panic!("expected Error::Io, got {other:?}"),
    }
}

#[test]
fn unknown_mode_is_an_error() {
    let e = imread_mode("whatever.png", "cmyk").unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("cmyk") && msg.contains("whatever.png") && msg.contains("rgba"), "{msg}");
}

#[test]
fn example_input_image_is_512_by_512_rgb() {
    let a = imread(example_input()).unwrap();
    assert_eq!(a.shape(), &[512, 512, 3]);
    let v = values(&a);
    assert!(v.iter().all(|&x| (0.0..=255.0).contains(&x) && x.fract() == 0.0));
    // Not flat: it has dark and bright areas, and every channel varies.
    for c in 0..3 {
        let ch: Vec<f32> = v.iter().skip(c).step_by(3).copied().collect();
        let (lo, hi) = ch.iter().fold((255f32, 0f32), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        assert!(lo < 40.0 && hi > 215.0, "channel {c}: {lo}..{hi}");
    }
    let gray = imread_mode(example_input(), "gray").unwrap();
    assert_eq!(gray.shape(), &[512, 512]);
}
