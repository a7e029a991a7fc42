//! Ops that move points or set attributes in place: `mesh.transform`,
//! `mesh.transform_by_attribute`, `mesh.displace`,
//! `mesh.bend`, `mesh.twist`, `mesh.taper`, `mesh.normals`, `mesh.uv`, `mesh.reverse`,
//! `mesh.triangulate`.

use super::ports::{choice, count, float, mesh, put, seed, vec3};
use crate::edit::by_attribute::{self, DrivingAttributes};
use crate::edit::{deform, normals, restructure, uv};
use crate::value::MESH_TYPE;
use glam::{Affine3A, EulerRot, Quat};
use kiln_core::op::{FnOp, OpError, Rule};

/// Noise layers of `mesh.displace`.
const OCTAVES: Rule = Rule::Ints { min: 1, max: 12 };
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

const OUT: &str = "the changed mesh";

fn deformer(
    id: &'static str,
    doc: &'static str,
    param: &'static str,
    default: f64,
    pdoc: &'static str,
    f: fn(&mut crate::Mesh, f32),
) -> FnOp {
    FnOp::new(id, doc)
        .required("mesh", MESH_TYPE, "the mesh")
        .input(param, default, pdoc)
        .output_of("out", MESH_TYPE, OUT)
        .run(move |call, out| {
            let mut m = mesh(call, 0)?.clone();
            f(&mut m, float(call, 1)?);
            put(out, m);
            Ok(())
        })
}

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(
        FnOp::new("mesh.transform", "Scale, then rotate (degrees about X, then Y, then Z), then translate the points; `N` turns with them.")
            .required("mesh", MESH_TYPE, "the mesh")
            .input("translate", Value::Vec3([0.0; 3]), "the move")
            .input("rotate", Value::Vec3([0.0; 3]), "rotation in degrees about X, Y, Z")
            .input("scale", Value::Vec3([1.0; 3]), "scale along X, Y, Z (a number for all)")
            .output_of("out", MESH_TYPE, OUT)
            .run(|call, out| {
                let mut m = mesh(call, 0)?.clone();
                let r = vec3(call, 2)?.map(f32::to_radians);
                let rot = Quat::from_euler(EulerRot::ZYX, r.z, r.y, r.x);
                let t = Affine3A::from_scale_rotation_translation(vec3(call, 3)?, rot, vec3(call, 1)?);
                deform::transform(&mut m, t);
                put(out, m);
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new("mesh.transform_by_attribute", "Transform each point by its own point attributes: scaled by `scale` (float or vec3) times `pscale`, turned by `orient` (a vec4 quaternion, or a vec3 of degrees), both about `pivot`, then moved by `translate` (vec3); an absent attribute (or an empty name) leaves its part out; `N` turns with the points.")
            .required("mesh", MESH_TYPE, "the mesh")
            .input("pivot", Value::Vec3([0.0; 3]), "the centre of the scale and rotation")
            .param("translate", "translate", "the vec3 point attribute added to the position")
            .param("orient", "orient", "the point attribute of the rotation (vec4 quaternion x, y, z, w, or vec3 degrees about X, Y, Z)")
            .param("scale", "scale", "the point attribute of the scale (float, or vec3 per axis)")
            .param("pscale", "pscale", "the float point attribute of the uniform scale")
            .output_of("out", MESH_TYPE, OUT)
            .run(|call, out| {
                let mut m = mesh(call, 0)?.clone();
                let by = DrivingAttributes {
                    translate: call.param_str(0)?.into(),
                    orient: call.param_str(1)?.into(),
                    scale: call.param_str(2)?.into(),
                    pscale: call.param_str(3)?.into(),
                };
                by_attribute::transform_by_attributes(&mut m, &by, vec3(call, 1)?)
                    .map_err(|e| OpError::new(format!("node `{}` (mesh.transform_by_attribute): {e}", call.node)))?;
                put(out, m);
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new("mesh.displace", "Push points along their normals by seeded fractal noise (rocks, terrain detail); removes `N`.")
            .required("mesh", MESH_TYPE, "the mesh")
            .input("amplitude", 0.2, "the largest push, about")
            .input("frequency", 2.0, "noise features per unit")
            .param_ruled("octaves", 4i64, "noise layers (1 to 12)", OCTAVES)
            .param("seed", 0i64, "the noise's seed")
            .output_of("out", MESH_TYPE, OUT)
            .run(|call, out| {
                let mut m = mesh(call, 0)?.clone();
                let oct = count(call, 0, OCTAVES)?;
                deform::displace(&mut m, float(call, 1)?, float(call, 2)?, oct, seed(call, 1)?);
                put(out, m);
                Ok(())
            }),
    )?;
    reg.register(deformer(
        "mesh.bend",
        "Bend about the Z axis over the mesh's height (Y); removes `N`.",
        "angle",
        90.0,
        "total bend in degrees",
        |m, a| deform::bend(m, a.to_radians()),
    ))?;
    reg.register(deformer(
        "mesh.twist",
        "Twist about the Y axis from the mesh's bottom to its top; removes `N`.",
        "angle",
        90.0,
        "total twist in degrees",
        |m, a| deform::twist(m, a.to_radians()),
    ))?;
    reg.register(deformer(
        "mesh.taper",
        "Scale X and Z from 1 at the mesh's bottom to `top` at its top; removes `N`.",
        "top",
        0.5,
        "the scale at the top",
        deform::taper,
    ))?;
    reg.register(
        FnOp::new("mesh.normals", "Set `N`: smooth (per point), flat (per vertex) or by angle (per vertex, smooth across edges under the angle).")
            .required("mesh", MESH_TYPE, "the mesh")
            .param("mode", "smooth", "smooth, flat or angle")
            .param("angle", 30.0, "with mode angle: the largest angle, in degrees, smoothed across")
            .output_of("out", MESH_TYPE, OUT)
            .run(|call, out| {
                let mut m = mesh(call, 0)?.clone();
                match choice(call, 0, &["smooth", "flat", "angle"])? {
                    "smooth" => normals::set_smooth(&mut m),
                    "flat" => normals::set_by_angle(&mut m, None),
                    _ => normals::set_by_angle(&mut m, Some((call.param_float(1)? as f32).to_radians())),
                }
                put(out, m);
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new("mesh.uv", "Set `uv` by projection fitted to the bounds: planar (point), box (vertex) or spherical (point).")
            .required("mesh", MESH_TYPE, "the mesh")
            .param("mode", "planar", "planar, box or spherical")
            .param("axis", "y", "with mode planar: the axis projected along, x, y or z")
            .output_of("out", MESH_TYPE, OUT)
            .run(|call, out| {
                let mut m = mesh(call, 0)?.clone();
                match choice(call, 0, &["planar", "box", "spherical"])? {
                    "planar" => {
                        let axis = ["x", "y", "z"].iter().position(|a| *a == choice(call, 1, &["x", "y", "z"]).unwrap_or("y")).unwrap_or(1);
                        uv::planar(&mut m, axis)
                    }
                    "box" => uv::cube(&mut m),
                    _ => uv::spherical(&mut m),
                }
                put(out, m);
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.reverse",
            "Reverse every primitive's winding and negate `N`: faces turn inside out.",
        )
        .required("mesh", MESH_TYPE, "the mesh")
        .output_of("out", MESH_TYPE, OUT)
        .run(|call, out| {
            put(out, restructure::reverse(mesh(call, 0)?));
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.triangulate",
            "Fan every polygon into triangles from its first vertex (exact for convex polygons).",
        )
        .required("mesh", MESH_TYPE, "the mesh")
        .output_of("out", MESH_TYPE, OUT)
        .run(|call, out| {
            put(out, restructure::triangulate(mesh(call, 0)?));
            Ok(())
        }),
    )?;
    Ok(())
}
