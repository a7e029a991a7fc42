//! Images from files: PNG (8 or 16 bits), JPEG and OpenEXR, through the `image` crate.

use super::colour_space::ColorSpace;
use super::png_file::png_colour_space;
use image::{DynamicImage, ImageDecoder};
use kiln_image::image::{Image, MAX_PIXELS, MAX_SIDE};
use std::path::{Path, PathBuf};

/// Why an image file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadImageError {
    /// The file could not be read.
    #[error(transparent)]
    File(#[from] crate::input_file::InputFileError),
    /// The content is not an image of a format this reads.
    #[error("`{}` is not a PNG, JPEG or OpenEXR image", path.display())]
    Format {
        /// The file.
        path: PathBuf,
    },
    /// The size the file declares is beyond the image limits; nothing was decoded.
    #[error(
        "`{}` is {width} x {height} pixels: kiln images are at most {MAX_SIDE} pixels a side and {MAX_PIXELS} pixels in all",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
    },
    /// The decoder failed on the content.
    #[error("`{}` is not a valid image: {message}", path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        message: String,
    },
}

/// Read the image in the PNG, JPEG or OpenEXR file at `path` (at most
/// [`MAX_INPUT_BYTES`](crate::input_file::MAX_INPUT_BYTES)); the format is found from the
/// content.
pub fn read_image(path: &Path) -> Result<Image, ReadImageError> {
    read_image_as(path, None)
}

/// [`read_image`], with the colour of a PNG or JPEG file read in `space` whatever the file
/// states, when given (`Some(ColorSpace::Data)` reads an untagged normal map's codes as its
/// values); OpenEXR values are always taken as they are.
pub fn read_image_as(path: &Path, space: Option<ColorSpace>) -> Result<Image, ReadImageError> {
    let bytes = crate::input_file::read_input_file(path, crate::input_file::MAX_INPUT_BYTES)?;
    decode_image_with(&bytes, path, space).map(|(img, _)| img)
}

/// The image in `bytes` (a PNG, JPEG or OpenEXR file; `path` names it in errors), as linear
/// RGBA: PNG and JPEG colour sRGB-decoded unless the PNG states linear values (see
/// [`png_colour_space`](super::png_colour_space)); alpha and EXR values as they are.
pub fn decode_image(bytes: &[u8], path: &Path) -> Result<Image, ReadImageError> {
    decode_image_space(bytes, path).map(|(img, _)| img)
}

/// [`decode_image`], with the colour space the file's colour was read in:
/// [`ColorSpace::Srgb`] for sRGB-decoded colour, [`ColorSpace::Data`] for values kept as they
/// are (a PNG stating linear values, OpenEXR). Writing the image as a PNG in that space gives
/// the same codes back.
pub fn decode_image_space(
    bytes: &[u8],
    path: &Path,
) -> Result<(Image, ColorSpace), ReadImageError> {
    decode_image_with(bytes, path, None)
}

/// [`decode_image_space`], with the colour of a PNG or JPEG read in `forced` when given.
fn decode_image_with(
    bytes: &[u8],
    path: &Path,
    forced: Option<ColorSpace>,
) -> Result<(Image, ColorSpace), ReadImageError> {
    let decode = |e: image::ImageError| ReadImageError::Decode {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| ReadImageError::Format {
            path: path.to_path_buf(),
        })?;
    let format = match reader.format() {
        Some(
            f @ (image::ImageFormat::Png | image::ImageFormat::Jpeg | image::ImageFormat::OpenExr),
        ) => f,
        _ => {
            return Err(ReadImageError::Format {
                path: path.to_path_buf(),
            });
        }
    };
    if format == image::ImageFormat::Png
        && let Some(problem) = super::png_file::chunk_problem(bytes)
    {
        return Err(ReadImageError::Decode {
            path: path.to_path_buf(),
            message: format!("not a valid PNG file: {problem}"),
        });
    }
    let decoder = reader.into_decoder().map_err(decode)?;
    let (width, height) = decoder.dimensions();
    let too_large = width == 0
        || height == 0
        || width > MAX_SIDE
        || height > MAX_SIDE
        || width as u64 * height as u64 > MAX_PIXELS;
    if too_large {
        return Err(ReadImageError::TooLarge {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    let space = match (format, forced) {
        (image::ImageFormat::OpenExr, _) => ColorSpace::Data,
        (_, Some(space)) => space,
        (image::ImageFormat::Png, None) => png_colour_space(bytes).unwrap_or_default(),
        _ => ColorSpace::Srgb,
    };
    let float = matches!(
        decoder.color_type(),
        image::ColorType::Rgb32F | image::ColorType::Rgba32F
    );
    let deep = decoder.color_type().bytes_per_pixel() > decoder.color_type().channel_count();
    // A decoder that panics on a malformed file (a bug of the crate) fails this read, not the
    // process.
    let dynamic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        DynamicImage::from_decoder(decoder)
    }))
    .map_err(|panic| ReadImageError::Decode {
        path: path.to_path_buf(),
        message: format!(
            "the {format:?} decoder failed on this file ({})",
            panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "it panicked".into())
        ),
    })?
    .map_err(decode)?;
    let n = width as usize * height as usize;
    let what = || format!("the pixels of a {width} x {height} image read from a file");
    let mut pixels: Vec<[f32; 4]> =
        kiln_core::memory::try_vec(n, what).map_err(|e| ReadImageError::Decode {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    let colour = |c: f32| space.decode(c);
    if float {
        pixels.extend(dynamic.into_rgba32f().pixels().map(|p| p.0));
    } else if deep {
        pixels.extend(dynamic.into_rgba16().pixels().map(|p| {
            let f = |c: u16| c as f32 / 65535.0;
            [colour(f(p[0])), colour(f(p[1])), colour(f(p[2])), f(p[3])]
        }));
    } else {
        // 256 codes: each decoded once.
        let mut table = [0f32; 256];
        for (k, t) in table.iter_mut().enumerate() {
            *t = colour(k as f32 / 255.0);
        }
        pixels.extend(dynamic.into_rgba8().pixels().map(|p| {
            let t = |c: u8| table[c as usize];
            [t(p[0]), t(p[1]), t(p[2]), p[3] as f32 / 255.0]
        }));
    }
    let img = Image {
        width,
        height,
        pixels,
    };
    Ok((img, space))
}
