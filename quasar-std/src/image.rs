//! Image files: Quasar's `imread` and `imwrite`.
//!
//! Images are [`Array<f32>`]s with values in **0..255** (the manual's range, whatever the
//! bit depth of the file), laid out row-major with the row (y) as dimension 0
//! (as every `Array`): element `(m, n, c)` of an `M x N x C` image is at linear index
//! `(m * N + n) * C + c`, with `m` the row from the top and `n` the column from the left.
//!
//! | file | [`imread`] | `imread_mode(…, "rgb")` | `"gray"` | `"rgba"` |
//! |---|---|---|---|---|
//! | grayscale (± alpha) | `M x N` | `M x N x 3` (gray replicated) | `M x N` | `M x N x 4` |
//! | color (± alpha) | `M x N x 3` | `M x N x 3` | `M x N` (luminance) | `M x N x 4` |
//!
//! * An alpha channel is dropped unless the mode is `"rgba"`; files without alpha read as
//!   opaque (alpha 255) in that mode.
//! * `"gray"` of a color file is the Rec. 601 luminance `0.299 R + 0.587 G + 0.114 B`,
//!   computed in `f32` and not rounded (a pixel with R = G = B gives exactly that value).
//! * 16-bit files are scaled to 0..255 by dividing by 257 (65535 → 255, and a 16-bit value
//!   `257 k` that came from the 8-bit value `k` reads as exactly `k`); floating-point files
//!   (TIFF) are taken to be in 0..1 and multiplied by 255, without clamping.
//! * The format of a file being read is detected from its contents, not its extension.
//!
//! [`imwrite`] writes `M x N` and `M x N x 1` arrays as 8-bit grayscale, `M x N x 3` as RGB
//! and `M x N x 4` as RGBA, rounding each value to the nearest integer and clamping it to
//! 0..255 (NaN is written as 0). The format follows the extension, case-insensitively.
//! [`imwrite_range`] is the manual's `imwrite(file, data, [minval, maxval])`.
//!
//! ## Formats and features
//!
//! | feature | imread | imwrite | crates |
//! |---|---|---|---|
//! | `png` (default) | PNG (8 and 16 bits, palette, gray, alpha) | `.png` | `png` |
//! | `jpeg` (default) | JPEG (gray, color, CMYK) | `.jpg`/`.jpeg` (quality 95, no alpha) | `zune-jpeg`, `jpeg-encoder` |
//! | `image-formats` | also TIFF, BMP, GIF, WebP, PNM, TGA, HDR, QOI, ICO | also `.tif`/`.tiff`, `.bmp` | `image` |
//!
//! PNG, TIFF and BMP round trips are exact for integer values in 0..255; BMP stores grayscale
//! as a palette image, which [`imread`] returns as `M x N x 3` (`imread_mode(…, "gray")` gives
//! `M x N`). A format whose feature is off is an error that names the feature.
//!
//! Every failure is an `Err`, never a panic:
//! * a file that cannot be opened or created, or whose contents cannot be decoded (corrupt,
//!   truncated, an unsupported format): [`Error::Io`], with the path and the reason (the
//!   `io::Error` kind is `NotFound`, `InvalidData`, `UnexpectedEof`, `Unsupported`, …);
//! * an unknown `imread_mode` mode: [`Error::Unsupported`];
//! * an extension `imwrite` does not know, or an empty value range for `imwrite_range`:
//!   [`Error::Io`] (kind `Unsupported` resp. `InvalidInput`) naming the path;
//! * an array `imwrite` cannot write (wrong number of dimensions or channels, empty, too
//!   large, RGBA to JPEG): [`Error::InvalidShape`], naming the shape and the path.

// A build without the PNG or JPEG feature leaves parts of the shared pipeline unused.
#![cfg_attr(not(all(feature = "png", feature = "jpeg")), allow(dead_code, unused_variables))]

use std::fmt;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use quasar_runtime::{Array, Error, Result};

#[cfg(feature = "image-formats")]
mod formats;
#[cfg(feature = "jpeg")]
mod jpeg;
#[cfg(feature = "png")]
mod png;
#[cfg(all(test, feature = "png"))]
mod tests;

/// The JPEG quality `imwrite` uses (1..=100).
pub const JPEG_QUALITY: u8 = 95;

/// Reads an image file as an `Array<f32>` with values in 0..255: `M x N` for a grayscale
/// file, `M x N x 3` (RGB) for a color file; an alpha channel is dropped.
/// See the [module documentation](self) for the details and [`imread_mode`] for the other
/// layouts.
///
/// ```no_run
/// let img = quasar_std::image::imread("photo.png")?;
/// let (rows, cols) = (img.size(0), img.size(1));
/// # let _ = (rows, cols);
/// # Ok::<(), quasar_runtime::Error>(())
/// ```
pub fn imread(path: impl AsRef<Path>) -> Result<Array<f32>> {
    read(path.as_ref(), Mode::Auto)
}

/// Quasar's `imread(file, mode)`: reads an image file with a fixed layout, whatever the file
/// holds:
/// * `"rgb"`: `M x N x 3` (a grayscale file is replicated to three channels; the manual's
///   `imread("image.tif", "rgb")` has type `cube(:,:,3)`);
/// * `"gray"`: `M x N`, the Rec. 601 luminance `0.299 R + 0.587 G + 0.114 B` of a color file;
/// * `"rgba"`: `M x N x 4`, alpha 255 where the file has no alpha channel;
/// * `"auto"`: the same as [`imread`].
///
/// Modes are case-insensitive; any other mode is an [`Error::Unsupported`].
pub fn imread_mode(path: impl AsRef<Path>, mode: &str) -> Result<Array<f32>> {
    let path = path.as_ref();
    let mode = Mode::parse(mode).ok_or_else(|| {
        Error::Unsupported(format!(
            "imread mode \"{mode}\" for `{}` (the modes are \"rgb\", \"gray\", \"rgba\" and \
             \"auto\")",
            path.display()
        ))
    })?;
    read(path, mode)
}

/// Quasar's `imwrite(file, data)`: writes `img` (values in 0..255, rounded and clamped; NaN
/// is written as 0) to `path` in the format of its extension: `M x N` or `M x N x 1` as
/// grayscale, `M x N x 3` as RGB, `M x N x 4` as RGBA. See the [module documentation](self).
pub fn imwrite(path: impl AsRef<Path>, img: &Array<f32>) -> Result<()> {
    write(path.as_ref(), img, 0.0, 1.0)
}

/// Quasar's `imwrite(file, data, [minval, maxval])`: like [`imwrite`], but maps the values
/// linearly so that `minval` becomes 0 and `maxval` becomes 255 (values outside are clamped).
/// `minval < maxval`, both finite, or it is an [`Error::Io`] of kind `InvalidInput`.
pub fn imwrite_range(
    path: impl AsRef<Path>,
    img: &Array<f32>,
    minval: f32,
    maxval: f32,
) -> Result<()> {
    let path = path.as_ref();
    let scale = 255.0 / (maxval - minval);
    let valid = minval < maxval && minval.is_finite() && maxval.is_finite() && scale.is_finite();
    if !valid {
        return Err(Error::io(
            path,
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "imwrite: the value range [{minval}, {maxval}] is empty or not finite \
                     (it needs minval < maxval)"
                ),
            ),
        ));
    }
    write(path, img, minval, scale)
}

/// The layout `imread` returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `M x N` for grayscale files, `M x N x 3` for color files.
    Auto,
    Rgb,
    Gray,
    Rgba,
}

impl Mode {
    fn parse(s: &str) -> Option<Mode> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Some(Mode::Auto),
            "rgb" => Some(Mode::Rgb),
            "gray" | "grey" => Some(Mode::Gray),
            "rgba" => Some(Mode::Rgba),
            _ => None,
        }
    }
}

/// Rec. 601 luminance weights.
const LUMA: [f32; 3] = [0.299, 0.587, 0.114];

/// The most bytes a decoder may allocate for one image.
const DECODE_LIMIT: usize = 512 << 20;

/// A decoded image: interleaved samples with `channels` per pixel (1 = L, 2 = LA, 3 = RGB,
/// 4 = RGBA), rows from the top.
struct Decoded {
    width: usize,
    height: usize,
    channels: usize,
    samples: Samples,
}

/// The samples of a [`Decoded`] image: 8- or 16-bit integers, or floats in 0..1.
enum Samples {
    U8(Vec<u8>),
    #[cfg(any(feature = "png", feature = "image-formats"))]
    U16(Vec<u16>),
    #[cfg(feature = "image-formats")]
    F32(Vec<f32>),
}

/// The formats a file's first bytes announce.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Signature {
    Png,
    Jpeg,
    Other,
}

fn signature(data: &[u8]) -> Signature {
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        Signature::Png
    } else if data.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Signature::Jpeg
    } else {
        Signature::Other
    }
}

/// A decoding failure: `kind` is `InvalidData`, `UnexpectedEof` (truncated) or `Unsupported`.
fn decode_failure(kind: io::ErrorKind, reason: impl fmt::Display) -> io::Error {
    let text = match kind {
        io::ErrorKind::UnexpectedEof => {
            format!("cannot decode the image: the file is truncated ({reason})")
        }
        io::ErrorKind::Unsupported => format!("unsupported image: {reason}"),
        _ => format!("cannot decode the image: {reason}"),
    };
    io::Error::new(kind, text)
}

/// What this build reads, for error messages.
fn readable_formats() -> String {
    let mut formats = Vec::new();
    if cfg!(feature = "png") {
        formats.push("PNG");
    }
    if cfg!(feature = "jpeg") {
        formats.push("JPEG");
    }
    if cfg!(feature = "image-formats") {
        formats.extend(["TIFF", "BMP", "GIF", "WebP", "PNM", "TGA", "HDR", "QOI", "ICO"]);
    }
    let read = match formats.split_last() {
        None => "no format".to_string(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    };
    let more = if cfg!(feature = "image-formats") {
        ""
    } else {
        "; the `image-formats` feature of quasar adds TIFF, BMP, GIF, WebP and more"
    };
    format!("imread reads {read}{more}")
}

/// The error for contents no enabled decoder recognises: a corrupt file when the extension
/// names a format this build reads, an unsupported format otherwise.
fn unrecognised(path: &Path) -> io::Error {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let claimed = match ext.as_deref() {
        Some("png") if cfg!(feature = "png") => Some("PNG"),
        Some("jpg" | "jpeg") if cfg!(feature = "jpeg") => Some("JPEG"),
        _ => None,
    };
    match claimed {
        Some(format) => decode_failure(
            io::ErrorKind::InvalidData,
            format!("the file does not start like a {format} file"),
        ),
        None => decode_failure(
            io::ErrorKind::Unsupported,
            format!("the format is not recognised ({})", readable_formats()),
        ),
    }
}

/// An error for a format whose feature is off.
#[cfg(not(all(feature = "png", feature = "jpeg")))]
fn not_enabled(format: &str, feature: &str) -> io::Error {
    decode_failure(
        io::ErrorKind::Unsupported,
        format!("{format} support is off (enable the `{feature}` feature of quasar)"),
    )
}

fn decode(path: &Path, data: &[u8]) -> io::Result<Decoded> {
    if data.is_empty() {
        return Err(decode_failure(io::ErrorKind::UnexpectedEof, "the file is empty"));
    }
    match signature(data) {
        #[cfg(feature = "png")]
        Signature::Png => png::decode(data),
        #[cfg(not(feature = "png"))]
        Signature::Png => Err(not_enabled("PNG", "png")),
        #[cfg(feature = "jpeg")]
        Signature::Jpeg => jpeg::decode(data),
        #[cfg(not(feature = "jpeg"))]
        Signature::Jpeg => Err(not_enabled("JPEG", "jpeg")),
        #[cfg(feature = "image-formats")]
        Signature::Other => formats::decode(data)?.ok_or_else(|| unrecognised(path)),
        #[cfg(not(feature = "image-formats"))]
        Signature::Other => Err(unrecognised(path)),
    }
}

fn read(path: &Path, mode: Mode) -> Result<Array<f32>> {
    let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let img = decode(path, &data).map_err(|e| Error::io(path, e))?;
    let (w, h) = (img.width, img.height);
    let has_color = img.channels >= 3;
    let (data, channels) = match mode {
        Mode::Auto if has_color => (convert(&img, Mode::Rgb), 3),
        Mode::Auto | Mode::Gray => (convert(&img, Mode::Gray), 1),
        Mode::Rgb => (convert(&img, Mode::Rgb), 3),
        Mode::Rgba => (convert(&img, Mode::Rgba), 4),
    };
    let shape: &[usize] = if channels == 1 { &[h, w] } else { &[h, w, channels] };
    Array::from_vec(shape, data)
}

/// The samples of `img` in the layout of `mode` (not `Auto`), scaled to 0..255.
fn convert(img: &Decoded, mode: Mode) -> Vec<f32> {
    const U16: f32 = 1.0 / 257.0;
    let ch = img.channels;
    match &img.samples {
        Samples::U8(s) => layout(s, ch, mode, f32::from),
        #[cfg(any(feature = "png", feature = "image-formats"))]
        Samples::U16(s) => layout(s, ch, mode, |v| f32::from(v) * U16),
        #[cfg(feature = "image-formats")]
        Samples::F32(s) => layout(s, ch, mode, |v| v * 255.0),
    }
}

/// Converts interleaved samples with `ch` channels (1 = L, 2 = LA, 3 = RGB, 4 = RGBA) to the
/// layout of `mode` (1, 3 or 4 channels), applying `f` to every sample.
fn layout<S: Copy>(src: &[S], ch: usize, mode: Mode, f: impl Fn(S) -> f32) -> Vec<f32> {
    let pixels = src.len() / ch;
    let out_ch = match mode {
        Mode::Auto | Mode::Gray => 1,
        Mode::Rgb => 3,
        Mode::Rgba => 4,
    };
    let mut out = Vec::with_capacity(pixels * out_ch);
    let px = src.chunks_exact(ch);
    let lum = |p: &[S]| {
        let (r, g, b) = (f(p[0]), f(p[1]), f(p[2]));
        // Gray pixels stay exact (the weights' sum is not exactly 1 in f32).
        if r == g && g == b {
            r
        } else {
            LUMA[0] * r + LUMA[1] * g + LUMA[2] * b
        }
    };
    match (out_ch, ch) {
        (1, 1) => out.extend(src.iter().map(|&v| f(v))),
        (1, 2) => out.extend(px.map(|p| f(p[0]))),
        (1, _) => out.extend(px.map(lum)),
        (3, 1 | 2) => px.for_each(|p| {
            let l = f(p[0]);
            out.extend_from_slice(&[l, l, l]);
        }),
        (3, _) => px.for_each(|p| out.extend_from_slice(&[f(p[0]), f(p[1]), f(p[2])])),
        (_, 1) => px.for_each(|p| {
            let l = f(p[0]);
            out.extend_from_slice(&[l, l, l, 255.0]);
        }),
        (_, 2) => px.for_each(|p| {
            let l = f(p[0]);
            out.extend_from_slice(&[l, l, l, f(p[1])]);
        }),
        (_, 3) => px.for_each(|p| out.extend_from_slice(&[f(p[0]), f(p[1]), f(p[2]), 255.0])),
        (_, _) => px.for_each(|p| out.extend_from_slice(&[f(p[0]), f(p[1]), f(p[2]), f(p[3])])),
    }
    out
}

/// A file format `imwrite` writes (those whose feature is on).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum OutFormat {
    #[cfg(feature = "png")]
    Png,
    #[cfg(feature = "jpeg")]
    Jpeg,
    #[cfg(feature = "image-formats")]
    Tiff,
    #[cfg(feature = "image-formats")]
    Bmp,
}

/// The output format for `path`'s extension, when this build can write it.
fn format_of(path: &Path) -> Result<OutFormat> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let feature: Option<&str> = match ext.as_deref() {
        #[cfg(feature = "png")]
        Some("png") => return Ok(OutFormat::Png),
        #[cfg(feature = "jpeg")]
        Some("jpg" | "jpeg") => return Ok(OutFormat::Jpeg),
        #[cfg(feature = "image-formats")]
        Some("tif" | "tiff") => return Ok(OutFormat::Tiff),
        #[cfg(feature = "image-formats")]
        Some("bmp") => return Ok(OutFormat::Bmp),
        // Formats of a feature that is off.
        #[cfg(not(feature = "png"))]
        Some("png") => Some("png"),
        #[cfg(not(feature = "jpeg"))]
        Some("jpg" | "jpeg") => Some("jpeg"),
        #[cfg(not(feature = "image-formats"))]
        Some("tif" | "tiff" | "bmp") => Some("image-formats"),
        _ => None,
    };
    let what = match path.extension() {
        Some(e) => format!("the extension `.{}`", e.to_string_lossy()),
        None => "a file name without an extension".to_string(),
    };
    let hint =
        feature.map(|f| format!(" (enable the `{f}` feature of quasar)")).unwrap_or_default();
    let mut writable = Vec::new();
    if cfg!(feature = "png") {
        writable.push(".png");
    }
    if cfg!(feature = "jpeg") {
        writable.push(".jpg/.jpeg");
    }
    if cfg!(feature = "image-formats") {
        writable.extend([".tif/.tiff", ".bmp"]);
    }
    let listed = if writable.is_empty() { "none".to_string() } else { writable.join(", ") };
    Err(Error::io(
        path,
        io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "imwrite cannot write {what}{hint}: the image formats of this build are {listed}"
            ),
        ),
    ))
}

/// Writes `img` to `path`, storing `(v - offset) * scale` rounded and clamped to 0..255.
fn write(path: &Path, img: &Array<f32>, offset: f32, scale: f32) -> Result<()> {
    let shape = img.shape();
    let bad_shape = |reason: String| Error::InvalidShape {
        shape: shape.to_vec(),
        reason: format!("imwrite cannot write it to `{}`: {reason}", path.display()),
    };
    let (h, w, channels) =
        match *shape {
            [h, w] | [h, w, 1] => (h, w, 1),
            [h, w, 3] => (h, w, 3),
            [h, w, 4] => (h, w, 4),
            _ => return Err(bad_shape(
                "an image is M x N or M x N x 1 (grayscale), M x N x 3 (RGB) or M x N x 4 (RGBA)"
                    .to_string(),
            )),
        };
    let format = format_of(path)?;
    if h == 0 || w == 0 {
        return Err(bad_shape("an image needs at least one row and one column".to_string()));
    }
    let (Ok(h32), Ok(w32)) = (u32::try_from(h), u32::try_from(w)) else {
        return Err(bad_shape(
            "the image is too large (more than 2^32 - 1 rows or columns)".into(),
        ));
    };
    #[cfg(feature = "jpeg")]
    if format == OutFormat::Jpeg {
        if channels == 4 {
            return Err(bad_shape(
                "JPEG has no alpha channel; write the first three channels (M x N x 3) or use \
                 .png"
                    .to_string(),
            ));
        }
        if h > 65535 || w > 65535 {
            return Err(bad_shape(
                "a JPEG image has at most 65535 rows and columns; use .png".to_string(),
            ));
        }
    }

    let bytes: Vec<u8> = {
        let view = img.host_view()?;
        if offset == 0.0 && scale == 1.0 {
            view.iter().map(|&v| to_u8(v)).collect()
        } else {
            view.iter().map(|&v| to_u8((v - offset) * scale)).collect()
        }
    };
    let pixels = Pixels { bytes: &bytes, width: w32, height: h32, channels };

    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = BufWriter::new(file);
    let encoded = encode(&mut out, &pixels, format);
    encoded.map_err(|e| match e {
        Encode::Io(e) => Error::io(path, e),
        Encode::Format(e) => Error::io(
            path,
            io::Error::other(format!("cannot encode the {} image: {e}", list(shape))),
        ),
    })?;
    out.flush().map_err(|e| Error::io(path, e))
}

fn encode(
    out: &mut BufWriter<std::fs::File>,
    pixels: &Pixels<'_>,
    format: OutFormat,
) -> EncodeResult {
    match format {
        #[cfg(feature = "png")]
        OutFormat::Png => png::encode(out, pixels),
        #[cfg(feature = "jpeg")]
        OutFormat::Jpeg => jpeg::encode(out, pixels),
        #[cfg(feature = "image-formats")]
        OutFormat::Tiff => formats::encode(out, pixels, ::image::ImageFormat::Tiff),
        #[cfg(feature = "image-formats")]
        OutFormat::Bmp => formats::encode(out, pixels, ::image::ImageFormat::Bmp),
    }
}

/// Writes `bytes` (`width x height` RGB pixels, rows from the top) as a PNG file.
#[cfg(feature = "plot")]
pub(crate) fn write_rgb8_png(path: &Path, width: u32, height: u32, bytes: &[u8]) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = BufWriter::new(file);
    let pixels = Pixels { bytes, width, height, channels: 3 };
    png::encode(&mut out, &pixels).map_err(|e| match e {
        Encode::Io(e) => Error::io(path, e),
        Encode::Format(e) => Error::io(path, io::Error::other(format!("cannot encode: {e}"))),
    })?;
    out.flush().map_err(|e| Error::io(path, e))
}

/// 8-bit pixels to encode: `channels` (1 = L, 3 = RGB, 4 = RGBA) interleaved, rows from the top.
struct Pixels<'a> {
    bytes: &'a [u8],
    width: u32,
    height: u32,
    channels: usize,
}

/// Why an encoder failed: writing, or the encoder's own reason.
enum Encode {
    Io(io::Error),
    Format(String),
}

type EncodeResult = std::result::Result<(), Encode>;

/// `v` rounded to the nearest integer (halves away from zero) and clamped to 0..255; NaN → 0.
#[inline]
fn to_u8(v: f32) -> u8 {
    if v.is_nan() {
        0
    } else {
        v.round().clamp(0.0, 255.0) as u8
    }
}

/// Formats a shape as `M x N x C`.
fn list(shape: &[usize]) -> String {
    shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(" x ")
}
