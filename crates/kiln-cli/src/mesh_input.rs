//! Meshes in and out of `kiln run`: `--set NAME=@file.obj` (or `.glb`) gives a mesh graph
//! input (`input.mesh`) the mesh in the file, and `--output NAME.EXT` / `--preview` choose
//! the files a mesh output becomes.

use crate::common::CliError;
use kiln_core::value::{Value, ValueType};
use kiln_io::mesh_files::MeshFormat;
use kiln_mesh::MESH_TYPE;
use std::collections::HashMap;
use std::path::Path;

/// The value `--set name=text` gives an input of type `ty` when it is a mesh input: the
/// mesh in the file `@path`, or an error naming the input for plain text. `None` for other
/// inputs.
pub(crate) fn mesh_value(name: &str, text: &str, ty: ValueType) -> Result<Option<Value>, CliError> {
    if ty != MESH_TYPE {
        return Ok(None);
    }
    let Some(path) = text.strip_prefix('@') else {
        return Err(CliError(format!(
            "--set `{name}` (mesh): give a mesh file as `{name}=@path/to/file.obj` (or .glb)"
        )));
    };
    kiln_io::mesh_files::read_mesh(Path::new(path))
        .map(|m| Some(m.into_value()))
        .map_err(|e| CliError(format!("--set `{name}` (mesh): {e}")))
}

/// The `--output` names with any mesh file extension taken off (`rock.obj` asks for output
/// `rock` as OBJ), and the formats asked for each name, in order.
pub(crate) fn split_output_formats(
    args: &[String],
) -> (Vec<String>, HashMap<String, Vec<MeshFormat>>) {
    let mut names = Vec::with_capacity(args.len());
    let mut formats: HashMap<String, Vec<MeshFormat>> = HashMap::new();
    for a in args {
        let split = a
            .rsplit_once('.')
            .and_then(|(n, ext)| MeshFormat::from_extension(ext).map(|f| (n, f)));
        match split {
            Some((n, f)) if !n.is_empty() => {
                names.push(n.to_string());
                let list = formats.entry(n.to_string()).or_default();
                if !list.contains(&f) {
                    list.push(f);
                }
            }
            _ => names.push(a.clone()),
        }
    }
    (names, formats)
}

/// The formats output `name` holding `value` is written in: those asked by extension, and a
/// preview for a mesh under `--preview`.
pub(crate) fn formats_for(
    formats: &HashMap<String, Vec<MeshFormat>>,
    name: &str,
    value: &Value,
    preview: bool,
) -> Vec<MeshFormat> {
    let mut f = formats.get(name).cloned().unwrap_or_default();
    if preview && value.as_heavy::<kiln_mesh::Mesh>().is_some() {
        f.push(MeshFormat::Preview);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_pick_formats_and_other_names_stay() {
        let args: Vec<String> = ["rock.obj", "rock.glb", "noise.out", "sky"]
            .map(String::from)
            .to_vec();
        let (names, formats) = split_output_formats(&args);
        assert_eq!(names, ["rock", "rock", "noise.out", "sky"]);
        assert_eq!(formats["rock"], [MeshFormat::Obj, MeshFormat::Glb]);
        assert!(!formats.contains_key("noise"));
    }
}
