//! The generator ops: `mesh.grid`, `mesh.box`, `mesh.sphere`, `mesh.icosphere`,
//! `mesh.cylinder`, `mesh.cone`, `mesh.torus`, `mesh.circle`, `mesh.line`, `mesh.curve`
//! (`mesh.heightfield` is with the other image ops). Each is one function with the
//! `#[op]` attribute: its ports, their ranges (checked by validation and the evaluators
//! before the function runs) and its doc are declared there once.

use super::ports::{V2, V3};
use crate::generate;
use crate::geometry::Mesh;
use glam::{Vec2, Vec3};
use kiln_core::op;
use kiln_core::op::{OpCall, OpError};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// A count its range has checked (at least 1, at most a `u32`'s worth by every range here).
fn n(x: i64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// A grid of quads in the XZ plane (Y up), centred, with point `uv`.
#[op("mesh.grid", out = "the mesh")]
pub fn grid(
    #[input("extent along X and Z", default = V2(Vec2::ONE))] size: V2,
    #[param("quads along X", default = 10, range = 1..=100_000, plan_time)] cols: i64,
    #[param("quads along Z", default = 10, range = 1..=100_000, plan_time)] rows: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(generate::grid(call.node, size.0, n(cols), n(rows))?)
}

/// An axis-aligned box centred on the origin: 8 points, 6 quads.
#[op("mesh.box", out = "the mesh")]
pub fn cube(#[input("extent along X, Y and Z", default = V3(Vec3::ONE))] size: V3) -> Mesh {
    generate::cube(size.0)
}

/// A UV sphere about the Y axis: rows of latitude, columns of longitude.
#[op("mesh.sphere", out = "the mesh")]
pub fn sphere(
    #[input("radius", default = 1.0)] radius: f64,
    #[param("bands of latitude", default = 16, range = 2..=10_000, plan_time)] rows: i64,
    #[param("bands of longitude", default = 32, range = 3..=10_000, plan_time)] cols: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(generate::uv_sphere(
        call.node,
        radius as f32,
        n(rows),
        n(cols),
    )?)
}

/// A sphere of triangles: an icosahedron split `level` times (20 × 4^level faces).
#[op("mesh.icosphere", out = "the mesh")]
pub fn icosphere(
    #[input("radius", default = 1.0)] radius: f64,
    #[param("subdivisions (the size limit applies)", default = 2, range = 0..=12, plan_time)]
    level: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(generate::icosphere(call.node, radius as f32, n(level))?)
}

/// A closed cylinder about the Y axis, centred on the origin.
#[op("mesh.cylinder", out = "the mesh")]
pub fn cylinder(
    #[input("radius of the base", default = 0.5)] radius: f64,
    #[input("height along Y", default = 1.0)] height: f64,
    #[param("sides", default = 24, range = 3..=100_000, plan_time)] cols: i64,
    #[param("bands along the height", default = 1, range = 1..=100_000, plan_time)] rows: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let (r, h) = (radius as f32, height as f32);
    Ok(generate::cylinder(call.node, r, h, n(cols), n(rows))?)
}

/// A closed cone about the Y axis, its tip at +height/2.
#[op("mesh.cone", out = "the mesh")]
pub fn cone(
    #[input("radius of the base", default = 0.5)] radius: f64,
    #[input("height along Y", default = 1.0)] height: f64,
    #[param("sides", default = 24, range = 3..=100_000, plan_time)] cols: i64,
    #[param("bands along the height", default = 1, range = 1..=100_000, plan_time)] rows: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let (r, h) = (radius as f32, height as f32);
    Ok(generate::cone(call.node, r, h, n(cols), n(rows))?)
}

/// A torus about the Y axis.
#[op("mesh.torus", out = "the mesh")]
pub fn torus(
    #[input("radius of the ring", default = 1.0)] major: f64,
    #[input("radius of the tube", default = 0.25)] minor: f64,
    #[param("steps around the ring", default = 32, range = 3..=100_000, plan_time)] cols: i64,
    #[param("steps around the tube", default = 12, range = 3..=100_000, plan_time)] rows: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let (a, b) = (major as f32, minor as f32);
    Ok(generate::torus(call.node, a, b, n(cols), n(rows))?)
}

/// A circle in the XZ plane: a polygon facing +Y, or a closed polyline.
#[op("mesh.circle", out = "the mesh")]
pub fn circle(
    #[input("radius", default = 1.0)] radius: f64,
    #[param("sides", default = 32, range = 3..=1_000_000, plan_time)] segments: i64,
    #[param("a polygon (true) or a polyline (false)", default = true)] filled: bool,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(generate::circle(
        call.node,
        radius as f32,
        n(segments),
        filled,
    )?)
}

/// A polyline of evenly spaced points from `start` to `end`.
#[op("mesh.line", out = "the mesh")]
pub fn line(
    #[input("first point", default = V3(Vec3::ZERO))] start: V3,
    #[input("last point", default = V3(Vec3::Y))] end: V3,
    #[param("points", default = 10, range = 2..=10_000_000, plan_time)] points: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(generate::line(call.node, start.0, end.0, n(points))?)
}

/// A smooth polyline (Catmull–Rom) through every given point.
#[op("mesh.curve", out = "the mesh")]
pub fn curve(
    #[param("the points, a list of [x, y, z]", default = Vec::<Value>::new())] points: &[Value],
    #[param("pieces between two given points", default = 8, range = 1..=10_000, plan_time)]
    segments: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let pts = points
        .iter()
        .map(super::ports::point)
        .collect::<Option<Vec<Vec3>>>()
        .ok_or_else(|| OpError::param(0, "expected a list of [x, y, z]"))?;
    Ok(generate::curve_through(call.node, &pts, n(segments))?)
}

/// Register the generators.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(GridOp::new())?;
    reg.register(CubeOp::new())?;
    reg.register(SphereOp::new())?;
    reg.register(IcosphereOp::new())?;
    reg.register(CylinderOp::new())?;
    reg.register(ConeOp::new())?;
    reg.register(TorusOp::new())?;
    reg.register(CircleOp::new())?;
    reg.register(LineOp::new())?;
    reg.register(CurveOp::new())
}
