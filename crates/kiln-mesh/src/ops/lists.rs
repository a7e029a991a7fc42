//! Ops between meshes and lists of plain values, the bridge to domains that know no mesh
//! (simulations): `mesh.point_list` (a mesh's points and normals as lists of vec3),
//! `mesh.segments` (line segments, vec4 `[x0, y0, x1, y1]`, as polylines or tubes) and
//! `mesh.copy_to_poses` (a copy of a mesh at each record `{position, rotation}`).

use super::ports::{float, mesh, point, put};
use crate::edit::poses::{Pose, copy_to_poses};
use crate::edit::segments::{MAX_SIDES, MIN_SIDES, segments_mesh};
use crate::value::MESH_TYPE;
use glam::{Quat, Vec3, Vec4};
use kiln_core::list_type::list_of;
use kiln_core::op::{FnOp, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use kiln_std::lists::MAX_LIST_LEN;

/// Sides of a tube's cross-section in `mesh.segments`.
const TUBE_SIDES: Rule = Rule::Ints {
    min: MIN_SIDES as i64,
    max: MAX_SIDES as i64,
};

/// Refuse a list of `n` elements at input `i` (or made for output, `i` `None`) over
/// [`MAX_LIST_LEN`].
fn check_len(node: &str, i: Option<usize>, n: usize) -> Result<(), OpError> {
    if n as u64 <= MAX_LIST_LEN {
        return Ok(());
    }
    let msg = format!(
        "node `{node}`: the list would have {n} elements, over the limit of {MAX_LIST_LEN} \
         (kiln_std::lists::MAX_LIST_LEN)"
    );
    Err(match i {
        Some(i) => OpError::input(i, msg),
        None => OpError::new(msg),
    })
}

/// Input `i` as a list, its length checked.
fn list_input<'a>(call: &'a kiln_core::op::OpCall<'_>, i: usize) -> Result<&'a [Value], OpError> {
    let v = call.inputs.get(i);
    let items = v.and_then(Value::as_list).ok_or_else(|| {
        OpError::input(
            i,
            format!(
                "expected a list, found {}",
                v.map_or("nothing", Value::type_name)
            ),
        )
    })?;
    check_len(call.node, Some(i), items.len())?;
    Ok(items)
}

/// A list item as four finite floats: a vec4 or a list of four numbers.
fn four(v: &Value) -> Option<Vec4> {
    let f = match v {
        Value::Vec4(a) => Vec4::new(a[0] as f32, a[1] as f32, a[2] as f32, a[3] as f32),
        Value::List(items) if items.len() == 4 => {
            let f: Option<Vec<f64>> = items.iter().map(Value::as_f64).collect();
            let f = f?;
            Vec4::new(f[0] as f32, f[1] as f32, f[2] as f32, f[3] as f32)
        }
        _ => return None,
    };
    f.is_finite().then_some(f)
}

fn vec3_list(points: &[Vec3]) -> Value {
    Value::list(
        points
            .iter()
            .map(|p| Value::Vec3([p.x as f64, p.y as f64, p.z as f64])),
    )
}

/// Element `k` of the poses list at input `i` as a pose.
fn pose(i: usize, k: usize, v: &Value) -> Result<Pose, OpError> {
    let bad = |what: &str| {
        OpError::input(
            i,
            format!("element {k}: expected a record {{position: vec3, rotation: vec4}}, {what}"),
        )
    };
    let r = v
        .as_record()
        .ok_or_else(|| bad(&format!("found {}", v.type_name())))?;
    let position = r
        .get("position")
        .and_then(point)
        .filter(|p| p.is_finite())
        .ok_or_else(|| bad("its `position` is not a finite vec3"))?;
    let q = r
        .get("rotation")
        .and_then(four)
        .filter(|q| q.length_squared() > 1e-12)
        .ok_or_else(|| bad("its `rotation` is not a finite, non-zero quaternion (x, y, z, w)"))?;
    Ok(Pose {
        position,
        rotation: Quat::from_vec4(q),
    })
}

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let points = list_of(ValueType::Vec3);
    reg.register(
        FnOp::new(
            "mesh.point_list",
            "A mesh's points as a list of vec3 positions, and their point normals `N` as a \
             list of vec3 (empty when the mesh has no point `N`; `mesh.normals` makes them). \
             Packed instances are not listed.",
        )
        .required("mesh", MESH_TYPE, "the mesh")
        .output_of("points", points, "the positions, in point order")
        .output_of(
            "normals",
            points,
            "the point normals, in point order (empty without point `N`)",
        )
        .run(|call, out| {
            let m = mesh(call, 0)?;
            check_len(call.node, None, m.points.len())?;
            out[0] = vec3_list(&m.points);
            out[1] = vec3_list(m.point_attrs.vec3("N").unwrap_or(&[]));
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.segments",
            "Line segments of the XY plane (vec4 [x0, y0, x1, y1], as `sim.tree.lines` gives \
             them) as a mesh: one open polyline per segment, or with `radius` > 0 a closed \
             tube of `sides` sides around each (capped; primitive attribute `segment`).",
        )
        .required(
            "segments",
            list_of(ValueType::Vec4),
            "the segments, [x0, y0, x1, y1] each",
        )
        .input("radius", 0.0, "the tubes' radius (0: polylines)")
        .param_ruled(
            "sides",
            6i64,
            "sides of a tube's cross-section (3 to 64)",
            TUBE_SIDES,
        )
.plan_time()
        .output_of("out", MESH_TYPE, "the polylines or tubes, as one mesh")
        .run(|call, out| {
            let items = list_input(call, 0)?;
            let radius = float(call, 1)?;
            if !(radius.is_finite() && radius >= 0.0) {
                return Err(OpError::input(
                    1,
                    format!("expected a finite radius of 0 or more, found {radius}"),
                ));
            }
            let sides = super::ports::count(call, 0, TUBE_SIDES)?;
            let segs = items
                .iter()
                .enumerate()
                .map(|(k, v)| {
                    four(v).ok_or_else(|| {
                        OpError::input(
                            0,
                            format!(
                                "element {k}: expected four finite numbers [x0, y0, x1, y1], found {}",
                                v.type_name()
                            ),
                        )
                    })
                })
                .collect::<Result<Vec<Vec4>, OpError>>()?;
            put(out, segments_mesh(call.node, &segs, radius, sides)?);
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new(
            "mesh.copy_to_poses",
            "A copy of `source` at each pose of a list of records {position: vec3, rotation: \
             vec4 (a quaternion x, y, z, w)}, as `sim.rigid.points` gives them: turned by the \
             rotation about the source's origin, then moved to the position; with `packed`, \
             instances instead of copied geometry.",
        )
        .required("source", MESH_TYPE, "the mesh copied")
        .required(
            "poses",
            ValueType::List,
            "records {position, rotation}, one per copy",
        )
        .param(
            "packed",
            false,
            "make packed instances (`mesh.unpack` expands them; files place or expand them)",
        )
        .output_of("out", MESH_TYPE, "every copy, as one mesh")
        .run(|call, out| {
            let source = mesh(call, 0)?;
            let items = list_input(call, 1)?;
            let poses = items
                .iter()
                .enumerate()
                .map(|(k, v)| pose(1, k, v))
                .collect::<Result<Vec<Pose>, OpError>>()?;
            put(
                out,
                copy_to_poses(call.node, source, &poses, call.param_bool(0)?)?,
            );
            Ok(())
        }),
    )?;
    Ok(())
}
