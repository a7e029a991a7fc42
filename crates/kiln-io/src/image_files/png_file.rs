//! PNG files of images at 8 or 16 bits, stating their colour space in chunks, and the
//! colour space a PNG file states.

use super::colour_space::{ColorSpace, rgba8, rgba16};
use image::error::{EncodingError, ImageError, ImageFormatHint, LimitError, LimitErrorKind};
use kiln_image::image::Image;

/// `gAMA` of sRGB files as PNG writes it (1 / 2.2, scaled by 100 000).
const SRGB_GAMMA: u32 = 45_455;
/// `gAMA` of linear values: 1.0.
const LINEAR_GAMMA: u32 = 100_000;

/// State `space` in the chunks `enc` writes: `sRGB` (perceptual intent) with the `gAMA`
/// and `cHRM` of sRGB for readers that know only those, or `gAMA` 1.0 for data.
pub(crate) fn tag<W: std::io::Write>(enc: &mut png::Encoder<'_, W>, space: ColorSpace) {
    use png::{ScaledFloat as S, SourceChromaticities};
    match space {
        ColorSpace::Srgb => {
            enc.set_source_gamma(S::from_scaled(SRGB_GAMMA));
            // The primaries and white point of sRGB (Rec. 709, D65), scaled by 100 000.
            let xy = |x, y| (S::from_scaled(x), S::from_scaled(y));
            enc.set_source_chromaticities(SourceChromaticities {
                white: xy(31_270, 32_900),
                red: xy(64_000, 33_000),
                green: xy(30_000, 60_000),
                blue: xy(15_000, 6_000),
            });
            enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        }
        ColorSpace::Data => enc.set_source_gamma(S::from_scaled(LINEAR_GAMMA)),
    }
}

fn encoding(e: png::EncodingError) -> ImageError {
    ImageError::Encoding(EncodingError::new(
        ImageFormatHint::Exact(image::ImageFormat::Png),
        e,
    ))
}

fn no_memory() -> ImageError {
    ImageError::Limits(LimitError::from_kind(LimitErrorKind::InsufficientMemory))
}

/// Encode `img` as an RGBA PNG of `depth` bits (8, or 16 for any other number) in `space`.
/// The samples are reserved through `kiln_core::memory`: when they do not fit, the error is a
/// limit error (insufficient memory), not an abort. The pixel count must match the size.
pub fn encode_png(img: &Image, sixteen: bool, space: ColorSpace) -> Result<Vec<u8>, ImageError> {
    if img.width == 0
        || img.height == 0
        || img.pixels.len() as u64 != u64::from(img.width) * u64::from(img.height)
    {
        return Err(ImageError::Parameter(
            image::error::ParameterError::from_kind(
                image::error::ParameterErrorKind::DimensionMismatch,
            ),
        ));
    }
    let bytes = if sixteen {
        let samples = rgba16(img, space).map_err(|_| no_memory())?;
        let mut bytes: Vec<u8> = kiln_core::memory::try_vec(samples.len() * 2, || {
            format!(
                "the 16-bit pixels of a {} x {} image",
                img.width, img.height
            )
        })
        .map_err(|_| no_memory())?;
        for s in samples {
            bytes.extend_from_slice(&s.to_be_bytes());
        }
        bytes
    } else {
        rgba8(img, space).map_err(|_| no_memory())?
    };
    let mut buf = Vec::new();
    let mut enc = png::Encoder::new(&mut buf, img.width, img.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(if sixteen {
        png::BitDepth::Sixteen
    } else {
        png::BitDepth::Eight
    });
    enc.set_compression(png::Compression::Balanced);
    enc.set_filter(png::Filter::Adaptive);
    tag(&mut enc, space);
    let mut writer = enc.write_header().map_err(encoding)?;
    writer.write_image_data(&bytes).map_err(encoding)?;
    writer.finish().map_err(encoding)?;
    Ok(buf)
}

/// The colour space the PNG file `bytes` states: data when its `gAMA` is 1.0 and it has no
/// `sRGB` chunk; sRGB otherwise (an `sRGB` chunk, an ICC profile, another gamma, or nothing
/// said, as PNG readers assume). `None` when the header cannot be read.
pub fn png_colour_space(bytes: &[u8]) -> Option<ColorSpace> {
    let reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .ok()?;
    let info = reader.info();
    let linear = info.srgb.is_none()
        && info.icc_profile.is_none()
        && info
            .gama_chunk
            .is_some_and(|g| g.into_scaled() == LINEAR_GAMMA);
    Some(if linear {
        ColorSpace::Data
    } else {
        ColorSpace::Srgb
    })
}

/// A problem in the chunk layout of a PNG file that its decoder (`png` 0.18) does not catch
/// and panics on: a `PLTE` chunk whose length is not a whole number of three-byte entries
/// (PNG 11.2.3; `image-rs/image-png#694`). Chunks are walked by their lengths up to the end
/// of the bytes or the first length past it (which the decoder reports itself).
pub(crate) fn chunk_problem(bytes: &[u8]) -> Option<String> {
    let mut at = 8usize;
    while let Some(head) = bytes.get(at..at.checked_add(8)?) {
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        if &head[4..8] == b"PLTE" && !len.is_multiple_of(3) {
            return Some(format!(
                "its PLTE chunk holds {len} bytes, not a whole number of 3-byte palette entries"
            ));
        }
        if &head[4..8] == b"IDAT" || &head[4..8] == b"IEND" {
            return None;
        }
        at = at.checked_add(12)?.checked_add(len)?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunk `kind` holding `data` (the CRC is not checked by the walk).
    fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        c.extend_from_slice(kind);
        c.extend_from_slice(data);
        c.extend_from_slice(&[0; 4]);
        c
    }

    #[test]
    fn a_palette_of_partial_entries_is_a_problem_and_whole_ones_are_not() {
        let head = |plte: &[u8]| {
            let mut f = b"\x89PNG\r\n\x1a\n".to_vec();
            f.extend(chunk(b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 3, 0, 0, 0]));
            f.extend(chunk(b"PLTE", plte));
            f.extend(chunk(b"IDAT", &[1, 2, 3]));
            f
        };
        for bad in [4usize, 5, 14, 767] {
            let p = chunk_problem(&head(&vec![7; bad])).expect("a problem");
            assert!(p.contains(&format!("{bad} bytes")), "{p}");
        }
        for good in [3usize, 12, 768] {
            assert_eq!(chunk_problem(&head(&vec![7; good])), None);
        }
        // Cut short or with a length past the end: left to the decoder.
        assert_eq!(chunk_problem(&head(&[7; 4])[..30]), None);
        assert_eq!(
            chunk_problem(b"\x89PNG\r\n\x1a\n\xff\xff\xff\xffIHDR"),
            None
        );
    }
}
