//! PNG through the `png` crate: every color type and bit depth in, 8-bit L/RGB/RGBA out.

use super::{decode_failure, Decoded, Encode, Pixels, Samples, DECODE_LIMIT};
use ::png::{BitDepth, ColorType, Decoder, DecodingError, Encoder, EncodingError, Transformations};
use std::io::{self, Cursor, Write};

pub(super) fn decode(data: &[u8]) -> io::Result<Decoded> {
    let mut decoder =
        Decoder::new_with_limits(Cursor::new(data), ::png::Limits { bytes: DECODE_LIMIT });
    // Palettes become RGB(A), gray below 8 bits becomes 8 bits, tRNS becomes alpha; 16-bit
    // samples stay 16-bit.
    decoder.set_transformations(Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(failure)?;
    let size = reader.output_buffer_size().ok_or_else(|| {
        decode_failure(io::ErrorKind::InvalidData, "the image is too large to decode")
    })?;
    if size > DECODE_LIMIT {
        return Err(decode_failure(
            io::ErrorKind::InvalidData,
            format!("the image is too large to decode ({size} bytes)"),
        ));
    }
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(failure)?;
    buf.truncate(info.buffer_size());
    let channels = match info.color_type {
        ColorType::Grayscale => 1,
        ColorType::GrayscaleAlpha => 2,
        ColorType::Rgb => 3,
        ColorType::Rgba => 4,
        ColorType::Indexed => {
            return Err(decode_failure(io::ErrorKind::InvalidData, "an unexpanded palette"))
        }
    };
    let samples = match info.bit_depth {
        BitDepth::Sixteen => {
            Samples::U16(buf.chunks_exact(2).map(|b| u16::from_be_bytes([b[0], b[1]])).collect())
        }
        BitDepth::Eight => Samples::U8(buf),
        other => {
            return Err(decode_failure(
                io::ErrorKind::InvalidData,
                format!("an unexpanded bit depth {}", other as u8),
            ))
        }
    };
    Ok(Decoded { width: info.width as usize, height: info.height as usize, channels, samples })
}

fn failure(e: DecodingError) -> io::Error {
    match e {
        DecodingError::IoError(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            decode_failure(io::ErrorKind::UnexpectedEof, e)
        }
        DecodingError::LimitsExceeded => decode_failure(
            io::ErrorKind::InvalidData,
            format!("the image is too large to decode (more than {DECODE_LIMIT} bytes)"),
        ),
        e => decode_failure(io::ErrorKind::InvalidData, e),
    }
}

pub(super) fn encode(out: &mut impl Write, px: &Pixels<'_>) -> Result<(), Encode> {
    let mut encoder = Encoder::new(out, px.width, px.height);
    encoder.set_color(match px.channels {
        1 => ColorType::Grayscale,
        3 => ColorType::Rgb,
        _ => ColorType::Rgba,
    });
    encoder.set_depth(BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(encode_failure)?;
    writer.write_image_data(px.bytes).map_err(encode_failure)?;
    writer.finish().map_err(encode_failure)
}

fn encode_failure(e: EncodingError) -> Encode {
    match e {
        EncodingError::IoError(e) => Encode::Io(e),
        e => Encode::Format(e.to_string()),
    }
}
