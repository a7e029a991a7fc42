//! Ops that move points or set attributes in place: `mesh.transform`,
//! `mesh.transform_by_attribute`, `mesh.displace`, `mesh.bend`, `mesh.twist`, `mesh.taper`,
//! `mesh.normals`, `mesh.uv`, `mesh.reverse`, `mesh.triangulate`. Each is one function with
//! the `#[op]` attribute.

use super::ports::V3;
use crate::Mesh;
use crate::edit::by_attribute::{self, DrivingAttributes};
use crate::edit::{deform, normals, restructure, uv};
use glam::{Affine3A, EulerRot, Quat};
use kiln_core::op;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// Scale, then rotate (degrees about X, then Y, then Z), then translate the points; `N` turns with them.
#[op("mesh.transform", out = "the changed mesh")]
pub fn transform(
    #[input("the mesh")] mesh: &Mesh,
    #[input("the move", default = V3(glam::Vec3::ZERO))] translate: V3,
    #[input("rotation in degrees about X, Y, Z", default = V3(glam::Vec3::ZERO))] rotate: V3,
    #[input("scale along X, Y, Z (a number for all)", default = V3(glam::Vec3::ONE))] scale: V3,
) -> Mesh {
    let mut m = mesh.clone();
    let r = rotate.0.map(f32::to_radians);
    let rot = Quat::from_euler(EulerRot::ZYX, r.z, r.y, r.x);
    deform::transform(
        &mut m,
        Affine3A::from_scale_rotation_translation(scale.0, rot, translate.0),
    );
    m
}

/// Transform each point by its own point attributes: scaled by `scale` (float or vec3) times `pscale`, turned by `orient` (a vec4 quaternion, or a vec3 of degrees), both about `pivot`, then moved by `translate` (vec3); an absent attribute (or an empty name) leaves its part out; `N` turns with the points.
#[op("mesh.transform_by_attribute", out = "the changed mesh")]
pub fn transform_by_attribute(
    #[input("the mesh")] mesh: &Mesh,
    #[input("the centre of the scale and rotation", default = V3(glam::Vec3::ZERO))] pivot: V3,
    #[param(
        "the vec3 point attribute added to the position",
        default = "translate"
    )]
    translate: &str,
    #[param(
        "the point attribute of the rotation (vec4 quaternion x, y, z, w, or vec3 degrees about X, Y, Z)",
        default = "orient"
    )]
    orient: &str,
    #[param(
        "the point attribute of the scale (float, or vec3 per axis)",
        default = "scale"
    )]
    scale: &str,
    #[param("the float point attribute of the uniform scale", default = "pscale")] pscale: &str,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let mut m = mesh.clone();
    let by = DrivingAttributes {
        translate: translate.into(),
        orient: orient.into(),
        scale: scale.into(),
        pscale: pscale.into(),
    };
    by_attribute::transform_by_attributes(&mut m, &by, pivot.0).map_err(|e| {
        OpError::new(format!(
            "node `{}` (mesh.transform_by_attribute): {e}",
            call.node
        ))
    })?;
    Ok(m)
}

/// Push points along their normals by seeded fractal noise (rocks, terrain detail); removes `N`.
#[op("mesh.displace", out = "the changed mesh")]
pub fn displace(
    #[input("the mesh")] mesh: &Mesh,
    #[input("the largest push, about", default = 0.2)] amplitude: f64,
    #[input("noise features per unit", default = 2.0)] frequency: f64,
    #[param("noise layers", default = 4, range = 1..=12)] octaves: i64,
    #[param("the noise's seed", default = 0)] seed: i64,
) -> Mesh {
    let mut m = mesh.clone();
    let (a, f) = (amplitude as f32, frequency as f32);
    deform::displace(&mut m, a, f, octaves as u32, seed as u64);
    m
}

/// Bend about the Z axis over the mesh's height (Y); removes `N`.
#[op("mesh.bend", out = "the changed mesh")]
pub fn bend(
    #[input("the mesh")] mesh: &Mesh,
    #[input("total bend in degrees", default = 90.0)] angle: f64,
) -> Mesh {
    let mut m = mesh.clone();
    deform::bend(&mut m, (angle as f32).to_radians());
    m
}

/// Twist about the Y axis from the mesh's bottom to its top; removes `N`.
#[op("mesh.twist", out = "the changed mesh")]
pub fn twist(
    #[input("the mesh")] mesh: &Mesh,
    #[input("total twist in degrees", default = 90.0)] angle: f64,
) -> Mesh {
    let mut m = mesh.clone();
    deform::twist(&mut m, (angle as f32).to_radians());
    m
}

/// Scale X and Z from 1 at the mesh's bottom to `top` at its top; removes `N`.
#[op("mesh.taper", out = "the changed mesh")]
pub fn taper(
    #[input("the mesh")] mesh: &Mesh,
    #[input("the scale at the top", default = 0.5)] top: f64,
) -> Mesh {
    let mut m = mesh.clone();
    deform::taper(&mut m, top as f32);
    m
}

/// Set `N`: smooth (per point), flat (per vertex) or by angle (per vertex, smooth across edges under the angle).
#[op("mesh.normals", out = "the changed mesh")]
pub fn set_normals(
    #[input("the mesh")] mesh: &Mesh,
    #[param("smooth, flat or angle", default = "smooth", rule = Rule::OneOf(&["smooth", "flat", "angle"]))]
    mode: &str,
    #[param(
        "with mode angle: the largest angle, in degrees, smoothed across",
        default = 30.0
    )]
    angle: f64,
) -> Mesh {
    let mut m = mesh.clone();
    match mode {
        "smooth" => normals::set_smooth(&mut m),
        "flat" => normals::set_by_angle(&mut m, None),
        _ => normals::set_by_angle(&mut m, Some((angle as f32).to_radians())),
    }
    m
}

/// Set `uv` by projection fitted to the bounds: planar (point), box (vertex) or spherical (point).
#[op("mesh.uv", out = "the changed mesh")]
pub fn set_uv(
    #[input("the mesh")] mesh: &Mesh,
    #[param("planar, box or spherical", default = "planar", rule = Rule::OneOf(&["planar", "box", "spherical"]))]
    mode: &str,
    #[param("with mode planar: the axis projected along, x, y or z", default = "y", rule = Rule::OneOf(&["x", "y", "z"]))]
    axis: &str,
) -> Mesh {
    let mut m = mesh.clone();
    match mode {
        "planar" => {
            let axis = ["x", "y", "z"].iter().position(|a| *a == axis).unwrap_or(1);
            uv::planar(&mut m, axis)
        }
        "box" => uv::cube(&mut m),
        _ => uv::spherical(&mut m),
    }
    m
}

/// Reverse every primitive's winding and negate `N`: faces turn inside out.
#[op("mesh.reverse", out = "the changed mesh")]
pub fn reverse(#[input("the mesh")] mesh: &Mesh) -> Mesh {
    restructure::reverse(mesh)
}

/// Fan every polygon into triangles from its first vertex (exact for convex polygons).
#[op("mesh.triangulate", out = "the changed mesh")]
pub fn triangulate(#[input("the mesh")] mesh: &Mesh) -> Mesh {
    restructure::triangulate(mesh)
}

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(TransformOp::new())?;
    reg.register(TransformByAttributeOp::new())?;
    reg.register(DisplaceOp::new())?;
    reg.register(BendOp::new())?;
    reg.register(TwistOp::new())?;
    reg.register(TaperOp::new())?;
    reg.register(SetNormalsOp::new())?;
    reg.register(SetUvOp::new())?;
    reg.register(ReverseOp::new())?;
    reg.register(TriangulateOp::new())
}
