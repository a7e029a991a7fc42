//! Copies of a mesh placed by poses: a position and a rotation (a unit quaternion) each, as
//! a rigid-body simulation reports its bodies (`sim.rigid.points`). A copy's point `p`
//! goes to `position + q p q⁻¹`; no scale. The copies are real geometry (see
//! [`crate::edit::copy::copy_by`]: each copy's primitives get `copy`, its pose's index) or
//! packed instances sharing the source.

use crate::edit::copy::copy_by;
use crate::edit::packed::pack_by;
use crate::geometry::Mesh;
use crate::limits::LimitError;
use glam::{Affine3A, Quat, Vec3};

/// Where a copy goes and how it is turned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Where the source's origin goes.
    pub position: Vec3,
    /// How the source is turned about its origin (normalised before use).
    pub rotation: Quat,
}

impl Pose {
    /// The transform of this pose: rotate by the normalised quaternion, then move.
    pub fn transform(&self) -> Affine3A {
        Affine3A::from_rotation_translation(self.rotation.normalize(), self.position)
    }
}

/// One copy of `source` per pose, as one mesh, or as packed instances when `packed`.
pub fn copy_to_poses(
    node: &str,
    source: &Mesh,
    poses: &[Pose],
    packed: bool,
) -> Result<Mesh, LimitError> {
    let transforms: Vec<Affine3A> = poses.iter().map(Pose::transform).collect();
    if packed {
        pack_by(node, source, transforms)
    } else {
        copy_by(node, source, &transforms)
    }
}
