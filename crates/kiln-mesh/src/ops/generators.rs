//! The generator ops: `mesh.grid`, `mesh.box`, `mesh.sphere`, `mesh.icosphere`,
//! `mesh.cylinder`, `mesh.cone`, `mesh.torus`, `mesh.circle`, `mesh.line`, `mesh.curve`
//! (`mesh.heightfield` is with the other image ops).

use super::ports::{count, float, vec2, vec3};
use crate::generate;
use crate::value::MESH_TYPE;
use glam::Vec3;
use kiln_core::op::{FnOp, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

const OUT: &str = "the mesh";

/// Quads of a grid along each axis; bands along a cylinder's or cone's height.
const BANDS: Rule = Rule::Ints {
    min: 1,
    max: 100_000,
};
/// Sides of a cylinder or cone; steps around a torus's ring and tube.
const RING_STEPS: Rule = Rule::Ints {
    min: 3,
    max: 100_000,
};
/// Bands of latitude of a UV sphere.
const SPHERE_ROWS: Rule = Rule::Ints {
    min: 2,
    max: 10_000,
};
/// Bands of longitude of a UV sphere.
const SPHERE_COLS: Rule = Rule::Ints {
    min: 3,
    max: 10_000,
};
/// Subdivisions of an icosphere.
const ICO_LEVEL: Rule = Rule::Ints { min: 0, max: 12 };
/// Sides of a circle.
const CIRCLE_SIDES: Rule = Rule::Ints {
    min: 3,
    max: 1_000_000,
};
/// Points of a line.
const LINE_POINTS: Rule = Rule::Ints {
    min: 2,
    max: 10_000_000,
};
/// Pieces of a curve between two given points.
const CURVE_PIECES: Rule = Rule::Ints {
    min: 1,
    max: 10_000,
};

/// Register the generators.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(
        FnOp::new(
            "mesh.grid",
            "A grid of quads in the XZ plane (Y up), centred, with point `uv`.",
        )
        .input_of("size", Value::Vec2([1.0, 1.0]), "extent along X and Z")
        .param_ruled("cols", 10i64, "quads along X (1 to 100000)", BANDS)
        .plan_time()
        .param_ruled("rows", 10i64, "quads along Z (1 to 100000)", BANDS)
        .plan_time()
        .output_of("out", MESH_TYPE, OUT)
        .run(|call, out| {
            let (c, r) = (count(call, 0, BANDS)?, count(call, 1, BANDS)?);
            out[0] = generate::grid(call.node, vec2(call, 0)?, c, r)?.into_value();
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.box",
            "An axis-aligned box centred on the origin: 8 points, 6 quads.",
        )
        .input_of(
            "size",
            Value::Vec3([1.0, 1.0, 1.0]),
            "extent along X, Y and Z",
        )
        .output_of("out", MESH_TYPE, OUT)
        .run(|call, out| {
            out[0] = generate::cube(vec3(call, 0)?).into_value();
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.sphere",
            "A UV sphere about the Y axis: rows of latitude, columns of longitude.",
        )
        .input("radius", 1.0, "radius")
        .param_ruled("rows", 16i64, "bands of latitude (2 to 10000)", SPHERE_ROWS)
        .plan_time()
        .param_ruled(
            "cols",
            32i64,
            "bands of longitude (3 to 10000)",
            SPHERE_COLS,
        )
        .plan_time()
        .output_of("out", MESH_TYPE, OUT)
        .run(|call, out| {
            let (r, c) = (count(call, 0, SPHERE_ROWS)?, count(call, 1, SPHERE_COLS)?);
            out[0] = generate::uv_sphere(call.node, float(call, 0)?, r, c)?.into_value();
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.icosphere",
            "A sphere of triangles: an icosahedron split `level` times (20 × 4^level faces).",
        )
        .input("radius", 1.0, "radius")
        .param_ruled(
            "level",
            2i64,
            "subdivisions (0 to 12; the size limit applies)",
            ICO_LEVEL,
        )
        .output_of("out", MESH_TYPE, OUT)
        .run(|call, out| {
            let level = count(call, 0, ICO_LEVEL)?;
            out[0] = generate::icosphere(call.node, float(call, 0)?, level)?.into_value();
            Ok(())
        }),
    )?;
    for (id, doc, cone) in [
        (
            "mesh.cylinder",
            "A closed cylinder about the Y axis, centred on the origin.",
            false,
        ),
        (
            "mesh.cone",
            "A closed cone about the Y axis, its tip at +height/2.",
            true,
        ),
    ] {
        let op = FnOp::new(id, doc)
            .input("radius", 0.5, "radius of the base")
            .input("height", 1.0, "height along Y")
            .param_ruled("cols", 24i64, "sides (3 to 100000)", RING_STEPS)
            .plan_time()
            .param_ruled("rows", 1i64, "bands along the height (1 to 100000)", BANDS)
            .plan_time()
            .output_of("out", MESH_TYPE, OUT);
        reg.register(if cone {
            op.run(|call, out| {
                let (c, r) = (count(call, 0, RING_STEPS)?, count(call, 1, BANDS)?);
                let (rad, h) = (float(call, 0)?, float(call, 1)?);
                out[0] = generate::cone(call.node, rad, h, c, r)?.into_value();
                Ok(())
            })
        } else {
            op.run(|call, out| {
                let (c, r) = (count(call, 0, RING_STEPS)?, count(call, 1, BANDS)?);
                let (rad, h) = (float(call, 0)?, float(call, 1)?);
                out[0] = generate::cylinder(call.node, rad, h, c, r)?.into_value();
                Ok(())
            })
        })?;
    }
    reg.register(
        FnOp::new("mesh.torus", "A torus about the Y axis.")
            .input("major", 1.0, "radius of the ring")
            .input("minor", 0.25, "radius of the tube")
            .param_ruled(
                "cols",
                32i64,
                "steps around the ring (3 to 100000)",
                RING_STEPS,
            )
            .plan_time()
            .param_ruled(
                "rows",
                12i64,
                "steps around the tube (3 to 100000)",
                RING_STEPS,
            )
            .plan_time()
            .output_of("out", MESH_TYPE, OUT)
            .run(|call, out| {
                let (c, r) = (count(call, 0, RING_STEPS)?, count(call, 1, RING_STEPS)?);
                let (a, b) = (float(call, 0)?, float(call, 1)?);
                out[0] = generate::torus(call.node, a, b, c, r)?.into_value();
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.circle",
            "A circle in the XZ plane: a polygon facing +Y, or a closed polyline.",
        )
        .input("radius", 1.0, "radius")
        .param_ruled("segments", 32i64, "sides (3 to 1000000)", CIRCLE_SIDES)
        .plan_time()
        .param("filled", true, "a polygon (true) or a polyline (false)")
        .output_of("out", MESH_TYPE, OUT)
        .run(|call, out| {
            let n = count(call, 0, CIRCLE_SIDES)?;
            let filled = call.param_bool(1)?;
            out[0] = generate::circle(call.node, float(call, 0)?, n, filled)?.into_value();
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.line",
            "A polyline of evenly spaced points from `start` to `end`.",
        )
        .input_of("start", Value::Vec3([0.0; 3]), "first point")
        .input_of("end", Value::Vec3([0.0, 1.0, 0.0]), "last point")
        .param_ruled("points", 10i64, "points (2 to 10000000)", LINE_POINTS)
        .plan_time()
        .output_of("out", MESH_TYPE, OUT)
        .run(|call, out| {
            let n = count(call, 0, LINE_POINTS)?;
            let m = generate::line(call.node, vec3(call, 0)?, vec3(call, 1)?, n)?;
            out[0] = m.into_value();
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.curve",
            "A smooth polyline (Catmull–Rom) through every given point.",
        )
        .param(
            "points",
            Value::List(Vec::new().into()),
            "the points, a list of [x, y, z]",
        )
        .param_ruled(
            "segments",
            8i64,
            "pieces between two given points (1 to 10000)",
            CURVE_PIECES,
        )
        .plan_time()
        .output_of("out", MESH_TYPE, OUT)
        .run(|call, out| {
            let items = call.params[0]
                .as_list()
                .ok_or_else(|| OpError::param(0, "expected a list of [x, y, z]"))?;
            let pts = items
                .iter()
                .map(super::ports::point)
                .collect::<Option<Vec<Vec3>>>()
                .ok_or_else(|| OpError::param(0, "expected a list of [x, y, z]"))?;
            let s = count(call, 1, CURVE_PIECES)?;
            out[0] = generate::curve_through(call.node, &pts, s)?.into_value();
            Ok(())
        }),
    )?;
    Ok(())
}
