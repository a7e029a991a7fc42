//! Attributes and groups carried through `mesh.boolean` and `mesh.simplify`, checked
//! against attributes that are known functions of position: a linear function of position,
//! blended barycentrically over a flat input triangle, is the same function at the blended
//! point, so the carried value must equal the function at the output position.

use glam::{Affine3A, Vec2, Vec3};
use kiln_mesh::edit::boolean::{BooleanOp, boolean};
use kiln_mesh::edit::{deform, normals, simplify};
use kiln_mesh::generate::*;
use kiln_mesh::measure::*;
use kiln_mesh::{AttribClass, AttribValues, Mesh};

fn colour(p: Vec3) -> Vec3 {
    Vec3::new(0.1 + 0.2 * p.x, 0.3 - 0.1 * p.y, 0.5 * p.z + 0.05)
}

fn tex(p: Vec3) -> Vec2 {
    Vec2::new(p.x + 2.0 * p.z, p.y - p.z)
}

/// `m` with point `Cd` = colour(P), vertex `uv` = tex(P), primitive `side` = `side`, flat
/// vertex normals, and the primitive group `top` of the faces facing +Y.
fn painted(mut m: Mesh, side: i32) -> Mesh {
    let cd = m.points.iter().map(|&p| colour(p)).collect();
    m.point_attrs.insert("Cd", AttribValues::Vec3(cd));
    let uv = m
        .vertices
        .iter()
        .map(|&v| tex(m.points[v as usize]))
        .collect();
    m.vertex_attrs.insert("uv", AttribValues::Vec2(uv));
    m.prim_attrs
        .insert("side", AttribValues::Int(vec![side; m.prims.len()]));
    let top = (0..m.prims.len())
        .filter(|&f| polygon_normal(&m, f).y > 0.99)
        .map(|f| f as u32)
        .collect();
    m.groups.set(AttribClass::Primitive, "top", top);
    normals::set_by_angle(&mut m, None);
    m
}

fn boxes() -> (Mesh, Mesh) {
    let a = painted(cube(Vec3::splat(2.0)), 1);
    let mut b = cube(Vec3::splat(2.0));
    deform::transform(&mut b, Affine3A::from_translation(Vec3::new(1.0, 1.0, 1.0)));
    (a, painted(b, 2))
}

/// How far `c` is from the surface of the axis-aligned box of centre `o` and half size 1.
fn off_box(c: Vec3, o: Vec3) -> f32 {
    ((c - o).abs().max_element() - 1.0).abs()
}

fn check_carried(r: &Mesh, op: BooleanOp) {
    r.check().unwrap();
    let cd = r.point_attrs.vec3("Cd").unwrap();
    for (p, c) in r.points.iter().zip(cd) {
        assert!((*c - colour(*p)).length() < 1e-5, "{op:?}: Cd {c} at {p}");
    }
    let uv = r.vertex_attrs.vec2("uv").unwrap();
    for (v, t) in r.vertices.iter().zip(uv) {
        let p = r.points[*v as usize];
        assert!((*t - tex(p)).length() < 1e-5, "{op:?}: uv {t} at {p}");
    }
    let Some(AttribValues::Int(side)) = r.prim_attrs.get("side") else {
        panic!("{op:?}: no side");
    };
    let n = r.vertex_attrs.vec3("N").unwrap();
    for (f, s) in side.iter().enumerate() {
        let c = polygon_centre(r, f);
        let (on_a, on_b) = (off_box(c, Vec3::ZERO) < 1e-5, off_box(c, Vec3::ONE) < 1e-5);
        match s {
            1 => assert!(on_a, "{op:?}: face {f} at {c} is not on a"),
            2 => assert!(on_b, "{op:?}: face {f} at {c} is not on b"),
            _ => panic!("{op:?}: side {s}"),
        }
        // The carried flat normal is the output face's own (b's turn inside out in a
        // difference).
        let face_n = polygon_normal(r, f);
        for v in r.prims[f].range() {
            assert!(
                n[v].dot(face_n) > 0.999,
                "{op:?}: N {} on face {f} facing {face_n}",
                n[v]
            );
        }
    }
    let top = &r.groups.prims["top"];
    assert!(!top.is_empty(), "{op:?}: the top group is empty");
    for (f, s) in side.iter().enumerate() {
        // On the top face of the box it came from (a's top is at y = 1, b's at y = 2).
        let on_top = (polygon_centre(r, f).y - *s as f32).abs() < 1e-5;
        assert_eq!(
            top.binary_search(&(f as u32)).is_ok(),
            on_top,
            "{op:?}: face {f}"
        );
    }
}

#[test]
fn boolean_carries_point_vertex_and_primitive_attributes_and_groups() {
    let (a, b) = boxes();
    for op in [
        BooleanOp::Union,
        BooleanOp::Difference,
        BooleanOp::Intersection,
    ] {
        let r = boolean(&a, &b, op).unwrap();
        assert!(is_closed_manifold(&r), "{op:?}");
        check_carried(&r, op);
        // Deterministic: the same inputs give the same mesh, bit for bit.
        assert_eq!(boolean(&a, &b, op).unwrap(), r, "{op:?}");
    }
}

#[test]
fn boolean_of_spheres_interpolates_colour_on_cut_points() {
    let a = painted(icosphere("a", 1.0, 2).unwrap(), 1);
    let mut b = icosphere("b", 1.0, 2).unwrap();
    deform::transform(&mut b, Affine3A::from_translation(Vec3::new(0.7, 0.2, 0.1)));
    let b = painted(b, 2);
    let r = boolean(&a, &b, BooleanOp::Union).unwrap();
    // Cut points are new: not a point of either input.
    let new = r
        .points
        .iter()
        .filter(|p| !a.points.contains(p) && !b.points.contains(p))
        .count();
    assert!(new > 10, "{new} new points");
    let cd = r.point_attrs.vec3("Cd").unwrap();
    for (p, c) in r.points.iter().zip(cd) {
        assert!((*c - colour(*p)).length() < 1e-5, "Cd {c} at {p}");
    }
}

#[test]
fn simplify_keeps_attributes_of_what_remains() {
    let mut ball = icosphere("s", 1.0, 4).unwrap();
    let ids = (0..ball.points.len() as i32).collect();
    ball.point_attrs.insert("id", AttribValues::Int(ids));
    let ball = painted(ball, 7);
    let mut ball = ball;
    let fid = (0..ball.prims.len() as i32).collect();
    ball.prim_attrs.insert("fid", AttribValues::Int(fid));
    let s = simplify::simplify(&ball, 0.25, 0.05);
    s.check().unwrap();
    assert!(s.prims.len() <= ball.prims.len() / 3);
    let Some(AttribValues::Int(id)) = s.point_attrs.get("id") else {
        panic!("no id");
    };
    let cd = s.point_attrs.vec3("Cd").unwrap();
    for (k, p) in s.points.iter().enumerate() {
        // Points are kept unmoved, with their own attributes.
        assert_eq!(ball.points[id[k] as usize], *p);
        assert!((cd[k] - colour(*p)).length() < 1e-6);
    }
    let uv = s.vertex_attrs.vec2("uv").unwrap();
    for (v, t) in s.vertices.iter().zip(uv) {
        assert!((*t - tex(s.points[*v as usize])).length() < 1e-5);
    }
    let Some(AttribValues::Int(fid)) = s.prim_attrs.get("fid") else {
        panic!("no fid");
    };
    assert_eq!(
        s.prim_attrs.get("side"),
        Some(&AttribValues::Int(vec![7; s.prims.len()]))
    );
    for (f, &src) in fid.iter().enumerate() {
        // The source face holds at least one of the triangle's points.
        let held = s.prim_points(f).iter().any(|&p| {
            ball.prim_points(src as usize)
                .contains(&(id[p as usize] as u32))
        });
        assert!(held, "triangle {f} from face {src}");
    }
    // Group members are the triangles whose source face was in the group.
    let top_in = &ball.groups.prims["top"];
    let top_out = &s.groups.prims["top"];
    for (f, &src) in fid.iter().enumerate() {
        let was = top_in.binary_search(&(src as u32)).is_ok();
        assert_eq!(top_out.binary_search(&(f as u32)).is_ok(), was);
    }
}
