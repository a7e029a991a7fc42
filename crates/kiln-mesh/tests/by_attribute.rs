//! `mesh.transform_by_attribute` and `edit::by_attribute`: each point moved by its own
//! attributes, checked against glam's maths written out in the test.

use glam::{Quat, Vec3, Vec4};
use kiln_core::prelude::*;
use kiln_mesh::edit::by_attribute::{DrivingAttributes, transform_by_attributes};
use kiln_mesh::{AttribValues, Mesh};

/// Three points with a scale, an orientation, a uniform scale, an offset and a normal each.
fn driven() -> Mesh {
    let mut m = Mesh::new();
    for p in [
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.5, 2.0, -1.0),
        Vec3::new(-3.0, 1.0, 4.0),
    ] {
        m.add_point(p);
    }
    m.add_polygon(&[0, 1, 2]);
    let q = [
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), 0.7),
        Quat::IDENTITY,
    ];
    m.point_attrs.insert(
        "orient",
        AttribValues::Vec4(q.iter().map(|q| Vec4::from(*q)).collect()),
    );
    m.point_attrs.insert(
        "scale",
        AttribValues::Vec3(vec![
            Vec3::new(2.0, 1.0, 1.0),
            Vec3::ONE,
            Vec3::new(1.0, 3.0, 0.5),
        ]),
    );
    m.point_attrs
        .insert("pscale", AttribValues::Float(vec![1.0, 0.5, 2.0]));
    m.point_attrs.insert(
        "translate",
        AttribValues::Vec3(vec![
            Vec3::ZERO,
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(-1.0, 2.0, 3.0),
        ]),
    );
    m.point_attrs
        .insert("N", AttribValues::Vec3(vec![Vec3::X, Vec3::Y, Vec3::Z]));
    m
}

#[test]
fn each_point_is_scaled_turned_about_the_pivot_and_moved() {
    let m = driven();
    let pivot = Vec3::new(0.5, -1.0, 2.0);
    let mut t = m.clone();
    transform_by_attributes(&mut t, &DrivingAttributes::default(), pivot).unwrap();
    let a = &m.point_attrs;
    let (Some(AttribValues::Vec4(q)), Some(s), Some(ps), Some(tr), Some(n)) = (
        a.get("orient"),
        a.vec3("scale"),
        a.float("pscale"),
        a.vec3("translate"),
        a.vec3("N"),
    ) else {
        panic!("attributes");
    };
    let out_n = t.point_attrs.vec3("N").unwrap();
    for i in 0..3 {
        let q = Quat::from_vec4(q[i]);
        let want = pivot + tr[i] + q * ((m.points[i] - pivot) * s[i] * ps[i]);
        assert!(
            (t.points[i] - want).length() < 1e-5,
            "{i}: {} vs {want}",
            t.points[i]
        );
        // Normals: by the inverse transpose, i.e. q * (n / scale), made unit.
        let want_n = (q * (n[i] / (s[i] * ps[i]))).normalize();
        assert!((out_n[i] - want_n).length() < 1e-5, "{i}: N {}", out_n[i]);
    }
    // Point 0 by hand: (1,0,0) - pivot = (0.5, 1, -2), scaled (1, 1, -2), turned 90° about Z
    // to (-1, 1, -2), plus the pivot: (-0.5, 0, 0).
    assert!(
        (t.points[0] - Vec3::new(-0.5, 0.0, 0.0)).length() < 1e-5,
        "{}",
        t.points[0]
    );
}

#[test]
fn orient_as_degrees_absent_parts_and_wrong_types() {
    let mut m = driven();
    m.point_attrs.remove("translate");
    m.point_attrs.remove("scale");
    m.point_attrs.remove("pscale");
    m.point_attrs.insert(
        "orient",
        AttribValues::Vec3(vec![Vec3::new(0.0, 0.0, 90.0); 3]),
    );
    let mut t = m.clone();
    transform_by_attributes(&mut t, &DrivingAttributes::default(), Vec3::ZERO).unwrap();
    // 90 degrees about Z: (x, y, z) goes to (-y, x, z).
    for (p, o) in t.points.iter().zip(&m.points) {
        assert!((*p - Vec3::new(-o.y, o.x, o.z)).length() < 1e-5);
    }
    // Nothing named: nothing moves.
    let none = DrivingAttributes {
        translate: String::new(),
        orient: String::new(),
        scale: String::new(),
        pscale: String::new(),
    };
    let mut same = m.clone();
    transform_by_attributes(&mut same, &none, Vec3::ONE).unwrap();
    assert_eq!(same.points, m.points);
    m.point_attrs
        .insert("pscale", AttribValues::Int(vec![1; 3]));
    let e = transform_by_attributes(&mut m, &DrivingAttributes::default(), Vec3::ZERO).unwrap_err();
    assert!(e.to_string().contains("`pscale` is int"), "{e}");
}

#[test]
fn the_op_reads_attributes_made_in_the_graph_and_names_its_node_on_error() {
    let mut g = Graph::new();
    g.add_node("grid", "mesh.grid").unwrap();
    g.add_node("ps", "mesh.attribute.create").unwrap();
    g.set_param("ps", "name", Value::str("pscale")).unwrap();
    g.set_param("ps", "type", Value::str("float")).unwrap();
    g.set_const("ps", "value", Value::Float(3.0)).unwrap();
    g.connect(PortRef::new("grid", "out"), PortRef::new("ps", "mesh"));
    g.add_node("move", "mesh.transform_by_attribute").unwrap();
    g.connect(PortRef::new("ps", "out"), PortRef::new("move", "mesh"));
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let out = eval
        .evaluate(&g, &Request::new(["grid", "move"]), &EvalContext::new())
        .unwrap();
    let grid = out.get("grid").unwrap().as_heavy::<Mesh>().unwrap();
    let moved = out.get("move").unwrap().as_heavy::<Mesh>().unwrap();
    for (a, b) in grid.points.iter().zip(&moved.points) {
        assert!((*a * 3.0 - *b).length() < 1e-5);
    }
    g.set_param("move", "orient", Value::str("pscale")).unwrap();
    let e = eval
        .evaluate(&g, &Request::new(["move"]), &EvalContext::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("move") && e.contains("`pscale` is float"), "{e}");
}
