//! An image output encoded as a file of a chosen format.

use super::colour_space::ColorSpace;
use super::format::{ImageFormat, encode_image};
use crate::values::WriteError;
use kiln_core::value::Value;
use kiln_image::image::Image;
use std::path::{Path, PathBuf};

/// Encode the image output `name` holding `value` as `dir/name.EXT` in `format`, its colour
/// in `space` (PNG; OpenEXR is linear). Nothing is written. A bad name or an error value is reported as [`crate::encode_output`] does; a value
/// that is no image is [`WriteError::NotAnImage`].
pub fn encode_image_output(
    dir: &Path,
    name: &str,
    value: &Value,
    format: ImageFormat,
    space: ColorSpace,
) -> Result<(PathBuf, Vec<u8>), WriteError> {
    let Some(img) = value.as_heavy::<Image>() else {
        if value.as_error().is_some() || !crate::files::is_file_name(name) {
            return crate::encode_output(dir, name, value);
        }
        return Err(WriteError::NotAnImage {
            name: name.into(),
            type_name: value.type_name().into(),
            format: format.extension(),
        });
    };
    if !crate::files::is_file_name(name) {
        return Err(WriteError::BadName { name: name.into() });
    }
    let path = dir.join(format!("{name}.{}", format.extension()));
    let path = crate::values::whole_image(img, path)?;
    match encode_image(img, format, space) {
        Ok(bytes) => Ok((path, bytes)),
        Err(source) => Err(WriteError::Image { path, source }),
    }
}

/// Encode output `name` holding `value` for a folder whose images are written in `format`:
/// an image as [`encode_image_output`] encodes it, anything else as
/// [`crate::encode_output_in`] does. Nothing is written.
pub fn encode_output_as(
    dir: &Path,
    name: &str,
    value: &Value,
    format: ImageFormat,
    space: ColorSpace,
) -> Result<(PathBuf, Vec<u8>), WriteError> {
    if value.as_heavy::<Image>().is_some() {
        encode_image_output(dir, name, value, format, space)
    } else {
        crate::encode_output_in(dir, name, value, space)
    }
}
