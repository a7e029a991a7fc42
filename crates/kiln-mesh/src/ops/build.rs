//! Ops that rebuild topology: `mesh.subdivide`, `mesh.extrude`, `mesh.merge`, `mesh.merge_all`, `mesh.fuse`,
//! `mesh.boolean`, `mesh.simplify`, `mesh.scatter`, `mesh.copy_to_points`, `mesh.unpack`.

use super::ports::{choice, count, float, mesh, put, seed};
use crate::edit::boolean::{BooleanOp, boolean_at};
use crate::edit::extrude::{Extrude, extrude};
use crate::edit::{copy, packed, restructure, scatter, simplify, subdivide};
use crate::geometry::Mesh;
use crate::value::MESH_TYPE;
use kiln_core::list_type::list_of;
use kiln_core::op::{FnOp, InputSpec, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// Times `mesh.subdivide` subdivides.
const SUBDIVIDE_LEVELS: Rule = Rule::Ints { min: 0, max: 8 };
/// Points `mesh.scatter` is asked for.
const SCATTER_COUNT: Rule = Rule::Ints {
    min: 0,
    max: 10_000_000,
};

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(
        FnOp::new("mesh.subdivide", "Subdivision surface: Catmull–Clark (any polygons, quads out) or Loop (triangles), `levels` times.")
            .required("mesh", MESH_TYPE, "the mesh")
            .param("scheme", "catmull-clark", "catmull-clark or loop")
            .param_ruled("levels", 1i64, "times to subdivide (0 to 8; the size limit applies)", SUBDIVIDE_LEVELS)
.plan_time()
            .output_of("out", MESH_TYPE, "the subdivided mesh")
            .run(|call, out| {
                let scheme = choice(call, 0, &["catmull-clark", "loop"])?;
                let levels = count(call, 1, SUBDIVIDE_LEVELS)?;
                let input = mesh(call, 0)?;
                // The size of the last level is known before the first is made: a mesh over a
                // limit, or more than the memory budget holds, is refused before any level. (A
                // single level checks its own size before it allocates.)
                if levels > 1 {
                    let (points, prims, vertices, bytes) =
                        subdivide::subdivided_size(input, scheme == "loop", levels);
                    crate::limits::check_size(call.node, points, prims, vertices)?;
                    kiln_core::memory::check(bytes, || {
                        format!("node `{}`: {levels} levels of subdivision ({points} points)", call.node)
                    })
                    .map_err(|e| OpError::new(e.to_string()))?;
                }
                // The first level reads the input in place; later levels read the last.
                let mut m: Option<Mesh> = None;
                for _ in 0..levels {
                    call.check_cancel()?;
                    let from = m.as_ref().unwrap_or(input);
                    m = Some(if scheme == "loop" {
                        subdivide::loop_subdivide(call.node, from).map_err(|e| OpError::input(0, e.to_string()))?
                    } else {
                        subdivide::catmull_clark(call.node, from)?
                    });
                }
                put(out, m.unwrap_or_else(|| input.clone()));
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new("mesh.extrude", "Extrude and inset faces, each on its own; fronts go in group `extrude_front`, sides in `extrude_side`.")
            .required("mesh", MESH_TYPE, "the mesh")
            .input("distance", 0.1, "how far along the face normal")
            .input("inset", 0.0, "how far toward the face centre (0 to 1)")
            .param("group", "", "the primitive group extruded (empty: every polygon)")
            .param("keep_back", false, "keep each face, reversed, as a back (closes a lone profile)")
            .output_of("out", MESH_TYPE, "the extruded mesh")
            .run(|call, out| {
                let m = mesh(call, 0)?;
                let group = call.param_str(0)?;
                let selected = m.groups.prim_mask(group, m.prims.len()).ok_or_else(|| {
                    OpError::param(0, format!("the mesh has no primitive group `{group}`"))
                })?;
                let s = Extrude {
                    distance: float(call, 1)?,
                    inset: float(call, 2)?.clamp(0.0, 1.0),
                    keep_back: call.param_bool(1)?,
                };
                put(out, extrude(call.node, m, &selected, s)?);
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.merge",
            "Both meshes as one: b's elements after a's, attributes and groups of both.",
        )
        .required("a", MESH_TYPE, "the first mesh")
        .required("b", MESH_TYPE, "the second mesh")
        .output_of("out", MESH_TYPE, "the merged mesh")
        .run(|call, out| {
            put(
                out,
                restructure::merge(call.node, mesh(call, 0)?, mesh(call, 1)?)?,
            );
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.merge_all",
            "Every mesh that reaches `meshes` as one, in their order: each one's elements after \
             those before it, attributes and groups of all, detail from the first. A \
             collective input: several wires queue in order of their source's node id, then \
             port; a list source gives its elements.",
        )
        .input_spec(
            InputSpec::optional(
                "meshes",
                list_of(MESH_TYPE),
                Value::List(Vec::new().into()),
                "the meshes (none when unwired: an empty mesh)",
            )
            .collective(),
        )
        .output_of("out", MESH_TYPE, "the merged mesh")
        .run(|call, out| {
            let items = call
                .inputs
                .first()
                .and_then(Value::as_list)
                .ok_or_else(|| OpError::input(0, "expected a list of meshes"))?;
            let meshes = items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_heavy::<Mesh>().ok_or_else(|| {
                        OpError::input(0, format!("item {i} is {}, expected a mesh", v.type_name()))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            put(out, restructure::merge_all(call.node, &meshes)?);
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new("mesh.fuse", "Fuse points within `distance` of an earlier one; collapsed primitives and unused points go.")
            .required("mesh", MESH_TYPE, "the mesh")
            .input("distance", 0.001, "the reach")
            .output_of("out", MESH_TYPE, "the fused mesh")
            .run(|call, out| {
                put(out, restructure::fuse(mesh(call, 0)?, float(call, 1)?));
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.boolean",
            "Union, difference or intersection of two closed meshes (boolmesh, Manifold's \
             algorithm); triangles out, attributes and groups carried from the faces they came from.",
        )
        .required("a", MESH_TYPE, "the first solid")
        .required("b", MESH_TYPE, "the second solid")
        .param(
            "operation",
            "union",
            "union, difference (a minus b) or intersection",
        )
        .output_of("out", MESH_TYPE, "the resulting solid")
        .run(|call, out| {
            let op = match choice(call, 0, &["union", "difference", "intersection"])? {
                "union" => BooleanOp::Union,
                "difference" => BooleanOp::Difference,
                _ => BooleanOp::Intersection,
            };
            let r = boolean_at(call.node, mesh(call, 0)?, mesh(call, 1)?, op)
                .map_err(|e| OpError::new(e.to_string()))?;
            put(out, r);
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.simplify",
            "Fewer triangles, the shape kept (meshoptimizer's edge collapse): toward `ratio` of \
             them, within `error` of the mesh's extent.",
        )
        .required("mesh", MESH_TYPE, "the mesh")
        .input("ratio", 0.5, "the share of triangles kept (0 to 1)")
        .input(
            "error",
            0.01,
            "the largest deviation, relative to the mesh's extent",
        )
        .output_of("out", MESH_TYPE, "the simplified mesh")
        .run(|call, out| {
            let m = simplify::simplify(mesh(call, 0)?, float(call, 1)?, float(call, 2)?);
            put(out, m);
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new("mesh.scatter", "Seeded points on the surface, area-weighted, no two nearer than `min_distance`; each with its face's `N`.")
            .required("mesh", MESH_TYPE, "the surface")
            .input("min_distance", 0.0, "the least distance between two points (0: any)")
            .param_ruled("count", 100i64, "points asked for (0 to 10000000; fewer when the distance leaves no room)", SCATTER_COUNT)
.plan_time()
            .param("seed", 0i64, "the seed")
            .output_of("out", MESH_TYPE, "the points")
            .run(|call, out| {
                let n = count(call, 0, SCATTER_COUNT)?;
                let args = (n, seed(call, 1)?, float(call, 1)?);
                // A long scatter reports its progress and stops when the cook is cancelled.
                let mut step = |fraction: f32| {
                    call.ctx.report_node_progress(fraction);
                    call.ctx.is_cancelled()
                };
                let m = scatter::scatter_with(call.node, mesh(call, 0)?, args, &mut step)
                    .map_err(|e| match e {
                        scatter::ScatterError::Limit(l) => OpError::from(l),
                        scatter::ScatterError::Stopped => OpError::cancelled(),
                    })?;
                put(out, m);
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new("mesh.copy_to_points", "A copy of `source` on every point of `target`, turned by `orient` or `N` (+Y to N) and scaled by `pscale` and `scale`; with `packed`, instances (one shared source and a transform per copy) instead of copied geometry.")
            .required("source", MESH_TYPE, "the mesh copied")
            .required("target", MESH_TYPE, "the points copied onto")
            .param("packed", false, "make packed instances (`mesh.unpack` expands them; files place or expand them)")
            .output_of("out", MESH_TYPE, "every copy, as one mesh")
            .run(|call, out| {
                let (source, target) = (mesh(call, 0)?, mesh(call, 1)?);
                let m = if call.param_bool(0)? {
                    packed::pack_to_points(call.node, source, target)?
                } else {
                    copy::copy_to_points(call.node, source, target)?
                };
                put(out, m);
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.unpack",
            "Turn packed instances into real geometry, after the mesh's own (each copy's \
             primitives get `copy`, its instance's index).",
        )
        .required("mesh", MESH_TYPE, "the mesh with packed instances")
        .output_of("out", MESH_TYPE, "the mesh with every instance as geometry")
        .run(|call, out| {
            put(out, packed::unpack(call.node, mesh(call, 0)?)?);
            Ok(())
        }),
    )?;
    Ok(())
}
