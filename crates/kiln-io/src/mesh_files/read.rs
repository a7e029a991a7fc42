//! Meshes from files: OBJ (through `tobj`) and glTF binary (through `gltf`). A loaded mesh
//! is a value like any other, so its key is its content: the same file content gives the
//! same key wherever the file lives.

use super::glb_checks;
use glam::{Vec2, Vec3};
use kiln_mesh::{AttribValues, Mesh, check_size};
use std::path::{Path, PathBuf};

/// Why a mesh file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadMeshError {
    /// The file could not be read.
    #[error(transparent)]
    File(#[from] crate::input_file::InputFileError),
    /// The file is not of a format this reads.
    #[error("`{}`: kiln reads meshes from .obj and .glb files", path.display())]
    Format {
        /// The file.
        path: PathBuf,
    },
    /// The file's content is not a mesh of its format.
    #[error("`{}` is not a valid {format} file: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// `OBJ` or `glTF`.
        format: &'static str,
        /// What the parser said.
        message: String,
    },
}

/// Read the mesh in the `.obj` or `.glb` file at `path` (at most
/// [`MAX_INPUT_BYTES`](crate::input_file::MAX_INPUT_BYTES)).
pub fn read_mesh(path: &Path) -> Result<Mesh, ReadMeshError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let parse = |format, message: String| ReadMeshError::Parse {
        path: path.to_path_buf(),
        format,
        message,
    };
    match ext.as_deref() {
        Some("obj") => {
            let bytes =
                crate::input_file::read_input_file(path, crate::input_file::MAX_INPUT_BYTES)?;
            decode_obj(&bytes).map_err(|m| parse("OBJ", m))
        }
        Some("glb") => {
            let bytes =
                crate::input_file::read_input_file(path, crate::input_file::MAX_INPUT_BYTES)?;
            decode_glb(&bytes).map_err(|m| parse("glTF", m))
        }
        _ => Err(ReadMeshError::Format {
            path: path.to_path_buf(),
        }),
    }
}

/// A mesh from OBJ text: every object's faces as polygons over the file's points, `N` and
/// `uv` as vertex attributes when every face gives them.
pub fn decode_obj(bytes: &[u8]) -> Result<Mesh, String> {
    // Lossy: `tobj` reads the lines before an invalid one (and exports their faces).
    super::obj_indices::check_face_indices(&String::from_utf8_lossy(bytes))?;
    let options = tobj::LoadOptions {
        single_index: false,
        triangulate: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let (models, _) = tobj::load_obj_buf(&mut std::io::Cursor::new(bytes), &options, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| e.to_string())?;
    let mut out = Mesh::new();
    let mut normals: Vec<Vec3> = Vec::new();
    let mut uvs: Vec<Vec2> = Vec::new();
    let (mut all_n, mut all_uv) = (true, true);
    for model in &models {
        let m = &model.mesh;
        let base = out.points.len() as u32;
        let pts = m.positions.len() / 3;
        check_size(
            "(file)",
            (out.points.len() + pts) as u64,
            0,
            m.indices.len() as u64,
        )
        .map_err(|e| e.to_string())?;
        out.points.extend(
            m.positions
                .chunks_exact(3)
                .map(|c| Vec3::new(c[0], c[1], c[2])),
        );
        let arities: Vec<u32> = if m.face_arities.is_empty() {
            vec![3; m.indices.len() / 3]
        } else {
            m.face_arities.clone()
        };
        all_n &= m.normal_indices.len() == m.indices.len();
        all_uv &= m.texcoord_indices.len() == m.indices.len();
        let mut at = 0usize;
        for &k in &arities {
            let span = at..at + k as usize;
            let face: Option<Vec<u32>> = m
                .indices
                .get(span.clone())
                .map(|ix| ix.iter().map(|&i| base + i).collect());
            let face = face.ok_or("a face runs past the indices")?;
            if face.iter().any(|&i| i as usize >= out.points.len()) {
                return Err("a face names a point that does not exist".into());
            }
            out.add_polygon(&face);
            for j in span {
                let n = m.normal_indices.get(j).map(|&i| i as usize * 3);
                normals.push(
                    n.and_then(|i| m.normals.get(i..i + 3))
                        .map_or(Vec3::ZERO, Vec3::from_slice),
                );
                let t = m.texcoord_indices.get(j).map(|&i| i as usize * 2);
                uvs.push(
                    t.and_then(|i| m.texcoords.get(i..i + 2))
                        .map_or(Vec2::ZERO, Vec2::from_slice),
                );
            }
            at += k as usize;
        }
    }
    if all_n && !out.vertices.is_empty() {
        out.vertex_attrs.insert("N", AttribValues::Vec3(normals));
    }
    if all_uv && !out.vertices.is_empty() {
        out.vertex_attrs.insert("uv", AttribValues::Vec2(uvs));
    }
    Ok(out)
}

/// A mesh from glTF binary: the triangles of every mesh primitive of the file (node
/// transforms are not applied), `N` and `uv` as point attributes when every primitive has
/// them.
pub fn decode_glb(bytes: &[u8]) -> Result<Mesh, String> {
    glb_checks::length_fits(bytes)?;
    let raw = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| e.to_string())?;
    glb_checks::positions_exist(raw.document.as_json())?;
    let blob = raw.blob;
    let doc = gltf::Document::from_json(raw.document.into_json()).map_err(|e| e.to_string())?;
    let blob = blob.as_deref();
    let mut out = Mesh::new();
    let (mut normals, mut uvs) = (Vec::new(), Vec::new());
    let (mut all_n, mut all_uv) = (true, true);
    for mesh in doc.meshes() {
        for prim in mesh.primitives() {
            if prim.mode() != gltf::mesh::Mode::Triangles {
                continue;
            }
            glb_checks::primitive_readable(&prim)?;
            let reader = prim.reader(|b| match b.source() {
                gltf::buffer::Source::Bin => blob,
                gltf::buffer::Source::Uri(_) => None,
            });
            let base = out.points.len() as u32;
            let pos: Vec<Vec3> = reader
                .read_positions()
                .ok_or("a primitive has no positions")?
                .map(Vec3::from_array)
                .collect();
            check_size("(file)", (out.points.len() + pos.len()) as u64, 0, 0)
                .map_err(|e| e.to_string())?;
            let n = pos.len();
            out.points.extend(pos);
            match reader.read_normals() {
                Some(it) => normals.extend(it.map(Vec3::from_array)),
                None => all_n = false,
            }
            match reader.read_tex_coords(0) {
                Some(it) => uvs.extend(it.into_f32().map(|[u, v]| Vec2::new(u, 1.0 - v))),
                None => all_uv = false,
            }
            let idx: Vec<u32> = match reader.read_indices() {
                Some(i) => i.into_u32().collect(),
                None => (0..n as u32).collect(),
            };
            for t in idx.chunks_exact(3) {
                if t.iter().any(|&i| i as usize >= n) {
                    return Err("an index names a vertex that does not exist".into());
                }
                out.add_polygon(&[base + t[0], base + t[1], base + t[2]]);
            }
        }
    }
    if all_n && normals.len() == out.points.len() && !normals.is_empty() {
        out.point_attrs.insert("N", AttribValues::Vec3(normals));
    }
    if all_uv && uvs.len() == out.points.len() && !uvs.is_empty() {
        out.point_attrs.insert("uv", AttribValues::Vec2(uvs));
    }
    Ok(out)
}
