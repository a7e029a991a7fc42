//! Transforming each point by its own attributes, as Houdini's attribute-driven transforms
//! do: point `i` is scaled by its `scale` (a float, or a vec3 per axis) times its `pscale`,
//! then turned by its `orient` (a vec4 quaternion x, y, z, w, normalised; or a vec3 of
//! degrees about X, then Y, then Z, as `mesh.transform` reads them), both about `pivot`,
//! then moved by its `translate` (a vec3 offset). An attribute that is absent leaves its
//! part out; each name can be changed or emptied. Point and vertex `N` turn by the inverse
//! transpose of their point's matrix, kept unit length.

use crate::attribute::AttribValues;
use crate::geometry::Mesh;
use glam::{Affine3A, EulerRot, Mat3, Quat, Vec3};

/// The point attributes that drive the transform (an empty name is not read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrivingAttributes {
    /// The offset, a vec3 (Houdini's `trans`, `P` offsets).
    pub translate: String,
    /// The rotation: a vec4 quaternion or a vec3 of degrees.
    pub orient: String,
    /// The scale per axis: a float or a vec3.
    pub scale: String,
    /// The uniform scale, a float.
    pub pscale: String,
}

impl Default for DrivingAttributes {
    fn default() -> DrivingAttributes {
        DrivingAttributes {
            translate: "translate".into(),
            orient: "orient".into(),
            scale: "scale".into(),
            pscale: "pscale".into(),
        }
    }
}

/// A driving attribute of a type it cannot be.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("point attribute `{name}` is {found}; as the {role} it must be {wanted}")]
pub struct DrivingTypeError {
    /// The attribute's name.
    pub name: String,
    /// What it drives: `translate`, `orient`, `scale` or `pscale`.
    pub role: &'static str,
    /// Its type.
    pub found: &'static str,
    /// The types it may have.
    pub wanted: &'static str,
}

/// Read one element of a driving attribute.
enum Part<'a> {
    None,
    Float(&'a [f32]),
    Vec3(&'a [Vec3]),
    Quat(&'a [glam::Vec4]),
}

fn part<'a>(
    mesh: &'a Mesh,
    name: &str,
    role: &'static str,
    wanted: &'static str,
) -> Result<Part<'a>, DrivingTypeError> {
    if name.is_empty() {
        return Ok(Part::None);
    }
    let Some(v) = mesh.point_attrs.get(name) else {
        return Ok(Part::None);
    };
    let ok = match (role, v) {
        ("translate", AttribValues::Vec3(x)) => Some(Part::Vec3(x)),
        ("orient", AttribValues::Vec3(x)) => Some(Part::Vec3(x)),
        ("orient", AttribValues::Vec4(x)) => Some(Part::Quat(x)),
        ("scale", AttribValues::Vec3(x)) => Some(Part::Vec3(x)),
        ("scale" | "pscale", AttribValues::Float(x)) => Some(Part::Float(x)),
        _ => None,
    };
    ok.ok_or_else(|| DrivingTypeError {
        name: name.into(),
        role,
        found: v.type_name(),
        wanted,
    })
}

/// The transform of point `i` (see the module docs).
fn matrix(i: usize, parts: &[Part<'_>; 4], pivot: Vec3) -> Affine3A {
    let [translate, orient, scale, pscale] = parts;
    let mut s = match scale {
        Part::Float(x) => Vec3::splat(x[i]),
        Part::Vec3(x) => x[i],
        _ => Vec3::ONE,
    };
    if let Part::Float(x) = pscale {
        s *= x[i];
    }
    let r = match orient {
        Part::Quat(q) => q[i].try_normalize().map_or(Quat::IDENTITY, Quat::from_vec4),
        Part::Vec3(d) => {
            let d = d[i] * (std::f32::consts::PI / 180.0);
            Quat::from_euler(EulerRot::ZYX, d.z, d.y, d.x)
        }
        _ => Quat::IDENTITY,
    };
    let t = match translate {
        Part::Vec3(x) => x[i],
        _ => Vec3::ZERO,
    };
    Affine3A::from_translation(pivot + t)
        * Affine3A::from_scale_rotation_translation(s, r, Vec3::ZERO)
        * Affine3A::from_translation(-pivot)
}

/// Transform every point of `mesh` by its driving attributes `by` about `pivot`.
pub fn transform_by_attributes(
    mesh: &mut Mesh,
    by: &DrivingAttributes,
    pivot: Vec3,
) -> Result<(), DrivingTypeError> {
    let mats: Vec<Affine3A> = {
        let parts = [
            part(mesh, &by.translate, "translate", "vec3")?,
            part(
                mesh,
                &by.orient,
                "orient",
                "vec4 (a quaternion) or vec3 (degrees)",
            )?,
            part(mesh, &by.scale, "scale", "float or vec3")?,
            part(mesh, &by.pscale, "pscale", "float")?,
        ];
        (0..mesh.points.len())
            .map(|i| matrix(i, &parts, pivot))
            .collect()
    };
    for (p, m) in mesh.points.iter_mut().zip(&mats) {
        *p = m.transform_point3(*p);
    }
    let normal = |m: &Affine3A| Mat3::from(m.matrix3).inverse().transpose();
    if let Some(AttribValues::Vec3(n)) = mesh.point_attrs.get_mut("N") {
        for (v, m) in n.iter_mut().zip(&mats) {
            *v = (normal(m) * *v).normalize_or_zero();
        }
    }
    if let Some(AttribValues::Vec3(n)) = mesh.vertex_attrs.get_mut("N") {
        for (v, &p) in n.iter_mut().zip(&mesh.vertices) {
            if let Some(m) = mats.get(p as usize) {
                *v = (normal(m) * *v).normalize_or_zero();
            }
        }
    }
    Ok(())
}
