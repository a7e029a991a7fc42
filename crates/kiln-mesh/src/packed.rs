//! Packed instances: one shared source mesh placed many times, each place a transform, held
//! in the mesh value instead of copied geometry (Houdini's packed primitives). Copying a mesh
//! onto 100,000 points then costs a transform per copy; [`crate::edit::packed::unpack`]
//! turns instances into real geometry, and the file writers place or expand them.

use crate::geometry::Mesh;
use glam::Affine3A;
use std::sync::Arc;

/// One source mesh and the transforms of its instances. The source holds no packed
/// instances itself (packing a packed mesh unpacks its source first), so instances never
/// nest.
#[derive(Clone, Debug, PartialEq)]
pub struct Packed {
    /// The mesh every instance shows.
    pub source: Arc<Mesh>,
    /// One transform per instance, from the source's space to the mesh's.
    pub transforms: Vec<Affine3A>,
}

impl Packed {
    /// Whether the source holds together and holds no instances of its own.
    pub fn check(&self) -> Result<(), String> {
        if !self.source.packed.is_empty() {
            return Err("a packed source holds packed instances of its own".into());
        }
        self.source.check()
    }
}
