//! Line segments as meshes: polylines through their ends, or closed tubes, each a
//! consistently oriented 2-manifold of Euler characteristic 2 whose volume is the prism's,
//! n/2 r² sin(2π/n) × length, lying around its segment in the XY plane.

use glam::{Vec3, Vec4};
use kiln_core::prelude::*;
use kiln_mesh::edit::segments::segments_mesh;
use kiln_mesh::measure::{bounds, euler_characteristic, is_closed_manifold, volume};
use kiln_mesh::{AttribValues, Mesh, PrimKind};
use std::f64::consts::PI;

/// A small branching tree: a trunk and two branches from its top, and a twig.
fn branches() -> Vec<Vec4> {
    vec![
        Vec4::new(0.0, 0.0, 0.0, 1.0),
        Vec4::new(0.0, 1.0, 0.6, 1.8),
        Vec4::new(0.0, 1.0, -0.5, 1.7),
        Vec4::new(0.6, 1.8, 0.6, 2.3),
    ]
}

fn length(s: Vec4) -> f64 {
    ((s.z - s.x) as f64).hypot((s.w - s.y) as f64)
}

#[test]
fn each_tube_is_a_closed_oriented_manifold_of_the_prisms_volume() {
    let segs = branches();
    for sides in [3u32, 6, 11] {
        let r = 0.05f32;
        let m = segments_mesh("t", &segs, r, sides).unwrap();
        m.check().unwrap();
        assert!(is_closed_manifold(&m), "{sides} sides");
        // Four disjoint spheres (topologically): χ = 2 each.
        assert_eq!(euler_characteristic(&m), 2 * segs.len() as i64);
        assert_eq!(m.prims.len(), segs.len() * (sides as usize + 2));
        let n = sides as f64;
        let area = n / 2.0 * (r as f64).powi(2) * (2.0 * PI / n).sin();
        let want: f64 = segs.iter().map(|&s| area * length(s)).sum();
        assert!(
            (volume(&m) - want).abs() < 1e-6 * want.max(1.0),
            "{} vs {want}",
            volume(&m)
        );
        // Each tube alone: its own closed manifold, every point within r of its segment.
        let Some(AttribValues::Int(ids)) = m.prim_attrs.get("segment") else {
            panic!("no `segment` attribute")
        };
        for (i, s) in segs.iter().enumerate() {
            let (a, b) = (Vec3::new(s.x, s.y, 0.0), Vec3::new(s.z, s.w, 0.0));
            let mut one = Mesh::new();
            one.points = m.points.clone();
            for (p, _) in ids.iter().enumerate().filter(|(_, id)| **id == i as i32) {
                one.add_polygon(m.prim_points(p));
            }
            assert!(is_closed_manifold(&one) && euler_characteristic(&one) == 2);
            for &p in one.prims.iter().flat_map(|p| &one.vertices[p.range()]) {
                let q = m.points[p as usize];
                let t = ((q - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                let d = (q - (a + (b - a) * t)).length();
                assert!((d - r).abs() < 1e-5, "a ring point {d} from its axis");
            }
        }
    }
}

#[test]
fn without_a_radius_segments_are_polylines_through_their_ends() {
    let segs = branches();
    let m = segments_mesh("l", &segs, 0.0, 6).unwrap();
    assert_eq!(m.prims.len(), segs.len());
    assert!(
        m.prims
            .iter()
            .all(|p| p.kind == PrimKind::Polyline && p.count == 2)
    );
    for (i, s) in segs.iter().enumerate() {
        let pts = m.prim_points(i);
        assert_eq!(m.points[pts[0] as usize], Vec3::new(s.x, s.y, 0.0));
        assert_eq!(m.points[pts[1] as usize], Vec3::new(s.z, s.w, 0.0));
    }
}

#[test]
fn the_op_reads_a_list_of_vec4_and_refuses_what_is_not_one() {
    let mut g = Graph::new();
    g.add_node("tubes", "mesh.segments").unwrap();
    let list = Value::list(
        branches()
            .iter()
            .map(|s| Value::Vec4(s.to_array().map(|c| c as f64))),
    );
    g.set_const("tubes", "segments", list).unwrap();
    g.set_const("tubes", "radius", Value::Float(0.1)).unwrap();
    g.set_param("tubes", "sides", Value::Int(8)).unwrap();
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let out = eval
        .evaluate(&g, &Request::new(["tubes"]), &EvalContext::new())
        .unwrap();
    let m = out.get("tubes").unwrap().as_heavy::<Mesh>().unwrap();
    assert_eq!(euler_characteristic(m), 8);
    // Around the segments in the XY plane: z within the radius, y from -r to 2.3 + r.
    let (lo, hi) = bounds(m).unwrap();
    assert!(
        (lo.z + 0.1).abs() < 1e-5 && (hi.z - 0.1).abs() < 1e-5,
        "{lo} {hi}"
    );
    assert!(lo.y >= -0.1 - 1e-5 && hi.y <= 2.4 + 1e-5, "{lo} {hi}");
    g.set_const(
        "tubes",
        "segments",
        Value::list([Value::Vec4([0.0, 0.0, 1.0, f64::NAN])]),
    )
    .unwrap();
    let e = eval
        .evaluate(&g, &Request::new(["tubes"]), &EvalContext::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("tubes") && e.contains("element 0"), "{e}");
}
