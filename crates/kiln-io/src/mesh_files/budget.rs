//! What writing a mesh holds in memory at once, known before any buffer is taken, so a mesh
//! too large to write under the memory budget is refused by name instead of aborting.

use super::MeshFormat;
use super::corners::class_of;
use kiln_mesh::Mesh;

/// An upper bound of the bytes encoding `mesh` as `format` holds at once: the per-corner
/// arrays, the buffers built from them and the file's bytes (glb: corners, the binary chunk
/// and the file that copies it; OBJ: its text; PLY: the face lists and the file; STL: the
/// corners and 50 bytes a triangle). Packed instances count their sources once (glb) or
/// expanded (the others, which are given the expanded mesh).
pub fn encoding_bytes(format: MeshFormat, mesh: &Mesh) -> u64 {
    let corner_bytes = |m: &Mesh| -> u64 {
        let normals = if class_of(m, "N", 3).is_some() { 12 } else { 0 };
        let uvs = if class_of(m, "uv", 2).is_some() { 8 } else { 0 };
        12 + normals + uvs
    };
    let (p, v, f) = (
        mesh.points.len() as u64,
        mesh.vertices.len() as u64,
        mesh.prims.len() as u64,
    );
    match format {
        MeshFormat::Glb => {
            // Corners (with their triangle list, one a corner at most), the binary chunk (the
            // same arrays and 12 bytes a triangle), and the file (the chunk again).
            let one = |m: &Mesh| {
                let c = m.vertices.len() as u64;
                let per = corner_bytes(m);
                c.saturating_mul(per + 12).saturating_mul(3)
            };
            mesh.packed
                .iter()
                .fold(one(mesh), |sum, set| sum.saturating_add(one(&set.source)))
        }
        MeshFormat::Obj => {
            // The text reserved up front: 40 bytes a point and 12 a vertex, then what
            // `vt`/`vn` lines and index triples add.
            let extra = corner_bytes(mesh) - 12;
            p.saturating_mul(40 + extra * 4)
                .saturating_add(v.saturating_mul(12 + extra * 2))
                .saturating_add(f.saturating_mul(4))
        }
        // A list per face (24 bytes of header and 4 an index), and the file.
        MeshFormat::Ply => p
            .saturating_mul(corner_bytes(mesh) + 12)
            .saturating_add(f.saturating_mul(32))
            .saturating_add(v.saturating_mul(8)),
        MeshFormat::Stl => v.saturating_mul(corner_bytes(mesh) + 12 + 50),
        // A fixed-size image, and corners the preview drops when they do not fit.
        MeshFormat::Preview => 0,
    }
}
