//! Images in and out of `kiln run`: `--set NAME=@file.png` (or `.jpg`, `.exr`) gives an image
//! graph input (`input.image`) the image in the file, and `--output NAME.png` /
//! `--output NAME.exr` with `--depth` choose the file an image output becomes.

use crate::common::CliError;
use kiln_core::value::{Value, ValueType};
use kiln_image::image::IMAGE_TYPE;
use kiln_io::image_files::{ColorSpace, ImageFormat};
use std::collections::HashMap;
use std::path::Path;

/// The image formats asked for each output name.
pub(crate) type ImageFormats = HashMap<String, Vec<ImageFormat>>;

/// The value `--set name=text` gives an input of type `ty` when it is an image input: the
/// image in the file `@path` (its colour read in `space` when given, else as the file
/// states), or an error naming the input for plain text. `None` for other inputs.
pub(crate) fn image_value(
    name: &str,
    text: &str,
    ty: ValueType,
    space: Option<ColorSpace>,
) -> Result<Option<Value>, CliError> {
    if ty != IMAGE_TYPE {
        return Ok(None);
    }
    let Some(path) = text.strip_prefix('@') else {
        return Err(CliError(format!(
            "--set `{name}` (image): give an image file as `{name}=@path/to/file.png` (or .jpg, .exr)"
        )));
    };
    kiln_io::image_files::read_image_as(Path::new(path), space)
        .map(|img| Some(img.into_value()))
        .map_err(|e| CliError(format!("--set `{name}` (image): {e}")))
}

/// How a file given for image input `name` of `g` is read: the input's `color` param
/// (`srgb` or `data`), or `None` for `auto` (as the file states).
pub(crate) fn input_colour(g: &kiln_core::graph::Graph, name: &str) -> Option<ColorSpace> {
    g.node(name)?
        .params
        .get(kiln_image::INPUT_COLOR_PARAM)
        .and_then(Value::as_str)
        .and_then(ColorSpace::parse)
}

/// The `--output` names with any image file extension taken off (`sky.exr` asks for output
/// `sky` as OpenEXR at `depth`), and the formats asked for each name, in order.
pub(crate) fn split_image_outputs(
    args: &[String],
    depth: Option<u8>,
) -> Result<(Vec<String>, ImageFormats), CliError> {
    let mut names = Vec::with_capacity(args.len());
    let mut formats = ImageFormats::new();
    for a in args {
        let split = a
            .rsplit_once('.')
            .and_then(|(n, ext)| ImageFormat::from_extension(ext, depth).map(|f| (n, f)));
        match split {
            Some((n, f)) if !n.is_empty() => {
                let f = f.map_err(|e| CliError(format!("--output `{a}` with --depth: {e}")))?;
                names.push(n.to_string());
                let list = formats.entry(n.to_string()).or_default();
                if !list.contains(&f) {
                    list.push(f);
                }
            }
            _ => names.push(a.clone()),
        }
    }
    Ok((names, formats))
}

/// The image formats output `name` holding `value` is written in: those asked by extension;
/// PNG at `depth` for an image asked without one (8 bits when no depth is given); none for
/// other values.
pub(crate) fn image_formats_for(
    formats: &ImageFormats,
    name: &str,
    value: &Value,
    depth: Option<u8>,
) -> Result<Vec<ImageFormat>, CliError> {
    if let Some(f) = formats.get(name) {
        return Ok(f.clone());
    }
    match (depth, value.as_heavy::<kiln_image::image::Image>()) {
        (Some(d), Some(_)) => match ImageFormat::from_extension("png", Some(d)) {
            Some(Ok(f)) => Ok(vec![f]),
            Some(Err(e)) => Err(CliError(format!("output `{name}` with --depth: {e}"))),
            None => Ok(vec![]),
        },
        (None, Some(_)) => Ok(vec![ImageFormat::Png8]),
        _ => Ok(vec![]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_pick_image_formats_at_the_depth() {
        let args: Vec<String> = ["sky.exr", "sky.png", "rock.obj", "tex"]
            .map(String::from)
            .to_vec();
        let (names, formats) = split_image_outputs(&args, Some(16)).unwrap();
        assert_eq!(names, ["sky", "sky", "rock.obj", "tex"]);
        assert_eq!(formats["sky"], [ImageFormat::ExrHalf, ImageFormat::Png16]);
        let (_, formats) = split_image_outputs(&args, None).unwrap();
        assert_eq!(formats["sky"], [ImageFormat::ExrFloat, ImageFormat::Png8]);
        let e = split_image_outputs(&args, Some(32)).unwrap_err();
        assert!(e.0.contains("PNG is written at depth 8 or 16"), "{}", e.0);
    }
}
