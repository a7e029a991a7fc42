//! Ops between meshes and lists of plain values, the bridge to domains that know no mesh
//! (simulations): `mesh.point_list` (a mesh's points and normals as lists of vec3),
//! `mesh.segments` (line segments, vec4 `[x0, y0, x1, y1]`, as polylines or tubes) and
//! `mesh.copy_to_poses` (a copy of a mesh at each record `{position, rotation}`).

use super::ports::point;
use crate::Mesh;
use crate::edit::poses::{Pose, copy_to_poses};
use crate::edit::segments::{MAX_SIDES, MIN_SIDES, segments_mesh};
use glam::{Quat, Vec3, Vec4};
use kiln_core::list_type::list_of;
use kiln_core::op;
use kiln_core::op::{OpCall, OpError, Rule};
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

/// A list at a typed list port (`list<vec4>`, `list<vec3>`, or any list), for ops written
/// with `#[op]`: the elements, and as an output the list made.
macro_rules! typed_list {
    ($name:ident, $ty:expr, $what:literal) => {
        #[doc = concat!("A `", $what, "` port.")]
        pub(crate) struct $name<'a>(pub &'a [Value]);

        impl<'a> kiln_core::op::port::FromPort<'a> for $name<'a> {
            fn port_type() -> ValueType {
                $ty
            }
            fn from_port(v: &'a Value) -> Option<Self> {
                v.as_list().map($name)
            }
        }
    };
}
typed_list!(Vec4s, list_of(ValueType::Vec4), "list<vec4>");
typed_list!(Records, ValueType::List, "list");

/// A list of vec3 as an output (`list<vec3>`).
pub(crate) struct Vec3s(Value);

impl kiln_core::op::port::IntoPort for Vec3s {
    fn port_type() -> ValueType {
        list_of(ValueType::Vec3)
    }
    fn into_port(self) -> Value {
        self.0
    }
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

/// A mesh's points as a list of vec3 positions, and their point normals `N` as a list of vec3 (empty when the mesh has no point `N`; `mesh.normals` makes them). Packed instances are not listed.
#[op(
    "mesh.point_list",
    outputs(
        "points" = "the positions, in point order",
        "normals" = "the point normals, in point order (empty without point `N`)"
    )
)]
pub fn point_list(
    #[input("the mesh")] mesh: &Mesh,
    call: &OpCall,
) -> Result<(Vec3s, Vec3s), OpError> {
    check_len(call.node, None, mesh.points.len())?;
    Ok((
        Vec3s(vec3_list(&mesh.points)),
        Vec3s(vec3_list(mesh.point_attrs.vec3("N").unwrap_or(&[]))),
    ))
}

/// Line segments of the XY plane (vec4 [x0, y0, x1, y1], as `sim.tree.lines` gives them) as a mesh: one open polyline per segment, or with `radius` > 0 a closed tube of `sides` sides around each (capped; primitive attribute `segment`).
#[op("mesh.segments", out = "the polylines or tubes, as one mesh")]
pub fn segments(
    #[input("the segments, [x0, y0, x1, y1] each")] segments: Vec4s,
    #[input("the tubes' radius (0: polylines)", default = 0.0)] radius: f64,
    #[param("sides of a tube's cross-section", default = 6, rule = TUBE_SIDES, plan_time)]
    sides: i64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let items = segments.0;
    check_len(call.node, Some(0), items.len())?;
    let radius = radius as f32;
    if !(radius.is_finite() && radius >= 0.0) {
        return Err(OpError::input(
            1,
            format!("expected a finite radius of 0 or more, found {radius}"),
        ));
    }
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
    Ok(segments_mesh(call.node, &segs, radius, sides as u32)?)
}

/// A copy of `source` at each pose of a list of records {position: vec3, rotation: vec4 (a quaternion x, y, z, w)}, as `sim.rigid.points` gives them: turned by the rotation about the source's origin, then moved to the position; with `packed`, instances instead of copied geometry.
#[op("mesh.copy_to_poses", out = "every copy, as one mesh")]
pub fn copy_to_pose_list(
    #[input("the mesh copied")] source: &Mesh,
    #[input("records {position, rotation}, one per copy")] poses: Records,
    #[param(
        "make packed instances (`mesh.unpack` expands them; files place or expand them)",
        default = false
    )]
    packed: bool,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    let items = poses.0;
    check_len(call.node, Some(1), items.len())?;
    let poses = items
        .iter()
        .enumerate()
        .map(|(k, v)| pose(1, k, v))
        .collect::<Result<Vec<Pose>, OpError>>()?;
    Ok(copy_to_poses(call.node, source, &poses, packed)?)
}

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(PointListOp::new())?;
    reg.register(SegmentsOp::new())?;
    reg.register(CopyToPoseListOp::new())
}
