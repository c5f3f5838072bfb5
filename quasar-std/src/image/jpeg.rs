//! JPEG: `zune-jpeg` decodes (gray stays gray, everything else becomes RGB, as the `image`
//! crate does), `jpeg-encoder` encodes at [`JPEG_QUALITY`](super::JPEG_QUALITY).

use super::{decode_failure, Decoded, Encode, Pixels, Samples, DECODE_LIMIT, JPEG_QUALITY};
use jpeg_encoder::{ColorType, Encoder, EncodingError};
use std::io::{self, Write};
use zune_core::bytestream::ZCursor;
use zune_core::colorspace::ColorSpace;
use zune_core::options::DecoderOptions;
use zune_jpeg::errors::DecodeErrors;
use zune_jpeg::JpegDecoder;

pub(super) fn decode(data: &[u8]) -> io::Result<Decoded> {
    let options = DecoderOptions::default().set_strict_mode(false);
    let mut decoder = JpegDecoder::new_with_options(ZCursor::new(data), options);
    decoder.decode_headers().map_err(failure)?;
    let (width, height) = decoder
        .dimensions()
        .ok_or_else(|| decode_failure(io::ErrorKind::InvalidData, "the image has no dimensions"))?;
    let gray = matches!(decoder.input_colorspace(), Some(ColorSpace::Luma));
    let (space, channels) = if gray { (ColorSpace::Luma, 1) } else { (ColorSpace::RGB, 3) };
    if width.saturating_mul(height).saturating_mul(channels) > DECODE_LIMIT {
        return Err(decode_failure(
            io::ErrorKind::InvalidData,
            format!("the image is too large to decode ({width} x {height})"),
        ));
    }
    decoder.set_options(decoder.options().jpeg_set_out_colorspace(space));
    let pixels = decoder.decode().map_err(failure)?;
    Ok(Decoded { width, height, channels, samples: Samples::U8(pixels) })
}

fn failure(e: DecodeErrors) -> io::Error {
    match e {
        DecodeErrors::ExhaustedData => decode_failure(io::ErrorKind::UnexpectedEof, e),
        DecodeErrors::Unsupported(_) => decode_failure(io::ErrorKind::Unsupported, e),
        e => decode_failure(io::ErrorKind::InvalidData, e),
    }
}

pub(super) fn encode(out: &mut impl Write, px: &Pixels<'_>) -> Result<(), Encode> {
    let color = if px.channels == 1 { ColorType::Luma } else { ColorType::Rgb };
    // The caller checked that both fit in 16 bits.
    let (w, h) = (px.width as u16, px.height as u16);
    Encoder::new(out, JPEG_QUALITY).encode(px.bytes, w, h, color).map_err(|e| match e {
        EncodingError::IoError(e) => Encode::Io(e),
        e => Encode::Format(e.to_string()),
    })
}
