//! The file formats an image output is written in, and their encoders.

use super::colour_space::ColorSpace;
use super::png_file::encode_png;
use image::error::ImageError;
use kiln_image::image::Image;

/// A file format of image outputs, with its bit depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// PNG, 8-bit RGBA, colour in a [`ColorSpace`] (sRGB-encoded by default), alpha
    /// linear: `.png`, the default.
    Png8,
    /// PNG, 16-bit RGBA, colour in a [`ColorSpace`], alpha linear: `.png` at depth 16.
    Png16,
    /// OpenEXR, RGBA as 16-bit floats (half), linear: `.exr` at depth 16.
    ExrHalf,
    /// OpenEXR, RGBA as 32-bit floats, linear: `.exr`, the default for `.exr`.
    ExrFloat,
}

impl ImageFormat {
    /// The file ending (`png` or `exr`).
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Png8 | ImageFormat::Png16 => "png",
            ImageFormat::ExrHalf | ImageFormat::ExrFloat => "exr",
        }
    }

    /// Bits per channel.
    pub fn depth(self) -> u8 {
        match self {
            ImageFormat::Png8 => 8,
            ImageFormat::Png16 | ImageFormat::ExrHalf => 16,
            ImageFormat::ExrFloat => 32,
        }
    }

    /// The format of a file ending (`png`, `exr`; any case) at `depth` bits per channel
    /// (`None`: the format's default, 8 for PNG and 32 for EXR). `None` for an ending that is
    /// no image format; an error naming the depths the format has for any other depth.
    pub fn from_extension(ext: &str, depth: Option<u8>) -> Option<Result<ImageFormat, String>> {
        let f = match ext.to_ascii_lowercase().as_str() {
            "png" => match depth {
                None | Some(8) => Ok(ImageFormat::Png8),
                Some(16) => Ok(ImageFormat::Png16),
                Some(d) => Err(format!("PNG is written at depth 8 or 16, not {d}")),
            },
            "exr" => match depth {
                None | Some(32) => Ok(ImageFormat::ExrFloat),
                Some(16) => Ok(ImageFormat::ExrHalf),
                Some(d) => Err(format!(
                    "OpenEXR is written at depth 16 (half) or 32 (float), not {d}"
                )),
            },
            _ => return None,
        };
        Some(f)
    }
}

/// Encode `img` as a file of `format`, its colour in `space` when the format is PNG (OpenEXR
/// holds linear values whatever `space` says). The image's pixel count must match its size.
/// The encoded samples are reserved through `kiln_core::memory`: when they do not fit, the
/// error is a limit error (insufficient memory), not an abort.
pub fn encode_image(
    img: &Image,
    format: ImageFormat,
    space: ColorSpace,
) -> Result<Vec<u8>, ImageError> {
    match format {
        ImageFormat::Png8 => encode_png(img, false, space),
        ImageFormat::Png16 => encode_png(img, true, space),
        ImageFormat::ExrHalf => encode_exr(img, true),
        ImageFormat::ExrFloat => encode_exr(img, false),
    }
}

fn encode_exr(img: &Image, half: bool) -> Result<Vec<u8>, ImageError> {
    use exr::prelude::{Image as ExrImage, SpecificChannels, Vec2, WritableImage, f16};
    let (w, h) = (img.width as usize, img.height as usize);
    if w == 0 || h == 0 || img.pixels.len() != w * h {
        return Err(ImageError::Parameter(
            image::error::ParameterError::from_kind(
                image::error::ParameterErrorKind::DimensionMismatch,
            ),
        ));
    }
    let px = |Vec2(x, y): Vec2<usize>| img.pixels[y * w + x];
    let mut buf = std::io::Cursor::new(Vec::new());
    let written = if half {
        let ch = SpecificChannels::rgba(|at| {
            let p = px(at);
            (
                f16::from_f32(p[0]),
                f16::from_f32(p[1]),
                f16::from_f32(p[2]),
                f16::from_f32(p[3]),
            )
        });
        ExrImage::from_channels((w, h), ch)
            .write()
            .to_buffered(&mut buf)
    } else {
        let ch = SpecificChannels::rgba(|at| {
            let p = px(at);
            (p[0], p[1], p[2], p[3])
        });
        ExrImage::from_channels((w, h), ch)
            .write()
            .to_buffered(&mut buf)
    };
    written.map_err(|e| {
        ImageError::Encoding(image::error::EncodingError::new(
            image::error::ImageFormatHint::Exact(image::ImageFormat::OpenExr),
            e,
        ))
    })?;
    Ok(buf.into_inner())
}
