//! Meshes as files: OBJ, glTF binary, PLY and STL written from a [`Mesh`], a shaded PNG
//! preview of one, and OBJ and glTF binary read back into one ([`read_mesh`]).
//!
//! A mesh output of `kiln run` becomes `NAME.glb` unless other formats are asked for:
//! `--output NAME.obj` (or `.glb`, `.ply`, `.stl`, repeatable) picks the files by extension,
//! and `--preview` adds `NAME.preview.png` (see [`encode_output_files`](crate::encode_output_files)).

mod budget;
mod corners;
mod glb;
mod glb_checks;
mod obj;
mod obj_indices;
mod ply;
mod preview;
mod read;
mod stl;

pub use budget::encoding_bytes;
pub use glb::{GlbError, encode_glb};
pub use obj::encode_obj;
pub use ply::encode_ply;
pub use preview::{PREVIEW_SIZE, WORK_PER_PIXEL, render_preview, render_preview_counted};
pub use read::{ReadMeshError, decode_glb, decode_obj, read_mesh};
pub use stl::encode_stl;

use kiln_mesh::Mesh;

/// A file form of a mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshFormat {
    /// Wavefront OBJ (`.obj`), with normals and texture coordinates.
    Obj,
    /// glTF 2.0 binary (`.glb`).
    Glb,
    /// PLY, binary little-endian (`.ply`).
    Ply,
    /// Binary STL (`.stl`).
    Stl,
    /// A shaded picture (`.preview.png`).
    Preview,
}

impl MeshFormat {
    /// The formats named by a file extension (`obj`, `glb`, `ply`, `stl`; any case).
    pub fn from_extension(ext: &str) -> Option<MeshFormat> {
        match ext.to_ascii_lowercase().as_str() {
            "obj" => Some(MeshFormat::Obj),
            "glb" => Some(MeshFormat::Glb),
            "ply" => Some(MeshFormat::Ply),
            "stl" => Some(MeshFormat::Stl),
            _ => None,
        }
    }

    /// The file name ending this format writes (`obj`, `glb`, `ply`, `stl`, `preview.png`).
    pub fn extension(self) -> &'static str {
        match self {
            MeshFormat::Obj => "obj",
            MeshFormat::Glb => "glb",
            MeshFormat::Ply => "ply",
            MeshFormat::Stl => "stl",
            MeshFormat::Preview => "preview.png",
        }
    }

    /// The bytes of `mesh` in this format. glb places packed instances as nodes sharing one
    /// glTF mesh; OBJ, PLY and STL write them expanded ([`kiln_mesh::edit::packed::unpack`]).
    /// What the encoder holds at once is checked against the memory budget first
    /// ([`encoding_bytes`]), and its large buffers are reserved fallibly: a mesh too large to
    /// write is an error naming the file's kind, never an abort.
    pub fn encode(self, mesh: &Mesh) -> Result<Vec<u8>, String> {
        let expanded;
        let mesh =
            if mesh.packed.is_empty() || matches!(self, MeshFormat::Glb | MeshFormat::Preview) {
                mesh
            } else {
                expanded = kiln_mesh::edit::packed::unpack(self.extension(), mesh)
                    .map_err(|e| e.to_string())?;
                &expanded
            };
        let bytes = encoding_bytes(self, mesh);
        kiln_core::memory::check(bytes, || {
            format!(
                "the {} of a mesh of {} points and {} vertices",
                self.extension(),
                mesh.points.len(),
                mesh.vertices.len()
            )
        })
        .map_err(|e| e.to_string())?;
        Ok(match self {
            MeshFormat::Obj => encode_obj(mesh).map_err(|e| e.to_string())?,
            MeshFormat::Glb => encode_glb(mesh).map_err(|e| e.to_string())?,
            MeshFormat::Ply => encode_ply(mesh),
            MeshFormat::Stl => encode_stl(mesh).map_err(|e| e.to_string())?,
            MeshFormat::Preview => {
                use image::ImageEncoder;
                let rgba = render_preview(mesh, PREVIEW_SIZE);
                let mut buf = Vec::new();
                image::codecs::png::PngEncoder::new(&mut buf)
                    .write_image(
                        &rgba,
                        PREVIEW_SIZE,
                        PREVIEW_SIZE,
                        image::ExtendedColorType::Rgba8,
                    )
                    .map_err(|e| e.to_string())?;
                buf
            }
        })
    }
}
