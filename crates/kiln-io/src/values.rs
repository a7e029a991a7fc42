//! Result values as files, and values from the command line.
//!
//! * [`write_output`]: images become 8-bit RGBA PNGs (`name.png`, colour sRGB-encoded); meshes glTF binary
//!   (`name.glb`, or the formats [`encode_output_files`] is given); plain values become JSON
//!   `{"type": "float", "value": 1.5}` (`name.json`), in the typed form of the graph format,
//!   with colours always as arrays of channels. Files are written atomically.
//! * [`parse_cli_value`]: the text of `--set name=value` for a value of a known type.

use crate::convert::{self, ColorStyle};
use crate::json;
use crate::mesh_files::MeshFormat;
use kiln_core::eval::EvalError;
use kiln_core::value::{Value, ValueType, parse_hex_color};
use kiln_image::image::Image;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a file could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// Creating, writing or renaming the file failed.
    #[error("cannot write `{}`: {source}", path.display())]
    Io {
        /// The destination file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The destination is a FIFO, a device, a socket or a link to one (or a process's
    /// stream): refused before anything was written.
    #[error(transparent)]
    NotARegularFile(#[from] crate::files::NotARegularFile),
    /// The image could not be encoded.
    #[error("cannot encode `{}`: {source}", path.display())]
    Image {
        /// The destination file.
        path: PathBuf,
        /// The encoder's error.
        #[source]
        source: image::ImageError,
    },
    /// The image's pixel buffer does not match its size.
    #[error("image for `{}` is {width}x{height} but has {pixels} pixels", path.display())]
    BadImage {
        /// The destination file.
        path: PathBuf,
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
        /// Pixels present.
        pixels: usize,
    },
    /// The value has no file form.
    #[error("output `{name}`: a value of type {type_name} cannot be written to a file")]
    Unsupported {
        /// The output's name.
        name: String,
        /// The value's type.
        type_name: String,
    },
    /// The output holds the failure of an upstream node (a [`Value::Error`], under the
    /// propagate error policy) instead of a value.
    #[error(
        "output `{name}` is an error{}: {message}",
        node.as_ref().map(|n| format!(" from node `{n}`")).unwrap_or_default()
    )]
    Failed {
        /// The output's name.
        name: String,
        /// The node that failed, when the error names one.
        node: Option<String>,
        /// What went wrong.
        message: String,
    },
    /// A mesh could not be encoded in a format.
    #[error("cannot encode output `{name}` as {format}: {message}")]
    Mesh {
        /// The output's name.
        name: String,
        /// The format's file ending.
        format: &'static str,
        /// What went wrong.
        message: String,
    },
    /// File formats were asked of an output that is not a mesh.
    #[error("output `{name}` is a {type_name}, not a mesh: only meshes are written as {format}")]
    NotAMesh {
        /// The output's name.
        name: String,
        /// The value's type.
        type_name: String,
        /// The format asked for.
        format: &'static str,
    },
    /// An image file format was asked of an output that is not an image.
    #[error("output `{name}` is a {type_name}, not an image: only images are written as {format}")]
    NotAnImage {
        /// The output's name.
        name: String,
        /// The value's type.
        type_name: String,
        /// The format asked for.
        format: &'static str,
    },
    /// The output name cannot be used as a file name.
    #[error(
        "output name `{name}` cannot be used as a file name (hint: use letters, digits, `_` and `-`)"
    )]
    BadName {
        /// The name.
        name: String,
    },
}

/// Write `bytes` to `path` atomically: into a temporary file in the same folder, then
/// renamed over `path`. On error nothing is left behind and an existing `path` is untouched.
/// A `path` that is a FIFO, a device, a socket or a link to one is refused before anything
/// is written ([`WriteError::NotARegularFile`]; see [`crate::check_destination`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let io = |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    let fail = |e| match crate::files::refusal(e) {
        Ok(r) => WriteError::NotARegularFile(r),
        Err(source) => io(source),
    };
    // A destination that is not a regular file is refused before anything is written.
    let tmp = crate::files::stage(path, bytes, true).map_err(fail)?;
    // On failure the temporary file is removed when the returned handle drops.
    crate::files::persist(tmp, path).map_err(fail)
}

/// Encode an image as an 8-bit RGBA PNG, colour sRGB-encoded (with an `sRGB` chunk) and alpha
/// linear, each channel clamped to 0..=1 (see [`crate::image_files`] for data maps written as
/// they are). The 8-bit pixels are reserved through `kiln_core::memory`: when they do not
/// fit, the error is a limit error (insufficient memory), not an abort.
pub fn encode_png(img: &Image) -> Result<Vec<u8>, image::ImageError> {
    crate::image_files::encode_png(img, false, crate::image_files::ColorSpace::Srgb)
}

/// The JSON text of a plain value: `{"type": "float", "value": 1.5}` and a newline; `None`
/// for empty and heavy values.
pub fn value_json(value: &Value) -> Option<String> {
    if matches!(value, Value::Empty | Value::Heavy(_) | Value::Error(_)) {
        return None;
    }
    let j = convert::typed_form(value, ColorStyle::Array);
    let mut out = String::new();
    json::write_value(&j, 0, &mut out);
    out.push('\n');
    Some(out)
}

/// The error for an output that holds the failure `e` of an upstream node.
fn failed(name: &str, e: &EvalError) -> WriteError {
    let (node, message) = match e {
        EvalError::Node {
            node,
            port: Some(port),
            message,
            ..
        } => (Some(node.to_string()), format!("{port}: {message}")),
        EvalError::Node { node, message, .. } => (Some(node.to_string()), message.clone()),
        EvalError::Panic { node, message, .. } => {
            (Some(node.to_string()), format!("panicked: {message}"))
        }
        other => (None, other.to_string()),
    };
    WriteError::Failed {
        name: name.into(),
        node,
        message,
    }
}

/// Encode a result value as the file it becomes in `dir`: `name.png` (images) or `name.json`
/// (plain values). Nothing is written; every reason the file could not be made (a bad name, an
/// unsupported type, a malformed image, an error value from a failed node) is found here, so callers can encode all outputs of a
/// frame before writing any.
pub fn encode_output(
    dir: &Path,
    name: &str,
    value: &Value,
) -> Result<(PathBuf, Vec<u8>), WriteError> {
    encode_output_in(dir, name, value, crate::image_files::ColorSpace::Srgb)
}

/// [`encode_output`] with an image's colour written in `space` (sRGB-encoded, or as it is
/// for a data map).
pub fn encode_output_in(
    dir: &Path,
    name: &str,
    value: &Value,
    space: crate::image_files::ColorSpace,
) -> Result<(PathBuf, Vec<u8>), WriteError> {
    if !crate::files::is_file_name(name) {
        return Err(WriteError::BadName { name: name.into() });
    }
    if let Some(e) = value.as_error() {
        return Err(failed(name, e));
    }
    if let Some(img) = value.as_heavy::<Image>() {
        let path = dir.join(format!("{name}.png"));
        let path = whole_image(img, path)?;
        return match crate::image_files::encode_png(img, false, space) {
            Ok(bytes) => Ok((path, bytes)),
            Err(source) => Err(WriteError::Image { path, source }),
        };
    }
    if let Some(mesh) = value.as_heavy::<kiln_mesh::Mesh>() {
        return encode_mesh(dir, name, mesh, MeshFormat::Glb);
    }
    let Some(text) = value_json(value) else {
        return Err(WriteError::Unsupported {
            name: name.into(),
            type_name: value.type_name().into(),
        });
    };
    Ok((dir.join(format!("{name}.json")), text.into_bytes()))
}

fn encode_mesh(
    dir: &Path,
    name: &str,
    mesh: &kiln_mesh::Mesh,
    format: MeshFormat,
) -> Result<(PathBuf, Vec<u8>), WriteError> {
    let bytes = format.encode(mesh).map_err(|message| WriteError::Mesh {
        name: name.into(),
        format: format.extension(),
        message,
    })?;
    Ok((dir.join(format!("{name}.{}", format.extension())), bytes))
}

/// Encode a result value as the files it becomes in `dir`. With no `formats` this is
/// [`encode_output`]'s one file. A mesh is written in each of `formats` (`name.obj`,
/// `name.glb`, `name.ply`, `name.stl`, `name.preview.png`; a preview alone still brings
/// the default `name.glb`); formats asked of any other value are an error naming the output.
pub fn encode_output_files(
    dir: &Path,
    name: &str,
    value: &Value,
    formats: &[MeshFormat],
) -> Result<Vec<(PathBuf, Vec<u8>)>, WriteError> {
    if formats.is_empty() {
        return encode_output(dir, name, value).map(|f| vec![f]);
    }
    let Some(mesh) = value.as_heavy::<kiln_mesh::Mesh>() else {
        if value.as_error().is_some() || !crate::files::is_file_name(name) {
            return encode_output(dir, name, value).map(|f| vec![f]);
        }
        return Err(WriteError::NotAMesh {
            name: name.into(),
            type_name: value.type_name().into(),
            format: formats[0].extension(),
        });
    };
    if !crate::files::is_file_name(name) {
        return Err(WriteError::BadName { name: name.into() });
    }
    let mut wanted: Vec<MeshFormat> = Vec::with_capacity(formats.len() + 1);
    if formats.iter().all(|&f| f == MeshFormat::Preview) {
        wanted.push(MeshFormat::Glb);
    }
    for &f in formats {
        if !wanted.contains(&f) {
            wanted.push(f);
        }
    }
    wanted
        .into_iter()
        .map(|f| encode_mesh(dir, name, mesh, f))
        .collect()
}

/// Write a result value into `dir` as `name.png` (images) or `name.json` (plain values),
/// atomically. Returns the path written.
pub fn write_output(dir: &Path, name: &str, value: &Value) -> Result<PathBuf, WriteError> {
    let (path, bytes) = encode_output(dir, name, value)?;
    write_atomic(&path, &bytes)?;
    Ok(path)
}

fn parse_f64(s: &str) -> Result<f64, String> {
    let t = s.trim();
    t.parse::<f64>()
        .map_err(|_| format!("expected a number, found `{t}`"))
}

fn parse_numbers(text: &str, n: usize, what: &str) -> Result<Vec<f64>, String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != n {
        return Err(format!(
            "expected {what} as {n} comma-separated numbers (like {}), found `{text}`",
            vec!["0"; n].join(",")
        ));
    }
    parts.into_iter().map(parse_f64).collect()
}

fn parse_color(text: &str) -> Result<[f32; 4], String> {
    let t = text.trim();
    if t.starts_with('#') {
        return parse_hex_color(t).ok_or_else(|| {
            format!("expected a colour as #rgb, #rrggbb or #rrggbbaa, found `{t}`")
        });
    }
    let parts: Vec<&str> = t.split(',').collect();
    if parts.len() != 3 && parts.len() != 4 {
        return Err(format!(
            "expected a colour as #rrggbb or 3 or 4 comma-separated numbers (like 1,0.5,0), found `{t}`"
        ));
    }
    let n = parts
        .into_iter()
        .map(parse_f64)
        .collect::<Result<Vec<f64>, String>>()?;
    Ok([
        n[0] as f32,
        n[1] as f32,
        n[2] as f32,
        n.get(3).copied().unwrap_or(1.0) as f32,
    ])
}

/// The most likely value for untyped text: int, float, bool, `#colour`, 2–4 comma-separated
/// numbers as a vector, else a string.
fn infer_cli(text: &str) -> Value {
    let t = text.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Value::Int(i);
    }
    if let Ok(f) = t.parse::<f64>() {
        return Value::Float(f);
    }
    match t {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    if let Some(c) = parse_hex_color(t) {
        return Value::Color(c);
    }
    if t.contains(',') {
        let nums: Result<Vec<f64>, String> = t.split(',').map(parse_f64).collect();
        if let Ok(n) = nums {
            match n.as_slice() {
                [a, b] => return Value::Vec2([*a, *b]),
                [a, b, c] => return Value::Vec3([*a, *b, *c]),
                [a, b, c, d] => return Value::Vec4([*a, *b, *c, *d]),
                _ => {}
            }
        }
    }
    Value::str(text)
}

/// Parse the text of `--set name=value` as a value of type `ty`.
///
/// * `float`: a number (`1.5`, `2`, `1e-3`, `inf`); `int`: an integer; `bool`: `true`/`false`
/// * `vec2`/`vec3`/`vec4`: comma-separated numbers (`0.5,1,0`)
/// * `color`: `#rgb`, `#rrggbb`, `#rrggbbaa`, or 3 or 4 comma-separated channels
/// * `string`: the text as is
/// * `list`: comma-separated items, each read as for `any`; or, starting with `[`, a JSON
///   array read as a graph file reads a list constant (nested lists, like ramp stops
///   `[[0, "#000000"], [1, "#ffffff"]]`)
/// * `any`: the most likely of the above (int, float, bool, `#colour`, vector, else string);
///   `number` likewise, but a string is an error
///
/// Surrounding spaces are ignored except for strings. Errors say what was expected.
pub fn parse_cli_value(text: &str, ty: ValueType) -> Result<Value, String> {
    let t = text.trim();
    match ty {
        ValueType::Float => parse_f64(t)
            .map(Value::Float)
            .map_err(|_| format!("expected a float, found `{t}`")),
        ValueType::Int => t
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| format!("expected an integer, found `{t}`")),
        ValueType::Bool => match t {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!("expected true or false, found `{t}`")),
        },
        ValueType::Vec2 => parse_numbers(t, 2, "a vec2").map(|n| Value::Vec2([n[0], n[1]])),
        ValueType::Vec3 => parse_numbers(t, 3, "a vec3").map(|n| Value::Vec3([n[0], n[1], n[2]])),
        ValueType::Vec4 => {
            parse_numbers(t, 4, "a vec4").map(|n| Value::Vec4([n[0], n[1], n[2], n[3]]))
        }
        ValueType::Color => parse_color(t).map(Value::Color),
        ValueType::String => Ok(Value::str(text)),
        ValueType::List | ValueType::ListOf(_) => {
            if t.is_empty() {
                return Ok(Value::List(Arc::from(Vec::new())));
            }
            if t.starts_with('[') {
                let j = crate::json::parse(t).map_err(|e| format!("expected a JSON list: {e}"))?;
                if !matches!(j, crate::json::Json::Array(_)) {
                    return Err(format!("expected a JSON list, found `{t}`"));
                }
                return convert::decode_value(&j, Some(ty), "")
                    .map_err(|e| format!("expected a list: {e}"));
            }
            let items: Vec<Value> = t.split(',').map(infer_cli).collect();
            Ok(Value::List(Arc::from(items)))
        }
        ValueType::Any => Ok(infer_cli(text)),
        ValueType::Number => match infer_cli(text) {
            Value::Str(_) | Value::Bool(_) => Err(format!("expected a number, found `{t}`")),
            v => Ok(v),
        },
        ValueType::Signal => Err("a signal cannot be given on the command line".into()),
        ValueType::Record => Err("a record cannot be given on the command line".into()),
        ValueType::Heavy(name) => Err(format!(
            "a value of type {name} cannot be given on the command line"
        )),
    }
}

/// `path` back when `img` holds width × height pixels; else the error that names it (a
/// malformed image is refused, never read past).
pub(crate) fn whole_image(
    img: &Image,
    path: std::path::PathBuf,
) -> Result<std::path::PathBuf, WriteError> {
    let pixels = img.pixels.len();
    if u64::try_from(pixels).ok() != Some(img.width as u64 * img.height as u64) {
        return Err(WriteError::BadImage {
            path,
            width: img.width,
            height: img.height,
            pixels,
        });
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_json_forms() {
        assert_eq!(
            value_json(&Value::Float(1.0)).unwrap(),
            "{\"type\": \"float\", \"value\": 1.0}\n"
        );
        assert_eq!(
            value_json(&Value::Color([1.0, 0.0, 0.0, 1.0])).unwrap(),
            "{\"type\": \"color\", \"value\": [1.0, 0.0, 0.0]}\n"
        );
        assert_eq!(value_json(&Value::Empty), None);
    }

    #[test]
    fn file_names() {
        use crate::files::is_file_name;
        assert!(is_file_name("image"));
        assert!(is_file_name("a-b_c"));
        for bad in ["", ".", "..", "a/b", "a\\b", "a\0", "c:x", "a\nb"] {
            assert!(!is_file_name(bad), "{bad:?}");
        }
    }
}
