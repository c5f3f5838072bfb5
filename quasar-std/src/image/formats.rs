//! The other formats, through the `image` crate (feature `image-formats`).

use super::{decode_failure, Decoded, Encode, Pixels, Samples};
use ::image::{DynamicImage, ExtendedColorType, ImageError, ImageFormat, ImageReader};
use std::io::{self, Cursor, Write};

/// The decoded image, or `None` when no format of the `image` crate recognises the contents.
pub(super) fn decode(data: &[u8]) -> io::Result<Option<Decoded>> {
    let reader = ImageReader::new(Cursor::new(data)).with_guessed_format()?;
    if reader.format().is_none() {
        return Ok(None);
    }
    let img = reader.decode().map_err(failure)?;
    let (width, height) = (img.width() as usize, img.height() as usize);
    let (channels, samples) = match img {
        DynamicImage::ImageLuma8(b) => (1, Samples::U8(b.into_raw())),
        DynamicImage::ImageLumaA8(b) => (2, Samples::U8(b.into_raw())),
        DynamicImage::ImageRgb8(b) => (3, Samples::U8(b.into_raw())),
        DynamicImage::ImageRgba8(b) => (4, Samples::U8(b.into_raw())),
        DynamicImage::ImageLuma16(b) => (1, Samples::U16(b.into_raw())),
        DynamicImage::ImageLumaA16(b) => (2, Samples::U16(b.into_raw())),
        DynamicImage::ImageRgb16(b) => (3, Samples::U16(b.into_raw())),
        DynamicImage::ImageRgba16(b) => (4, Samples::U16(b.into_raw())),
        DynamicImage::ImageRgb32F(b) => (3, Samples::F32(b.into_raw())),
        DynamicImage::ImageRgba32F(b) => (4, Samples::F32(b.into_raw())),
        // Layouts added to `image` later: through its own conversions.
        other if other.color().has_color() => (4, Samples::F32(other.to_rgba32f().into_raw())),
        other => (2, Samples::F32(other.to_luma_alpha32f().into_raw())),
    };
    Ok(Some(Decoded { width, height, channels, samples }))
}

fn failure(e: ImageError) -> io::Error {
    match e {
        ImageError::IoError(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            decode_failure(io::ErrorKind::UnexpectedEof, e)
        }
        ImageError::IoError(e) => decode_failure(e.kind(), e),
        ImageError::Unsupported(e) => decode_failure(
            io::ErrorKind::Unsupported,
            format!("{e} ({})", super::readable_formats()),
        ),
        ImageError::Limits(e) => {
            decode_failure(io::ErrorKind::InvalidData, format!("image too large to decode: {e}"))
        }
        e => decode_failure(io::ErrorKind::InvalidData, e),
    }
}

pub(super) fn encode(
    out: &mut (impl Write + io::Seek),
    px: &Pixels<'_>,
    format: ImageFormat,
) -> Result<(), Encode> {
    let color = match px.channels {
        1 => ExtendedColorType::L8,
        3 => ExtendedColorType::Rgb8,
        _ => ExtendedColorType::Rgba8,
    };
    ::image::write_buffer_with_format(out, px.bytes, px.width, px.height, color, format).map_err(
        |e| match e {
            ImageError::IoError(e) => Encode::Io(e),
            e => Encode::Format(e.to_string()),
        },
    )
}
