//! Copies placed by poses (records {position, rotation}, as rigid bodies report them): each
//! copy's bounding box is the source's turned by the quaternion and centred on its position,
//! and a point turns as the quaternion formula v' = v + 2w (q × v) + 2 q × (q × v) says.

use glam::{Quat, Vec3};
use kiln_core::prelude::*;
use kiln_core::record::Record;
use kiln_mesh::edit::packed::unpack;
use kiln_mesh::edit::poses::{Pose, copy_to_poses};
use kiln_mesh::generate::cube;
use kiln_mesh::measure::bounds;
use kiln_mesh::{AttribValues, Mesh};
use std::sync::Arc;

/// Rotate `v` by the unit quaternion (x, y, z, w) with the formula, in f64.
fn turn(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let u = [q[0], q[1], q[2]];
    let t = cross(u, v);
    let tt = cross(u, t);
    [0, 1, 2].map(|i| v[i] + 2.0 * q[3] * t[i] + 2.0 * tt[i])
}

fn unit(q: [f64; 4]) -> [f64; 4] {
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.map(|c| c / n)
}

#[test]
fn a_turned_point_is_where_the_quaternion_formula_puts_it() {
    let mut source = Mesh::new();
    source.add_point(Vec3::new(0.3, -1.2, 2.0));
    for q in [
        [0.0, 0.0, 0.0, 1.0],
        // A quarter turn about +Z: (x, y) → (-y, x).
        [0.0, 0.0, (0.5f64).sqrt(), (0.5f64).sqrt()],
        unit([0.2, -0.7, 0.4, 0.5]),
        // Not unit: normalised before use.
        [0.4, -1.4, 0.8, 1.0],
    ] {
        let at = [1.0, 2.0, -3.0];
        let pose = Pose {
            position: Vec3::new(1.0, 2.0, -3.0),
            rotation: Quat::from_xyzw(q[0] as f32, q[1] as f32, q[2] as f32, q[3] as f32),
        };
        let m = copy_to_poses("c", &source, &[pose], false).unwrap();
        let want = turn(unit(q), [0.3, -1.2, 2.0]);
        for i in 0..3 {
            let got = m.points[0][i] as f64;
            assert!(
                (got - (want[i] + at[i])).abs() < 1e-5,
                "{q:?}: {got} vs {want:?}"
            );
        }
    }
}

#[test]
fn each_copys_box_is_centred_on_its_position() {
    let source = cube(Vec3::new(2.0, 1.0, 0.5));
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let poses = [
        Pose {
            position: Vec3::new(0.0, 0.5, 0.0),
            rotation: Quat::IDENTITY,
        },
        Pose {
            position: Vec3::new(5.0, 1.0, -2.0),
            // A quarter turn about +Y swaps the x and z extents.
            rotation: Quat::from_xyzw(0.0, half, 0.0, half),
        },
        Pose {
            position: Vec3::new(-3.0, 4.0, 1.0),
            // A half turn about +X keeps the box's extents.
            rotation: Quat::from_xyzw(1.0, 0.0, 0.0, 0.0),
        },
    ];
    let extents = [
        Vec3::new(2.0, 1.0, 0.5),
        Vec3::new(0.5, 1.0, 2.0),
        Vec3::new(2.0, 1.0, 0.5),
    ];
    let m = copy_to_poses("c", &source, &poses, false).unwrap();
    m.check().unwrap();
    assert_eq!(m.prims.len(), 3 * 6);
    let Some(AttribValues::Int(copy)) = m.prim_attrs.get("copy") else {
        panic!("no `copy`")
    };
    for (i, pose) in poses.iter().enumerate() {
        let mut one = Mesh::new();
        for (p, _) in copy.iter().enumerate().filter(|(_, c)| **c == i as i32) {
            for &v in m.prim_points(p) {
                one.add_point(m.points[v as usize]);
            }
        }
        let (lo, hi) = bounds(&one).unwrap();
        assert!(
            ((lo + hi) / 2.0 - pose.position).length() < 1e-5,
            "copy {i}"
        );
        assert!(
            (hi - lo - extents[i]).length() < 1e-5,
            "copy {i}: {}",
            hi - lo
        );
    }
    // Packed: the same geometry once unpacked.
    let packed = copy_to_poses("p", &source, &poses, true).unwrap();
    assert_eq!(packed.instance_count(), 3);
    assert_eq!(unpack("u", &packed).unwrap(), m);
}

fn pose_record(p: [f64; 3], q: [f64; 4]) -> Value {
    Value::Record(Arc::new(Record::new([
        (Arc::from("position"), Value::Vec3(p)),
        (Arc::from("rotation"), Value::Vec4(q)),
    ])))
}

#[test]
fn the_op_reads_records_and_names_a_bad_one() {
    let mut g = Graph::new();
    g.add_node("box", "mesh.box").unwrap();
    g.add_node("pile", "mesh.copy_to_poses").unwrap();
    g.wire("box.out", "pile.source");
    let poses = Value::list([
        pose_record([0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0]),
        pose_record([2.0, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0]),
    ]);
    g.set_const("pile", "poses", poses).unwrap();
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let out = eval
        .evaluate(&g, &Request::new(["pile"]), &EvalContext::new())
        .unwrap();
    let m = out.get("pile").unwrap().as_heavy::<Mesh>().unwrap();
    let (lo, hi) = bounds(m).unwrap();
    assert!((lo - Vec3::new(-0.5, 0.0, -0.5)).length() < 1e-6, "{lo}");
    assert!((hi - Vec3::new(2.5, 1.0, 0.5)).length() < 1e-6, "{hi}");
    let bad = Value::list([
        pose_record([0.0; 3], [0.0, 0.0, 0.0, 1.0]),
        pose_record([0.0; 3], [0.0; 4]),
    ]);
    g.set_const("pile", "poses", bad).unwrap();
    let e = eval
        .evaluate(&g, &Request::new(["pile"]), &EvalContext::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("pile") && e.contains("element 1") && e.contains("rotation"),
        "{e}"
    );
}
