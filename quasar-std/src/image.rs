//! Image files: Quasar's `imread` and `imwrite`.
//!
//! Images are [`Array<f32>`]s with values in **0..255** (the manual's range, whatever the
//! bit depth of the file), laid out row-major with the row (y) as dimension 0
//! (ARCHITECTURE §4): element `(m, n, c)` of an `M x N x C` image is at linear index
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
//! * The format of a file being read is detected from its contents (the extension is only a
//!   fallback); PNG, JPEG, TIFF and BMP are supported.
//! * Decoding uses the `image` crate's default limits (512 MiB per allocation), so a corrupt
//!   header that claims a huge image is an error, not an out-of-memory abort.
//!
//! [`imwrite`] writes `M x N` and `M x N x 1` arrays as 8-bit grayscale, `M x N x 3` as RGB
//! and `M x N x 4` as RGBA, rounding each value to the nearest integer and clamping it to
//! 0..255 (NaN is written as 0). The format follows the extension, case-insensitively:
//! `.png`, `.jpg`/`.jpeg` (quality 95, no alpha), `.tif`/`.tiff`, `.bmp`. PNG, TIFF and BMP
//! round trips are exact for integer values in 0..255; BMP stores grayscale as a palette
//! image, which [`imread`] returns as `M x N x 3` (`imread_mode(…, "gray")` gives `M x N`).
//! [`imwrite_range`] is the manual's `imwrite(file, data, [minval, maxval])`.
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

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use ::image::codecs::jpeg::JpegEncoder;
use ::image::{
    DynamicImage, ExtendedColorType, ImageEncoder, ImageError, ImageFormat, ImageReader,
};
use quasar_runtime::{Array, Error, Result};

#[cfg(test)]
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

/// An error about the contents of `path` (it could not be decoded).
fn decode_error(path: &Path, e: ImageError) -> Error {
    let kind = match &e {
        ImageError::IoError(e) => e.kind(),
        ImageError::Unsupported(_) => io::ErrorKind::Unsupported,
        _ => io::ErrorKind::InvalidData,
    };
    Error::io(path, io::Error::new(kind, Reason(e)))
}

/// Wraps an `image` error so that the message reads "cannot decode …: <reason>".
#[derive(Debug)]
struct Reason(ImageError);

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            ImageError::Unsupported(e) => {
                write!(f, "unsupported image: {e} (imread reads PNG, JPEG, TIFF and BMP)")
            }
            ImageError::IoError(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                write!(f, "cannot decode the image: the file is truncated ({e})")
            }
            ImageError::Limits(e) => write!(f, "image too large to decode: {e}"),
            e => write!(f, "cannot decode the image: {e}"),
        }
    }
}

impl std::error::Error for Reason {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

fn read(path: &Path, mode: Mode) -> Result<Array<f32>> {
    let reader = ImageReader::open(path).map_err(|e| Error::io(path, e))?;
    let reader = reader.with_guessed_format().map_err(|e| Error::io(path, e))?;
    let img = reader.decode().map_err(|e| decode_error(path, e))?;
    let (w, h) = (img.width() as usize, img.height() as usize);
    let (data, channels) = match mode {
        Mode::Auto if img.color().has_color() => (convert(&img, Mode::Rgb), 3),
        Mode::Auto | Mode::Gray => (convert(&img, Mode::Gray), 1),
        Mode::Rgb => (convert(&img, Mode::Rgb), 3),
        Mode::Rgba => (convert(&img, Mode::Rgba), 4),
    };
    let shape: &[usize] = if channels == 1 { &[h, w] } else { &[h, w, channels] };
    Array::from_vec(shape, data)
}

/// The samples of `img` in the layout of `mode` (not `Auto`), scaled to 0..255.
fn convert(img: &DynamicImage, mode: Mode) -> Vec<f32> {
    const U16: f32 = 1.0 / 257.0;
    match img {
        DynamicImage::ImageLuma8(b) => layout(b.as_raw(), 1, mode, f32::from),
        DynamicImage::ImageLumaA8(b) => layout(b.as_raw(), 2, mode, f32::from),
        DynamicImage::ImageRgb8(b) => layout(b.as_raw(), 3, mode, f32::from),
        DynamicImage::ImageRgba8(b) => layout(b.as_raw(), 4, mode, f32::from),
        DynamicImage::ImageLuma16(b) => layout(b.as_raw(), 1, mode, |v| f32::from(v) * U16),
        DynamicImage::ImageLumaA16(b) => layout(b.as_raw(), 2, mode, |v| f32::from(v) * U16),
        DynamicImage::ImageRgb16(b) => layout(b.as_raw(), 3, mode, |v| f32::from(v) * U16),
        DynamicImage::ImageRgba16(b) => layout(b.as_raw(), 4, mode, |v| f32::from(v) * U16),
        DynamicImage::ImageRgb32F(b) => layout(b.as_raw(), 3, mode, |v| v * 255.0),
        DynamicImage::ImageRgba32F(b) => layout(b.as_raw(), 4, mode, |v| v * 255.0),
        // Layouts added to `image` later: through its own conversions.
        other if other.color().has_color() => {
            layout(other.to_rgba32f().as_raw(), 4, mode, |v| v * 255.0)
        }
        other => layout(other.to_luma_alpha32f().as_raw(), 2, mode, |v| v * 255.0),
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

/// The output format for `path`'s extension.
fn format_of(path: &Path) -> Result<ImageFormat> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("png") => Ok(ImageFormat::Png),
        Some("jpg" | "jpeg") => Ok(ImageFormat::Jpeg),
        Some("tif" | "tiff") => Ok(ImageFormat::Tiff),
        Some("bmp") => Ok(ImageFormat::Bmp),
        _ => {
            let what = match path.extension() {
                Some(e) => format!("the extension `.{}`", e.to_string_lossy()),
                None => "a file name without an extension".to_string(),
            };
            Err(Error::io(
                path,
                io::Error::new(
                    io::ErrorKind::Unsupported,
                    format!(
                        "imwrite cannot write {what}: the image formats are .png, .jpg/.jpeg, \
                         .tif/.tiff and .bmp"
                    ),
                ),
            ))
        }
    }
}

/// Writes `img` to `path`, storing `(v - offset) * scale` rounded and clamped to 0..255.
fn write(path: &Path, img: &Array<f32>, offset: f32, scale: f32) -> Result<()> {
    let shape = img.shape();
    let bad_shape = |reason: String| Error::InvalidShape {
        shape: shape.to_vec(),
        reason: format!("imwrite cannot write it to `{}`: {reason}", path.display()),
    };
    let (h, w, color) =
        match *shape {
            [h, w] | [h, w, 1] => (h, w, ExtendedColorType::L8),
            [h, w, 3] => (h, w, ExtendedColorType::Rgb8),
            [h, w, 4] => (h, w, ExtendedColorType::Rgba8),
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
    if format == ImageFormat::Jpeg && color == ExtendedColorType::Rgba8 {
        return Err(bad_shape(
            "JPEG has no alpha channel; write the first three channels (M x N x 3) or use .png"
                .to_string(),
        ));
    }

    let bytes: Vec<u8> = {
        let view = img.host_view()?;
        if offset == 0.0 && scale == 1.0 {
            view.iter().map(|&v| to_u8(v)).collect()
        } else {
            view.iter().map(|&v| to_u8((v - offset) * scale)).collect()
        }
    };

    let file = File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = BufWriter::new(file);
    let encoded = match format {
        ImageFormat::Jpeg => JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY)
            .write_image(&bytes, w32, h32, color),
        _ => ::image::write_buffer_with_format(&mut out, &bytes, w32, h32, color, format),
    };
    encoded.map_err(|e| match e {
        ImageError::IoError(e) => Error::io(path, e),
        e => Error::io(
            path,
            io::Error::other(format!("cannot encode the {} image: {e}", list(shape))),
        ),
    })?;
    out.flush().map_err(|e| Error::io(path, e))
}

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
