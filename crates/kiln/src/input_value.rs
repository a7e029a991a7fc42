//! A graph input's value from text, the way a user gives it on a command line or in a
//! sweep: a plain value (`3.5`, `true`, `1,0,0`) parsed by the input's type, or `@path`, a
//! file decoded by the input's type (an image: PNG, JPEG, OpenEXR; a mesh: OBJ, glb; audio:
//! WAV). Each is decoded once, when it is set.

use crate::error::ProjectError;
use kiln_audio::{AUDIO_TYPE, AudioBuffer};
use kiln_core::value::{Value, ValueType};
use kiln_image::image::IMAGE_TYPE;
use kiln_io::image_files::ColorSpace;
use kiln_mesh::MESH_TYPE;
use std::path::Path;

/// How a file given for image input `name` of `g` is read: the input's `color` (`srgb` or
/// `data`), or `None` for `auto` (as the file states) and for other inputs.
pub fn input_colour(g: &kiln_core::graph::Graph, name: &str) -> Option<ColorSpace> {
    g.node(name)?
        .params
        .get(kiln_image::INPUT_COLOR_PARAM)
        .and_then(Value::as_str)
        .and_then(ColorSpace::parse)
}

/// The value `text` gives input `name` of type `ty`; `colour` is how an image file is read
/// (the input's `color`: `None` reads it as the file states).
pub fn input_value(
    name: &str,
    text: &str,
    ty: ValueType,
    colour: Option<ColorSpace>,
) -> Result<Value, ProjectError> {
    let bad = refusal(name, ty);
    let file = text.strip_prefix('@');
    if ty == IMAGE_TYPE {
        let Some(path) = file else {
            return Err(bad(format!(
                "give an image file as `{name}=@path/to/file.png` (or .jpg, .exr)"
            )));
        };
        return input_file(name, Path::new(path), ty, colour);
    }
    if ty == MESH_TYPE {
        let Some(path) = file else {
            return Err(bad(format!(
                "give a mesh file as `{name}=@path/to/file.obj` (or .glb)"
            )));
        };
        return input_file(name, Path::new(path), ty, colour);
    }
    if ty == AUDIO_TYPE {
        let Some(path) = file else {
            return Err(bad(format!(
                "give a WAV file as `{name}=@path/to/file.wav`"
            )));
        };
        return input_file(name, Path::new(path), ty, colour);
    }
    if file.is_some() && ty != ValueType::String {
        return Err(bad(
            "`@path` loads a WAV file, which only audio inputs (input.audio) take".to_string(),
        ));
    }
    kiln_io::parse_cli_value(text, ty).map_err(bad)
}

/// The value the file at `path` gives input `name` of type `ty` (an image, mesh or audio
/// input); `colour` as in [`input_value`].
pub fn input_file(
    name: &str,
    path: &Path,
    ty: ValueType,
    colour: Option<ColorSpace>,
) -> Result<Value, ProjectError> {
    let bad = refusal(name, ty);
    if ty == IMAGE_TYPE {
        kiln_io::image_files::read_image_as(path, colour)
            .map(|img| img.into_value())
            .map_err(|e| bad(e.to_string()))
    } else if ty == MESH_TYPE {
        kiln_io::mesh_files::read_mesh(path)
            .map(|m| m.into_value())
            .map_err(|e| bad(e.to_string()))
    } else if ty == AUDIO_TYPE {
        read_audio(path).map_err(bad)
    } else {
        Err(bad(format!(
            "{} is a file; only image, mesh and audio inputs take files",
            path.display()
        )))
    }
}

/// The error of a value or file that input `name` of type `ty` does not take.
fn refusal(name: &str, ty: ValueType) -> impl Fn(String) -> ProjectError + '_ {
    move |message| ProjectError::InputValue {
        name: name.to_string(),
        ty,
        message,
    }
}

/// The WAV file at `path` as an audio buffer (interleaved `f32`).
fn read_audio(path: &Path) -> Result<Value, String> {
    let data = kiln_io::wav::read_wav(path).map_err(|e| e.to_string())?;
    let channels = u16::try_from(data.channels.len()).map_err(|_| {
        format!(
            "{} has {} channels, more than an audio buffer holds",
            path.display(),
            data.channels.len()
        )
    })?;
    let frames = data.channels.first().map_or(0, Vec::len);
    let mut samples = Vec::with_capacity(frames * data.channels.len());
    for k in 0..frames {
        for ch in &data.channels {
            samples.push(ch.get(k).copied().unwrap_or(0.0) as f32);
        }
    }
    Ok(AudioBuffer {
        sample_rate: data.sample_rate,
        channels,
        samples,
    }
    .into_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_parsed_by_type_and_files_only_go_to_file_inputs() {
        assert_eq!(
            input_value("s", "2.5", ValueType::Float, None).unwrap(),
            Value::Float(2.5)
        );
        let e = input_value("s", "x", ValueType::Float, None).unwrap_err();
        assert!(e.to_string().starts_with("`s` (float): "), "{e}");
        let e = input_value("s", "@a.wav", ValueType::Float, None).unwrap_err();
        assert!(e.to_string().contains("only audio inputs"), "{e}");
        let e = input_value("p", "photo.png", IMAGE_TYPE, None).unwrap_err();
        assert!(e.to_string().contains("`p=@path/to/file.png`"), "{e}");
        let e = input_value("m", "@/nonexistent/rock.obj", MESH_TYPE, None).unwrap_err();
        assert!(e.to_string().contains("rock.obj"), "{e}");
        // At a string input `@...` stays text.
        assert_eq!(
            input_value("t", "@home", ValueType::String, None).unwrap(),
            Value::from("@home")
        );
    }
}
