//! Ambient occlusion and curvature of height fields whose answers are known: a plain, a
//! wall worked by hand, a pit; a sphere cap (curvature 2 / R) and a paraboloid (-4a at its
//! bottom); tiles stay tiles with wrapped edges, 1 and several threads give the same bits.

use kiln_core::prelude::*;
use kiln_image::image::Image;

fn graph(w: i64, h: i64, formula: &str, op: &str, params: &[(&str, Value)]) -> Graph {
    let mut g = Graph::new();
    g.add_node("src", "image.expr").unwrap();
    g.set_param("src", "width", w).unwrap();
    g.set_param("src", "height", h).unwrap();
    g.set_param("src", "formula", formula).unwrap();
    g.add_node("n", op).unwrap();
    for (k, v) in params {
        g.set_param("n", k, v.clone()).unwrap();
    }
    g.wire("src.out", "n.height");
    g
}

fn eval(g: &Graph, id: &str) -> Image {
    let reg = kiln_image::registry();
    let d = validate(g, &reg);
    assert!(d.is_empty(), "{d:?}");
    let mut ev = LazyEvaluator::new(reg);
    let out = ev
        .evaluate(g, &Request::new([id]), &EvalContext::new())
        .unwrap();
    out.get(id).unwrap().as_heavy::<Image>().unwrap().clone()
}

#[test]
fn a_plain_is_unoccluded() {
    let out = eval(&graph(9, 7, "0.4", "image.ambient_occlusion", &[]), "n");
    assert!(out.pixels.iter().all(|p| *p == [1.0, 1.0, 1.0, 1.0]));
}

#[test]
fn occlusion_at_the_foot_of_a_wall_by_hand() {
    // Height 1 from column 5 on, depth 1, four directions, radius 4, clamped edges. At
    // column 4 only +x rises: slope 1 at distance 1, occluding sin(atan 1) = 1/sqrt 2, a
    // quarter of the mean. At column 2 the steepest rise is 1/3 (distance 3): occluding
    // (1/3) / sqrt(1 + 1/9) = 1/sqrt 10. On the wall nothing rises.
    let p = [
        ("radius", Value::Int(4)),
        ("depth", Value::Float(1.0)),
        ("directions", Value::Int(4)),
        ("edges", Value::str("clamp")),
    ];
    let out = eval(
        &graph(12, 5, "step(4.75, px)", "image.ambient_occlusion", &p),
        "n",
    );
    let at = |x: u32| out.get(x, 2)[0] as f64;
    assert!(
        (at(4) - (1.0 - 0.25 / 2f64.sqrt())).abs() < 1e-6,
        "{}",
        at(4)
    );
    assert!(
        (at(2) - (1.0 - 0.25 / 10f64.sqrt())).abs() < 1e-6,
        "{}",
        at(2)
    );
    assert_eq!(at(0), 1.0); // the wall is 5 away, past the radius
    assert_eq!(at(7), 1.0);
}

#[test]
fn a_pit_is_darker_at_its_centre_than_at_its_rim() {
    // A bowl of radius 16 in a plateau of height 1: the centre sees the walls rise all
    // round; a pixel on the plateau past the rim sees nothing rise.
    let bowl = "saturate(((px - 20) ^ 2 + (py - 20) ^ 2) / 256)";
    let p = [("radius", Value::Int(8)), ("depth", Value::Float(8.0))];
    let out = eval(&graph(40, 40, bowl, "image.ambient_occlusion", &p), "n");
    let centre = out.get(20, 20)[0];
    let rim = out.get(20, 38)[0];
    assert!(centre < rim - 0.05, "centre {centre}, rim {rim}");
    assert!(out.pixels.iter().all(|p| (0.0..=1.0).contains(&p[0])));
}

#[test]
fn curvature_of_a_sphere_cap_and_a_paraboloid() {
    // A sphere of radius 40 px: heights sqrt(R^2 - r^2) / R with depth R. Its mean
    // curvature is the same everywhere: div n = 2 / R = 0.05.
    let r = 40.0;
    let cap = format!("sqrt(max({r} * {r} - (px - 32) ^ 2 - (py - 32) ^ 2, 0)) / {r}");
    let p = [
        ("depth", Value::Float(r)),
        ("output", Value::str("raw")),
        ("edges", Value::str("clamp")),
    ];
    let out = eval(&graph(64, 64, &cap, "image.curvature", &p), "n");
    for (x, y) in [(32, 32), (40, 30), (25, 45), (44, 44)] {
        let k = out.get(x, y)[0] as f64;
        assert!((k - 2.0 / r).abs() < 0.02 * 2.0 / r, "({x}, {y}): {k}");
    }
    // z = a r^2 with a = 0.01 (heights 0.001 r^2, depth 10): at the bottom, n = (-2a x,
    // -2a y, 1) / sqrt(...), so div n = -4a = -0.04.
    let bowl = "0.001 * ((px - 16) ^ 2 + (py - 16) ^ 2)";
    let p = [
        ("depth", Value::Float(10.0)),
        ("output", Value::str("raw")),
        ("edges", Value::str("clamp")),
    ];
    let out = eval(&graph(33, 33, bowl, "image.curvature", &p), "n");
    let k = out.get(16, 16)[0] as f64;
    assert!((k + 0.04).abs() < 0.04 * 0.02, "{k}");
    // A plane has none; the map puts 0 at grey and bumps above it.
    let p = [("edges", Value::str("clamp"))];
    let out = eval(
        &graph(9, 9, "0.03 * px + 0.01 * py", "image.curvature", &p),
        "n",
    );
    for y in 2..7 {
        for x in 2..7 {
            assert!((out.get(x, y)[0] - 0.5).abs() < 1e-5);
        }
    }
    let p = [("depth", Value::Float(r)), ("strength", Value::Float(10.0))];
    let out = eval(&graph(64, 64, &cap, "image.curvature", &p), "n");
    let g = out.get(32, 32)[0] as f64;
    assert!((g - (0.5 + 0.5 * 10.0 * 0.05)).abs() < 0.01, "{g}");
}

#[test]
fn tiles_stay_tiles_and_threads_do_not_change_bits() {
    let tile = |size: i64, cells: f64, op: &str| {
        let mut g = Graph::new();
        g.add_node("src", "image.fractal").unwrap();
        g.set_param("src", "width", size).unwrap();
        g.set_param("src", "height", size).unwrap();
        g.set_param("src", "cells", cells).unwrap();
        g.set_param("src", "period", 2i64).unwrap();
        g.add_node("n", op).unwrap();
        if op == "image.ambient_occlusion" {
            g.set_param("n", "radius", 6i64).unwrap();
        }
        g.wire("src.out", "n.height");
        eval(&g, "n")
    };
    for op in ["image.ambient_occlusion", "image.curvature"] {
        let one = tile(24, 2.0, op);
        let two = tile(48, 4.0, op);
        for y in 0..24 {
            for x in 0..24 {
                let v = one.get(x, y)[0];
                for (ox, oy) in [(24, 0), (0, 24), (24, 24)] {
                    let w = two.get(x + ox, y + oy)[0];
                    assert!((v - w).abs() < 1e-4, "{op} at ({x}, {y}) + ({ox}, {oy})");
                }
            }
        }
        let g = graph(70, 53, "0.5 + 0.3 * sin(px * 0.4) * cos(py * 0.3)", op, &[]);
        let render = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| eval(&g, "n").pixels)
        };
        let one = render(1);
        assert!(one == render(2) && one == render(5), "{op}");
    }
}

#[test]
fn out_of_range_params_are_refused() {
    let reg = kiln_image::registry();
    for (op, k, v) in [
        ("image.ambient_occlusion", "radius", Value::Int(0)),
        ("image.ambient_occlusion", "directions", Value::Int(65)),
        ("image.curvature", "output", Value::str("mean")),
        ("image.curvature", "depth", Value::Float(-1.0)),
    ] {
        let g = graph(4, 4, "px", op, &[(k, v)]);
        assert!(!validate(&g, &reg).is_empty(), "{op} {k}");
    }
}
