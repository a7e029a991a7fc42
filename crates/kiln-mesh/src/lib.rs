//! # kiln-mesh
//!
//! Kiln's geometry domain, in the model artists know from Houdini and Blender: a [`Mesh`]
//! holds *points* (positions), *vertices* (corners of primitives, each naming a point),
//! *primitives* (closed polygons and open polylines), typed attributes on each of these
//! classes and on the whole mesh (*detail*), and named point and primitive groups.
//! Vectors are [`glam`]'s.
//!
//! A mesh is a heavy value of type `mesh` ([`MESH_TYPE`]); [`MeshCodec`] is its binary form.
//! File formats (OBJ, glTF, PLY, STL) and the preview picture live in `kiln-io`, not here.
//!
//! Attribute names follow Houdini's: `N` normals, `uv` texture coordinates, `Cd` colour,
//! `pscale` uniform scale, `orient` a quaternion (x, y, z, w), `up` an up vector.
//!
//! Other domains meet meshes through lists of plain values: `mesh.point_list` gives a mesh's
//! positions and normals as lists of vec3, `mesh.segments` makes polylines or tubes of a
//! list of 2D segments ([`edit::segments`]), and `mesh.copy_to_poses` places copies by a
//! list of position and rotation records ([`edit::poses`]).
//!
//! [`register`] adds the codec to a registry; [`registry`] is the standard library of
//! `kiln-std` with it.
#![deny(missing_docs)]

// The mesh: geometry, attributes, groups, its packed form and how it is stored.
pub mod attribute;
mod codec;
pub mod geometry;
pub mod group;
pub mod limits;
pub mod packed;
mod value;

// Ops: generating, editing, measuring.
pub mod edit;
pub mod generate;
pub mod measure;
mod ops;

pub use attribute::{AttribClass, AttribValues, Attributes};
pub use codec::MeshCodec;
pub use geometry::{Mesh, PrimKind, Primitive};
pub use group::Groups;
pub use limits::{LimitError, MAX_POINTS, MAX_PRIMS, MAX_VERTICES, check_size};
pub use ops::INPUT_MESH_OP;
pub use packed::Packed;
pub use value::{MESH, MESH_TYPE};

use kiln_core::registry::{Registry, RegistryError};

/// Register every mesh op and the mesh codec ([`MeshCodec`]) into `reg`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    ops::register(reg)?;
    reg.register_codec(MeshCodec)?;
    Ok(())
}

/// The standard library and the image domain ([`kiln_image::registry`]) with every mesh op
/// and the mesh codec.
pub fn registry() -> Registry {
    let mut reg = kiln_image::registry();
    if let Err(e) = register(&mut reg) {
        unreachable!("mesh ops collide with the standard library: {e}");
    }
    reg
}
