//! Making and expanding packed instances ([`crate::packed`]).

use super::copy::{copy_by, copy_transforms};
use super::restructure::merge;
use crate::geometry::Mesh;
use crate::limits::LimitError;
use crate::packed::Packed;
use std::sync::Arc;

/// `source` packed once per point of `target`, placed as `mesh.copy_to_points` places its
/// copies: a mesh with no geometry of its own and one packed set. A source holding packed
/// instances is unpacked first, so instances never nest.
pub fn pack_to_points(node: &str, source: &Mesh, target: &Mesh) -> Result<Mesh, LimitError> {
    pack_by(node, source, copy_transforms(target))
}

/// `source` packed once per transform: a mesh with no geometry of its own and one packed
/// set (a source holding packed instances is unpacked first).
pub fn pack_by(
    node: &str,
    source: &Mesh,
    transforms: Vec<glam::Affine3A>,
) -> Result<Mesh, LimitError> {
    let flat = if source.packed.is_empty() {
        source.clone()
    } else {
        unpack(node, source)?
    };
    let mut out = Mesh::new();
    out.packed.push(Packed {
        source: Arc::new(flat),
        transforms,
    });
    Ok(out)
}

/// `mesh` with every packed instance turned into real geometry, after its own, one packed
/// set after another (each copy's primitives carry `copy`, its instance's index in its
/// set); the size is checked against the limits before each set is made.
pub fn unpack(node: &str, mesh: &Mesh) -> Result<Mesh, LimitError> {
    let mut out = Mesh {
        packed: Vec::new(),
        ..mesh.clone()
    };
    for p in &mesh.packed {
        let copies = copy_by(node, &p.source, &p.transforms)?;
        out = merge(node, &out, &copies)?;
    }
    Ok(out)
}
