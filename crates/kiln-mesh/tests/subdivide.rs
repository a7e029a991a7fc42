//! Subdivision against published facts: Catmull–Clark's first level on a cube (face points
//! at face centres, edge points at (3/4, 3/4, 0), corners at 5/9 = (F + 2R) / 3 for a cube of half-size 1),
//! its limit corner at 1/2 (the limit mask (n²P + 4ΣE + ΣF) / n(n + 5)), Loop's limit
//! position by its mask, face counts and topology kept.

use glam::Vec3;
use kiln_mesh::edit::subdivide::{catmull_clark, loop_subdivide};
use kiln_mesh::generate::{cube, grid, icosphere};
use kiln_mesh::measure::{euler_characteristic, is_closed_manifold, volume};

fn has(points: &[Vec3], p: Vec3) -> bool {
    points.iter().any(|q| (*q - p).length() < 1e-6)
}

#[test]
fn catmull_clark_on_a_cube_matches_the_first_level() {
    let m = catmull_clark("s", &cube(Vec3::splat(2.0))).unwrap();
    assert_eq!(m.prims.len(), 24);
    assert_eq!(m.points.len(), 8 + 6 + 12);
    assert!(is_closed_manifold(&m));
    assert_eq!(euler_characteristic(&m), 2);
    // The original points come first, moved to (F + 2R)/3 = (1/3 + 4/3)/3 = 5/9.
    for p in &m.points[..8] {
        assert!((p.abs() - Vec3::splat(5.0 / 9.0)).length() < 1e-6, "{p}");
    }
    assert!(has(&m.points, Vec3::X) && has(&m.points, -Vec3::Z));
    assert!(has(&m.points, Vec3::new(0.75, 0.75, 0.0)));
    assert!(has(&m.points, Vec3::new(-0.75, 0.0, 0.75)));
}

#[test]
fn catmull_clark_converges_to_the_limit_of_the_cube() {
    let mut m = cube(Vec3::splat(2.0));
    let mut err = f32::INFINITY;
    for _ in 0..5 {
        m = catmull_clark("s", &m).unwrap();
        let e = (m.points[7] - Vec3::splat(0.5)).length();
        assert!(e < err, "no closer to the limit");
        err = e;
        assert!(volume(&m) > 0.0);
    }
    assert!(err < 0.01, "{err}");
    assert_eq!(m.prims.len(), 6 * 4usize.pow(5));
}

#[test]
fn loop_reaches_its_limit_mask_and_keeps_the_sphere_closed() {
    let ico = icosphere("s", 1.0, 0).unwrap();
    // The limit of a valence-5 point: (1 − nχ)v + χΣq, χ = 1 / (3 / (8β) + n).
    let n = 5.0f32;
    let c = 0.375 + 0.25 * (std::f32::consts::TAU / n).cos();
    let beta = (0.625 - c * c) / n;
    let chi = 1.0 / (3.0 / (8.0 * beta) + n);
    let p0 = ico.points[0];
    let ring: Vec3 = ico
        .points
        .iter()
        .filter(|q| (**q - p0).length() > 1e-3 && (**q - p0).length() < 1.1)
        .sum();
    let limit = (1.0 - n * chi) * p0 + chi * ring;
    let mut m = ico;
    let mut last = f32::INFINITY;
    for level in 1..=5 {
        m = loop_subdivide("s", &m).unwrap();
        assert_eq!(m.prims.len(), 20 * 4usize.pow(level));
        assert!(is_closed_manifold(&m));
        assert_eq!(euler_characteristic(&m), 2);
        let e = (m.points[0] - limit).length();
        assert!(e < last);
        last = e;
    }
    assert!(last < 1e-3, "{last}");
}

#[test]
fn open_grids_keep_their_boundary_and_loop_wants_triangles() {
    let g = grid("g", glam::Vec2::splat(2.0), 2, 2).unwrap();
    let m = catmull_clark("s", &g).unwrap();
    assert_eq!(m.prims.len(), 16);
    // Boundary edge midpoints stay on the boundary line x = 1.
    assert!(has(&m.points, Vec3::new(1.0, 0.0, 0.5)));
    // The uv point attribute follows: still one per point.
    assert_eq!(m.point_attrs.vec2("uv").unwrap().len(), m.points.len());
    let e = loop_subdivide("s", &g).unwrap_err();
    assert!(e.to_string().contains("triangulate first"), "{e}");
}

/// Chained levels are refused before the first is made, by the size of the last: a grid of
/// 1000 × 1000 quads subdivided four times is a grid of 16000 × 16000, 16001² = 256,032,001
/// points (the per-level check used to stop at the third level, 8001² points, after making
/// the first two).
#[test]
fn a_subdivision_over_the_limit_is_refused_by_its_final_size() {
    use kiln_core::prelude::*;
    let mut g = Graph::new();
    g.add_node("plane", "mesh.grid").unwrap();
    g.set_param("plane", "cols", Value::Int(1000)).unwrap();
    g.set_param("plane", "rows", Value::Int(1000)).unwrap();
    g.add_node("smooth", "mesh.subdivide").unwrap();
    g.set_param("smooth", "levels", Value::Int(4)).unwrap();
    g.wire("plane.out", "smooth.mesh");
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let e = eval
        .evaluate(&g, &Request::new(["smooth"]), &EvalContext::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("smooth") && e.contains("256032001 points") && e.contains("MAX_POINTS"),
        "{e}"
    );
}
