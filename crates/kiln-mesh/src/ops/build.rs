//! Ops that rebuild topology: `mesh.subdivide`, `mesh.extrude`, `mesh.merge`,
//! `mesh.merge_all`, `mesh.fuse`, `mesh.boolean`, `mesh.simplify`, `mesh.scatter`,
//! `mesh.copy_to_points`, `mesh.unpack`. Each is one function with the `#[op]` attribute.

use super::ports::Meshes;
use crate::edit::boolean::{BooleanOp, boolean_at};
use crate::edit::extrude::{Extrude, extrude};
use crate::edit::{copy, packed, restructure, scatter, simplify, subdivide};
use crate::geometry::Mesh;
use kiln_core::op;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// Subdivision surface: Catmull–Clark (any polygons, quads out) or Loop (triangles), `levels` times.
#[op("mesh.subdivide", out = "the subdivided mesh")]
pub fn subdivide(
    #[input("the mesh")] mesh: &Mesh,
    #[param("catmull-clark or loop", default = "catmull-clark", rule = Rule::OneOf(&["catmull-clark", "loop"]))]
    scheme: &str,
    #[param("times to subdivide (the size limit applies)", default = 1, range = 0..=8, plan_time)]
    levels: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let levels = levels as u32;
    let looped = scheme == "loop";
    // The size of the last level is known before the first is made: a mesh over a limit, or
    // more than the memory budget holds, is refused before any level. (A single level checks
    // its own size before it allocates.)
    if levels > 1 {
        let (points, prims, vertices, bytes) = subdivide::subdivided_size(mesh, looped, levels);
        crate::limits::check_size(call.node, points, prims, vertices)?;
        kiln_core::memory::check(bytes, || {
            format!(
                "node `{}`: {levels} levels of subdivision ({points} points)",
                call.node
            )
        })
        .map_err(|e| OpError::new(e.to_string()))?;
    }
    // The first level reads the input in place; later levels read the last.
    let mut m: Option<Mesh> = None;
    for _ in 0..levels {
        call.check_cancel()?;
        let from = m.as_ref().unwrap_or(mesh);
        m = Some(if looped {
            subdivide::loop_subdivide(call.node, from)
                .map_err(|e| OpError::input(0, e.to_string()))?
        } else {
            subdivide::catmull_clark(call.node, from)?
        });
    }
    Ok(m.unwrap_or_else(|| mesh.clone()))
}

/// Extrude and inset faces, each on its own; fronts go in group `extrude_front`, sides in `extrude_side`.
#[op("mesh.extrude", out = "the extruded mesh")]
pub fn extrude_faces(
    #[input("the mesh")] mesh: &Mesh,
    #[input("how far along the face normal", default = 0.1)] distance: f64,
    #[input("how far toward the face centre (0 to 1)", default = 0.0)] inset: f64,
    #[param("the primitive group extruded (empty: every polygon)", default = "")] group: &str,
    #[param(
        "keep each face, reversed, as a back (closes a lone profile)",
        default = false
    )]
    keep_back: bool,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let selected = mesh
        .groups
        .prim_mask(group, mesh.prims.len())
        .ok_or_else(|| OpError::param(0, format!("the mesh has no primitive group `{group}`")))?;
    let s = Extrude {
        distance: distance as f32,
        inset: (inset as f32).clamp(0.0, 1.0),
        keep_back,
    };
    Ok(extrude(call.node, mesh, &selected, s)?)
}

/// Both meshes as one: b's elements after a's, attributes and groups of both.
#[op("mesh.merge", out = "the merged mesh")]
pub fn merge(
    #[input("the first mesh")] a: &Mesh,
    #[input("the second mesh")] b: &Mesh,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(restructure::merge(call.node, a, b)?)
}

/// Every mesh that reaches `meshes` as one, in their order: each one's elements after those before it, attributes and groups of all, detail from the first. A collective input: several wires queue in order of their source's node id, then port; a list source gives its elements.
#[op("mesh.merge_all", out = "the merged mesh")]
pub fn merge_all(
    #[input("the meshes (none when unwired: an empty mesh)", default = Meshes(vec![]), collective)]
    meshes: Meshes,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(restructure::merge_all(call.node, &meshes.0)?)
}

/// Fuse points within `distance` of an earlier one; collapsed primitives and unused points go.
#[op("mesh.fuse", out = "the fused mesh")]
pub fn fuse(
    #[input("the mesh")] mesh: &Mesh,
    #[input("the reach", default = 0.001)] distance: f64,
) -> Mesh {
    restructure::fuse(mesh, distance as f32)
}

/// Union, difference or intersection of two closed meshes (boolmesh, Manifold's algorithm); triangles out, attributes and groups carried from the faces they came from.
#[op("mesh.boolean", out = "the resulting solid")]
pub fn boolean_solid(
    #[input("the first solid")] a: &Mesh,
    #[input("the second solid")] b: &Mesh,
    #[param("union, difference (a minus b) or intersection", default = "union", rule = Rule::OneOf(&["union", "difference", "intersection"]))]
    operation: &str,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let op = match operation {
        "union" => BooleanOp::Union,
        "difference" => BooleanOp::Difference,
        _ => BooleanOp::Intersection,
    };
    boolean_at(call.node, a, b, op).map_err(|e| OpError::new(e.to_string()))
}

/// Fewer triangles, the shape kept (meshoptimizer's edge collapse): toward `ratio` of them, within `error` of the mesh's extent.
#[op("mesh.simplify", out = "the simplified mesh")]
pub fn simplify_mesh(
    #[input("the mesh")] mesh: &Mesh,
    #[input("the share of triangles kept (0 to 1)", default = 0.5)] ratio: f64,
    #[input("the largest deviation, relative to the mesh's extent", default = 0.01)] error: f64,
) -> Mesh {
    simplify::simplify(mesh, ratio as f32, error as f32)
}

/// Seeded points on the surface, area-weighted, no two nearer than `min_distance`; each with its face's `N`.
#[op("mesh.scatter", out = "the points")]
pub fn scatter_points(
    #[input("the surface")] mesh: &Mesh,
    #[input("the least distance between two points (0: any)", default = 0.0)] min_distance: f64,
    #[param("points asked for (fewer when the distance leaves no room)", default = 100, range = 0..=10_000_000, plan_time)]
    count: i64,
    #[param("the seed", default = 0)] seed: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let args = (count as u32, seed as u64, min_distance as f32);
    // A long scatter reports its progress and stops when the cook is cancelled.
    let mut step = |fraction: f32| {
        call.ctx.report_node_progress(fraction);
        call.ctx.is_cancelled()
    };
    scatter::scatter_with(call.node, mesh, args, &mut step).map_err(|e| match e {
        scatter::ScatterError::Limit(l) => OpError::from(l),
        scatter::ScatterError::Stopped => OpError::cancelled(),
    })
}

/// A copy of `source` on every point of `target`, turned by `orient` or `N` (+Y to N) and scaled by `pscale` and `scale`; with `packed`, instances (one shared source and a transform per copy) instead of copied geometry.
#[op("mesh.copy_to_points", out = "every copy, as one mesh")]
pub fn copy_to_points(
    #[input("the mesh copied")] source: &Mesh,
    #[input("the points copied onto")] target: &Mesh,
    #[param(
        "make packed instances (`mesh.unpack` expands them; files place or expand them)",
        default = false
    )]
    packed: bool,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(if packed {
        packed::pack_to_points(call.node, source, target)?
    } else {
        copy::copy_to_points(call.node, source, target)?
    })
}

/// Turn packed instances into real geometry, after the mesh's own (each copy's primitives get `copy`, its instance's index).
#[op("mesh.unpack", out = "the mesh with every instance as geometry")]
pub fn unpack(
    #[input("the mesh with packed instances")] mesh: &Mesh,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(packed::unpack(call.node, mesh)?)
}

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(SubdivideOp::new())?;
    reg.register(ExtrudeFacesOp::new())?;
    reg.register(MergeOp::new())?;
    reg.register(MergeAllOp::new())?;
    reg.register(FuseOp::new())?;
    reg.register(BooleanSolidOp::new())?;
    reg.register(SimplifyMeshOp::new())?;
    reg.register(ScatterPointsOp::new())?;
    reg.register(CopyToPointsOp::new())?;
    reg.register(UnpackOp::new())
}
