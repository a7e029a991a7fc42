//! The filters of `kernels`, `streak_blur` and `erosion` against references written here: a
//! box blur against a direct convolution, Sobel against the kernel worked by hand, sharpen
//! against a direct Gaussian, motion and slope blur against naive loops, erosion against a
//! hand-worked step and its conservation of height; every filter keeps a constant image
//! constant, a tile filtered with wrapped edges stays a tile, and 1, 2 and 5 threads give
//! the same bits.

use kiln_core::prelude::*;
use kiln_image::image::Image;

/// A graph: `src` an `image.expr` of `formula` over `w` x `h` pixels, then `op` reading it
/// at `port` with `params`.
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
    let port = if op == "image.erode" {
        "height"
    } else {
        "image"
    };
    g.wire("src.out", &format!("n.{port}"));
    if op == "image.slope_blur" {
        g.wire("src.out", "n.slope");
    }
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

fn run(w: i64, h: i64, formula: &str, op: &str, params: &[(&str, Value)]) -> (Image, Image) {
    let g = graph(w, h, formula, op, params);
    (eval(&g, "src"), eval(&g, "n"))
}

/// A lumpy grey pattern that is not separable and not symmetric.
const LUMPY: &str = "0.5 + 0.3 * sin(px * 1.7 + py * 0.4) * cos(py * 0.9 - px * 0.3)";

fn wrap(i: i64, n: u32) -> u32 {
    i.rem_euclid(n as i64) as u32
}

fn clampi(i: i64, n: u32) -> u32 {
    i.clamp(0, n as i64 - 1) as u32
}

#[test]
fn box_blur_is_a_direct_convolution() {
    for (edges, idx) in [("wrap", wrap as fn(i64, u32) -> u32), ("clamp", clampi)] {
        let p = [("radius", Value::Int(2)), ("edges", Value::str(edges))];
        let (src, out) = run(11, 9, LUMPY, "image.box_blur", &p);
        for y in 0..9i64 {
            for x in 0..11i64 {
                let mut s = 0.0f64;
                for dy in -2..=2 {
                    for dx in -2..=2 {
                        s += src.get(idx(x + dx, 11), idx(y + dy, 9))[0] as f64;
                    }
                }
                let got = out.get(x as u32, y as u32)[0] as f64;
                assert!((got - s / 25.0).abs() < 1e-6, "{edges} ({x}, {y})");
            }
        }
    }
}

#[test]
fn sobel_edges_and_emboss_match_the_kernel_by_hand() {
    // A ramp rising 0.1 a pixel to the right: the right column weighs 1 + 2 + 1 = 4 times
    // 0.1 (x + 1) and the left 4 times 0.1 (x - 1), so Gx = 8 * 0.1 and |G| / 8 = 0.1 inside (clamped edges keep the columns at the border
    // from seeing past it).
    let p = [("edges", Value::str("clamp"))];
    let (_, e) = run(6, 5, "px * 0.1", "image.edges", &p);
    for y in 0..5 {
        for x in 1..5 {
            assert!((e.get(x, y)[0] - 0.1).abs() < 1e-6, "({x}, {y})");
        }
    }
    // Lit from the right (angle 0), a slope rising to the right faces away: 0.5 - 1 * 0.1;
    // lit from the left (180), it faces the light: 0.5 + 0.1.
    for (angle, want) in [(0.0, 0.4f32), (180.0, 0.6)] {
        let mut g = graph(6, 5, "px * 0.1", "image.emboss", &[]);
        g.set_const("n", "strength", 1.0).unwrap();
        g.set_const("n", "angle", angle).unwrap();
        g.set_param("n", "edges", "clamp").unwrap();
        let got = eval(&g, "n").get(2, 2)[0];
        assert!((got - want).abs() < 1e-6, "angle {angle}: {got}");
    }

    // One bright pixel at (2, 2) of a 5 x 5 black image: its left neighbour sees it in the
    // middle of the right column (weight 2): |G| = 2, so 2 / 8; the diagonal neighbour
    // (1, 1) sees it once in Gx and once in Gy: sqrt(2) / 8; the pixel itself sees only its
    // black ring: 0.
    let (_, spike) = run(
        5,
        5,
        "select(1 - abs(px - 2) - abs(py - 2), 1, 0)",
        "image.edges",
        &[],
    );
    assert!((spike.get(1, 2)[0] - 0.25).abs() < 1e-6);
    assert!((spike.get(1, 1)[0] - 2f32.sqrt() / 8.0).abs() < 1e-6);
    assert_eq!(spike.get(2, 2)[0], 0.0);
    assert_eq!(spike.get(0, 0)[0], 0.0);
}

#[test]
fn sharpen_adds_back_the_difference_from_a_direct_gaussian() {
    let sigma = 1.0f64;
    let mut g = graph(10, 8, LUMPY, "image.sharpen", &[]);
    g.set_const("n", "amount", 0.7).unwrap();
    g.set_const("n", "sigma", sigma).unwrap();
    let (src, out) = (eval(&g, "src"), eval(&g, "n"));
    let r = 3i64;
    let wt = |d: i64| (-(d * d) as f64 / (2.0 * sigma * sigma)).exp();
    let norm: f64 = (-r..=r).map(wt).sum();
    for y in 0..8i64 {
        for x in 0..10i64 {
            let mut b = 0.0;
            for dy in -r..=r {
                for dx in -r..=r {
                    let v = src.get(wrap(x + dx, 10), wrap(y + dy, 8))[0] as f64;
                    b += wt(dx) * wt(dy) / (norm * norm) * v;
                }
            }
            let p = src.get(x as u32, y as u32)[0] as f64;
            let got = out.get(x as u32, y as u32);
            assert!(
                (got[0] as f64 - (p + 0.7 * (p - b))).abs() < 1e-5,
                "({x}, {y})"
            );
            assert_eq!(got[3], 1.0);
        }
    }
}

#[test]
fn motion_and_slope_blur_match_naive_loops() {
    // Along the rows, 2 pixels long: three samples at the centres x - 1, x, x + 1.
    let mut g = graph(9, 4, LUMPY, "image.directional_blur", &[]);
    g.set_const("n", "length", 2.0).unwrap();
    let (src, out) = (eval(&g, "src"), eval(&g, "n"));
    for y in 0..4 {
        for x in 0..9i64 {
            let s: f64 = (-1..=1).map(|d| src.get(wrap(x + d, 9), y)[0] as f64).sum();
            assert!((out.get(x as u32, y)[0] as f64 - s / 3.0).abs() < 1e-6);
        }
    }
    // Slope blur of a ramp rising to the right by itself: downhill is -x, steps of one pixel
    // land on pixel centres, so it is the mean of the pixel and the `samples` to its left.
    let mut g = graph(16, 3, "px * 0.05", "image.slope_blur", &[]);
    g.set_const("n", "length", 4.0).unwrap();
    g.set_param("n", "samples", 4i64).unwrap();
    g.set_param("n", "edges", "clamp").unwrap();
    let (src, out) = (eval(&g, "src"), eval(&g, "n"));
    for x in 6..15i64 {
        let s: f64 = (0..=4).map(|d| src.get((x - d) as u32, 1)[0] as f64).sum();
        assert!(
            (out.get(x as u32, 1)[0] as f64 - s / 5.0).abs() < 1e-6,
            "{x}"
        );
    }
}

#[test]
fn erosion_moves_an_eighth_of_the_excess_to_each_lower_neighbour() {
    // A spike of 1 in a 5 x 5 plain, talus 0, rate 1, one step: 1/8 to each of its four
    // neighbours, 1/2 stays.
    let p = [
        ("iterations", Value::Int(1)),
        ("talus", Value::Float(0.0)),
        ("rate", Value::Float(1.0)),
    ];
    let spike = "select(1 - abs(px - 2) - abs(py - 2), 1, 0)";
    let (_, out) = run(5, 5, spike, "image.erode", &p);
    assert_eq!(out.get(2, 2)[0], 0.5);
    for (x, y) in [(1, 2), (3, 2), (2, 1), (2, 3)] {
        assert_eq!(out.get(x, y)[0], 0.125);
    }
    assert_eq!(out.get(1, 1)[0], 0.0);
    // Height is kept over many steps, and the steepest step between neighbours falls.
    let p = [("iterations", Value::Int(30))];
    let (src, out) = run(20, 14, LUMPY, "image.erode", &p);
    let total = |i: &Image| i.pixels.iter().map(|p| p[0] as f64).sum::<f64>();
    assert!((total(&src) - total(&out)).abs() < 1e-3, "height not kept");
    let steepest = |i: &Image| {
        let mut m = 0.0f32;
        for y in 0..14 {
            for x in 1..20 {
                m = m.max((i.get(x, y)[0] - i.get(x - 1, y)[0]).abs());
            }
        }
        m
    };
    assert!(steepest(&out) < steepest(&src));
    // A slope gentler than the talus does not move (0.001 a pixel, talus 0.004).
    let p = [
        ("iterations", Value::Int(5)),
        ("edges", Value::str("clamp")),
    ];
    let (src, out) = run(8, 3, "px * 0.001", "image.erode", &p);
    assert_eq!(src.pixels, out.pixels);
}

fn new_filters() -> Vec<(&'static str, Vec<(&'static str, Value)>)> {
    vec![
        ("image.box_blur", vec![("radius", Value::Int(3))]),
        ("image.sharpen", vec![]),
        ("image.edges", vec![]),
        ("image.emboss", vec![]),
        ("image.directional_blur", vec![]),
        ("image.slope_blur", vec![]),
        ("image.erode", vec![("iterations", Value::Int(12))]),
    ]
}

#[test]
fn a_constant_image_stays_constant() {
    for (op, p) in new_filters() {
        let (_, out) = run(9, 7, "0.3", op, &p);
        let want = match op {
            "image.edges" => 0.0,
            "image.emboss" => 0.5,
            _ => 0.3,
        };
        for px in &out.pixels {
            assert!((px[0] - want).abs() < 1e-6, "{op}: {px:?}");
        }
    }
}

#[test]
fn a_tile_filtered_with_wrapped_edges_stays_a_tile() {
    // A tileable noise of one period and the same noise over two periods each way (the first
    // four times): filtered with wrapped edges, the large result is the small one four times.
    let tile = |size: i64, cells: f64, op: &str, p: &[(&str, Value)]| {
        let mut g = Graph::new();
        g.add_node("src", "image.fractal").unwrap();
        g.set_param("src", "width", size).unwrap();
        g.set_param("src", "height", size).unwrap();
        g.set_param("src", "cells", cells).unwrap();
        g.set_param("src", "period", 2i64).unwrap();
        g.add_node("n", op).unwrap();
        for (k, v) in p {
            g.set_param("n", k, v.clone()).unwrap();
        }
        let port = if op == "image.erode" {
            "height"
        } else {
            "image"
        };
        g.wire("src.out", &format!("n.{port}"));
        if op == "image.slope_blur" {
            g.wire("src.out", "n.slope");
        }
        eval(&g, "n")
    };
    for (op, p) in new_filters() {
        let one = tile(24, 2.0, op, &p);
        let two = tile(48, 4.0, op, &p);
        for y in 0..24 {
            for x in 0..24 {
                let v = one.get(x, y)[0];
                for (ox, oy) in [(24, 0), (0, 24), (24, 24)] {
                    let w = two.get(x + ox, y + oy)[0];
                    assert!((v - w).abs() < 1e-4, "{op} at ({x}, {y}) + ({ox}, {oy})");
                }
            }
        }
    }
}

#[test]
fn one_thread_and_several_give_the_same_bits() {
    for (op, p) in new_filters() {
        let g = graph(70, 53, LUMPY, op, &p);
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
fn mismatched_slope_and_too_many_iterations_are_refused() {
    let mut g = graph(8, 8, "px", "image.slope_blur", &[]);
    g.add_node("other", "image.fill").unwrap();
    g.set_param("other", "width", 4i64).unwrap();
    g.set_param("other", "height", 4i64).unwrap();
    g.wire("other.out", "n.slope");
    let mut ev = LazyEvaluator::new(kiln_image::registry());
    let Err(err) = ev.evaluate(&g, &Request::new(["n"]), &EvalContext::new()) else {
        panic!("sizes differ, yet it ran");
    };
    assert!(err.to_string().contains("slope"), "{err}");
    let g = graph(
        8,
        8,
        "px",
        "image.erode",
        &[("iterations", Value::Int(1001))],
    );
    assert!(!validate(&g, &kiln_image::registry()).is_empty());
}
