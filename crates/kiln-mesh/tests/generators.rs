//! Every generator against facts of geometry: closed shapes are consistently oriented
//! 2-manifolds with the Euler characteristic of their topology (2 for a sphere, 0 for a
//! torus), their volumes are the closed forms of their polyhedra, and spheres converge to
//! 4/3 π r³ and 4 π r².

use glam::{Vec2, Vec3};
use kiln_mesh::generate::*;
use kiln_mesh::measure::{area, euler_characteristic, is_closed_manifold, volume};
use std::f64::consts::PI;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[test]
fn closed_generators_are_oriented_manifolds_of_their_topology() {
    let shapes = [
        ("cube", cube(Vec3::ONE), 2),
        ("uv sphere", uv_sphere("s", 1.0, 8, 12).unwrap(), 2),
        ("icosphere", icosphere("s", 1.0, 2).unwrap(), 2),
        ("cylinder", cylinder("s", 1.0, 2.0, 10, 3).unwrap(), 2),
        ("cone", cone("s", 1.0, 2.0, 10, 3).unwrap(), 2),
        ("torus", torus("s", 2.0, 0.5, 16, 8).unwrap(), 0),
    ];
    for (name, m, chi) in shapes {
        m.check().unwrap();
        assert!(is_closed_manifold(&m), "{name} is not a closed manifold");
        assert_eq!(euler_characteristic(&m), chi, "{name}");
        assert!(volume(&m) > 0.0, "{name} winds inwards");
    }
}

#[test]
fn volumes_are_those_of_the_polyhedra() {
    assert!(close(volume(&cube(Vec3::new(1.0, 2.0, 3.0))), 6.0, 1e-6));
    assert!(close(area(&cube(Vec3::new(1.0, 2.0, 3.0))), 22.0, 1e-6));
    // A prism on a regular n-gon of circumradius r: n/2 r² sin(2π/n) × h; a pyramid a third.
    let n = 10.0;
    let base = n / 2.0 * (2.0 * PI / n).sin();
    assert!(close(
        volume(&cylinder("c", 1.0, 2.0, 10, 3).unwrap()),
        base * 2.0,
        1e-5
    ));
    assert!(close(
        volume(&cone("c", 1.0, 2.0, 10, 1).unwrap()),
        base * 2.0 / 3.0,
        1e-5
    ));
    // The torus of many sides approaches 2π² R r².
    let t = volume(&torus("t", 2.0, 0.5, 256, 128).unwrap());
    assert!(close(t, 2.0 * PI * PI * 2.0 * 0.25, 1e-3), "{t}");
}

#[test]
fn spheres_converge_to_the_sphere() {
    let mut last_err = f64::INFINITY;
    for level in 1..=5 {
        let m = icosphere("s", 2.0, level).unwrap();
        assert_eq!(m.prims.len(), 20 * 4usize.pow(level));
        let err = (volume(&m) - 4.0 / 3.0 * PI * 8.0).abs();
        assert!(err < last_err, "level {level} is no closer");
        last_err = err;
        for p in &m.points {
            assert!((p.length() - 2.0).abs() < 1e-5);
        }
    }
    let m = icosphere("s", 2.0, 5).unwrap();
    assert!(close(volume(&m), 4.0 / 3.0 * PI * 8.0, 2e-3));
    assert!(close(area(&m), 4.0 * PI * 4.0, 2e-3));
    let uv = uv_sphere("s", 1.0, 128, 256).unwrap();
    assert!(close(volume(&uv), 4.0 / 3.0 * PI, 1e-3));
}

#[test]
fn grids_and_curves_have_their_sizes() {
    let g = grid("g", Vec2::new(4.0, 2.0), 8, 3).unwrap();
    assert_eq!((g.points.len(), g.prims.len()), (9 * 4, 24));
    assert!(close(area(&g), 8.0, 1e-6));
    assert_eq!(euler_characteristic(&g), 1); // a disk
    let l = line("l", Vec3::ZERO, Vec3::X * 3.0, 4).unwrap();
    assert_eq!(l.points[1], Vec3::X);
    let c = circle("c", 1.0, 6, true).unwrap();
    // A regular hexagon of circumradius 1: 3√3/2.
    assert!(close(area(&c), 3.0 * 3f64.sqrt() / 2.0, 1e-6));
    let open = circle("c", 1.0, 6, false).unwrap();
    assert_eq!(open.vertices.len(), 7);
    let through = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0)];
    let k = curve_through("k", &through, 5).unwrap();
    assert_eq!(k.points.len(), 11);
    for (i, p) in through.iter().enumerate() {
        assert!((k.points[i * 5] - *p).length() < 1e-6, "misses point {i}");
    }
}

#[test]
fn heightfields_rise_by_luminance() {
    let img = kiln_image::image::Image::filled(5, 4, [0.5, 0.5, 0.5, 1.0]);
    let m = heightfield("h", &img, Vec2::ONE, 2.0).unwrap();
    assert_eq!((m.points.len(), m.prims.len()), (20, 12));
    assert!(m.points.iter().all(|p| (p.y - 1.0).abs() < 1e-6));
}

#[test]
fn sizes_over_the_limits_are_refused_before_allocating() {
    let e = icosphere("rock", 1.0, 30).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("node `rock`"), "{text}");
    assert!(text.contains("kiln_mesh::MAX_POINTS"), "{text}");
    assert!(grid("g", Vec2::ONE, 1 << 20, 1 << 20).is_err());
}
