//! Generators, patterns, blends and filters against values derived independently: periods
//! repeat, Worley distances match a search of every point, blend modes match their formulas,
//! the Gaussian blur matches a direct 2D convolution, normal maps match finite differences.

use kiln_core::prelude::*;
use kiln_image::generators::cells::{CellOutput, Cells};
use kiln_image::image::Image;
use kiln_image::noise::mix_seed;

fn node(op: &str, params: &[(&str, Value)]) -> Graph {
    let mut g = Graph::new();
    g.add_node("n", op).unwrap();
    for (k, v) in params {
        g.set_param("n", k, v.clone()).unwrap();
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
    out.get(id)
        .and_then(|v| v.as_heavy::<Image>())
        .unwrap()
        .clone()
}

fn size(w: i64, h: i64) -> [(&'static str, Value); 2] {
    [("width", Value::Int(w)), ("height", Value::Int(h))]
}

fn close(a: f32, b: f32, tol: f32, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} vs {b}");
}

#[test]
fn lattice_noise_repeats_at_its_period() {
    for (basis, fractal) in [
        ("perlin", "fbm"),
        ("value", "ridged"),
        ("perlin", "billow"),
        ("value", "turbulence"),
    ] {
        let mut p = size(64, 64).to_vec();
        p.extend([
            ("basis", Value::str(basis)),
            ("fractal", Value::str(fractal)),
            ("cells", Value::Float(8.0)),
            ("period", Value::Int(4)),
        ]);
        let img = eval(&node("image.fractal", &p), "n");
        // Four cells are half the image: column x is column x + 32, row y is row y + 32.
        for y in 0..32 {
            for x in 0..32 {
                let a = img.get(x, y)[0];
                close(a, img.get(x + 32, y)[0], 1e-6, "column");
                close(a, img.get(x, y + 32)[0], 1e-6, "row");
            }
        }
        let spread = img.pixels.iter().map(|p| p[0]).fold(0.0f32, f32::max)
            - img.pixels.iter().map(|p| p[0]).fold(1.0f32, f32::min);
        assert!(spread > 0.2, "{basis} {fractal} is nearly flat");
    }
}

#[test]
fn a_tile_continues_into_itself() {
    // One period across (a tile) and two periods across an image twice as large: the large
    // image is the tile four times, so the tile's right edge runs on into its left edge and
    // its bottom into its top.
    let tile = |w: i64, h: i64, cells: f64, op: &str| {
        let mut p = size(w, h).to_vec();
        p.extend([("cells", Value::Float(cells)), ("period", Value::Int(3))]);
        eval(&node(op, &p), "n")
    };
    for op in ["image.fractal", "image.cells"] {
        let one = tile(24, 16, 3.0, op);
        let two = tile(48, 32, 6.0, op);
        for y in 0..16 {
            for x in 0..24 {
                let v = one.get(x, y)[0];
                close(v, two.get(x, y)[0], 1e-6, op);
                close(v, two.get(x + 24, y)[0], 1e-6, op);
                close(v, two.get(x, y + 16)[0], 1e-6, op);
            }
        }
    }
}

#[test]
fn worley_f1_is_the_distance_to_the_nearest_point() {
    let mut p = size(40, 40).to_vec();
    p.extend([
        ("cells", Value::Float(5.0)),
        ("seed", Value::Int(3)),
        ("output", Value::str("f1")),
    ]);
    let img = eval(&node("image.cells", &p), "n");
    let cells = Cells::new(mix_seed(3, 0), 0, 1.0, CellOutput::F1);
    for y in 0..40u32 {
        for x in 0..40u32 {
            let (sx, sy) = ((x as f64 + 0.5) / 40.0 * 5.0, (y as f64 + 0.5) / 40.0 * 5.0);
            let mut best = f64::INFINITY;
            for j in -3..9 {
                for i in -3..9 {
                    let (px, py) = cells.point(i, j);
                    best = best.min(((px - sx).powi(2) + (py - sy).powi(2)).sqrt());
                }
            }
            close(img.get(x, y)[0], best.clamp(0.0, 1.0) as f32, 1e-6, "F1");
        }
    }
}

#[test]
fn patterns_are_what_they_say() {
    let mut p = size(4, 4).to_vec();
    p.push(("cells", Value::Float(2.0)));
    let c = eval(&node("image.checker", &p), "n");
    let want = [
        [0.0, 0.0, 1.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 0.0],
    ];
    for y in 0..4 {
        for x in 0..4 {
            assert_eq!(
                c.get(x, y)[0],
                want[y as usize][x as usize],
                "checker ({x}, {y})"
            );
        }
    }
    let g = eval(&node("image.gradient", &size(8, 2)), "n");
    for x in 0..8 {
        assert_eq!(g.get(x, 1)[0], ((x as f64 + 0.5) / 8.0) as f32);
    }
    let mut p = size(41, 41).to_vec();
    p.extend([("size", Value::Float(0.3)), ("bevel", Value::Float(0.1))]);
    let s = eval(&node("image.shape", &p), "n");
    assert_eq!(s.get(20, 20)[0], 1.0); // the centre is deep inside
    assert_eq!(s.get(0, 0)[0], 0.0); // a corner is outside
    // On the x axis, d = |x - 0.5| - 0.3: at pixel 31 (u = 31.5 / 41), -d / 0.1.
    let u = 31.5f64 / 41.0;
    close(
        s.get(31, 20)[0],
        ((0.3 - (u - 0.5)) / 0.1).clamp(0.0, 1.0) as f32,
        1e-6,
        "bevel",
    );
    let mut p = size(80, 80).to_vec();
    p.extend([
        ("columns", Value::Float(4.0)),
        ("rows", Value::Float(8.0)),
        ("mortar", Value::Float(0.2)),
    ]);
    let b = eval(&node("image.bricks", &p), "n");
    assert_eq!(b.get(10, 5)[0], 1.0); // the middle of the first brick
    assert_eq!(b.get(10, 0)[0], 0.0); // the mortar above it
    assert_eq!(b.get(0, 5)[0], 0.0); // the vertical joint at the left of row 0
    assert_eq!(b.get(0, 15)[0], 1.0); // row 1 is shifted: a brick's middle there
}

/// A blend mode's formula over the base and the layer.
type Mode = fn(f64, f64) -> f64;

#[test]
fn blend_modes_follow_their_formulas() {
    let a = [0.2f64, 0.6, 0.9];
    let b = [0.7f64, 0.3, 0.5];
    let modes: [(&str, Mode); 10] = [
        ("normal", |_, b| b),
        ("multiply", |a, b| a * b),
        ("screen", |a, b| 1.0 - (1.0 - a) * (1.0 - b)),
        ("overlay", |a, b| {
            if a < 0.5 {
                2.0 * a * b
            } else {
                1.0 - 2.0 * (1.0 - a) * (1.0 - b)
            }
        }),
        ("soft-light", |a, b| (1.0 - 2.0 * b) * a * a + 2.0 * b * a),
        ("add", |a, b| a + b),
        ("subtract", |a, b| a - b),
        ("difference", |a, b| (a - b).abs()),
        ("darken", f64::min),
        ("lighten", f64::max),
    ];
    for (mode, f) in modes {
        for opacity in [1.0, 0.4] {
            let mut g = Graph::new();
            for (id, c) in [("a", a), ("b", b)] {
                g.add_node(id, "image.fill").unwrap();
                g.set_param(id, "width", 2i64).unwrap();
                g.set_param(id, "height", 2i64).unwrap();
                let col = [c[0] as f32, c[1] as f32, c[2] as f32, 0.5];
                g.set_const(id, "color", Value::Color(col)).unwrap();
            }
            g.add_node("m", "image.blend").unwrap();
            g.set_param("m", "mode", mode).unwrap();
            g.set_const("m", "opacity", opacity).unwrap();
            g.wire("a.out", "m.a");
            g.wire("b.out", "m.b");
            let img = eval(&g, "m");
            let p = img.get(1, 1);
            for c in 0..3 {
                let (x, y) = (a[c] as f32 as f64, b[c] as f32 as f64);
                let want = x * (1.0 - opacity) + f(x, y) * opacity;
                close(p[c], want as f32, 1e-6, mode);
            }
            assert_eq!(p[3], 0.5, "alpha is the base's");
        }
    }
}

/// A test height image: a formula of the pixel position.
fn height_graph(w: i64, h: i64) -> Graph {
    let mut g = Graph::new();
    g.add_node("h", "image.expr").unwrap();
    g.set_param("h", "width", w).unwrap();
    g.set_param("h", "height", h).unwrap();
    g.set_param(
        "h",
        "formula",
        "0.5 + 0.3 * sin(px * 0.7) * cos(py * 0.45) + 0.1 * step(5, px)",
    )
    .unwrap();
    g
}

#[test]
fn gaussian_blur_matches_a_direct_convolution() {
    let mut g = height_graph(17, 11);
    g.add_node("b", "image.gaussian").unwrap();
    g.set_const("b", "sigma", 1.3).unwrap();
    g.set_param("b", "edges", "clamp").unwrap();
    g.wire("h.out", "b.image");
    let src = eval(&g, "h");
    let out = eval(&g, "b");
    let sigma = 1.3f64;
    let r = (3.0 * sigma).ceil() as i64;
    let wt = |d: i64| (-(d * d) as f64 / (2.0 * sigma * sigma)).exp();
    let norm: f64 = (-r..=r).map(wt).sum();
    for y in 0..11i64 {
        for x in 0..17i64 {
            let mut s = 0.0;
            for dy in -r..=r {
                for dx in -r..=r {
                    let (xx, yy) = ((x + dx).clamp(0, 16), (y + dy).clamp(0, 10));
                    s += wt(dx) * wt(dy) * src.get(xx as u32, yy as u32)[0] as f64;
                }
            }
            close(
                out.get(x as u32, y as u32)[0],
                (s / norm / norm) as f32,
                2e-6,
                "gaussian",
            );
        }
    }
}

#[test]
fn normal_maps_match_finite_differences() {
    let mut g = height_graph(12, 9);
    g.add_node("nm", "image.normal").unwrap();
    g.set_const("nm", "strength", 3.0).unwrap();
    g.wire("h.out", "nm.height");
    let h = eval(&g, "h");
    let n = eval(&g, "nm");
    let at = |x: i64, y: i64| h.get(x.rem_euclid(12) as u32, y.rem_euclid(9) as u32)[0] as f64;
    for y in 0..9i64 {
        for x in 0..12i64 {
            let sx = -3.0 * (at(x + 1, y) - at(x - 1, y)) / 2.0;
            let sy = -3.0 * (at(x, y - 1) - at(x, y + 1)) / 2.0;
            let len = (sx * sx + sy * sy + 1.0).sqrt();
            let p = n.get(x as u32, y as u32);
            for (c, v) in [sx, sy, 1.0].into_iter().enumerate() {
                close(p[c], (v / len * 0.5 + 0.5) as f32, 1e-6, "normal");
            }
            // A unit vector: the decoded components' squares sum to 1.
            let d: f64 = (0..3).map(|c| (p[c] as f64 * 2.0 - 1.0).powi(2)).sum();
            assert!((d - 1.0).abs() < 1e-5);
        }
    }
}

#[test]
fn size_comes_from_the_request_when_the_node_leaves_it() {
    let g = node("image.checker", &[]);
    let reg = kiln_image::registry();
    let mut ev = LazyEvaluator::new(reg);
    let mut ctx = EvalContext::new();
    let img = |ev: &mut LazyEvaluator, ctx: &EvalContext| {
        let out = ev.evaluate(&g, &Request::new(["n"]), ctx).unwrap();
        let i = out
            .get("n")
            .and_then(|v| v.as_heavy::<Image>())
            .unwrap()
            .clone();
        (i.width, i.height)
    };
    assert_eq!(img(&mut ev, &ctx), (256, 256));
    ctx.resolution = Some((64, 48));
    assert_eq!(img(&mut ev, &ctx), (64, 48));
    ctx.preview = true;
    assert_eq!(img(&mut ev, &ctx), (32, 24));
    // A node that names its size keeps it.
    let fixed = node("image.checker", &size(5, 7));
    let out = ev.evaluate(&fixed, &Request::new(["n"]), &ctx).unwrap();
    let i = out.get("n").and_then(|v| v.as_heavy::<Image>()).unwrap();
    assert_eq!((i.width, i.height), (5, 7));
    // One side 0 alone is refused, naming it.
    let half = node("image.checker", &size(0, 7));
    assert!(!validate(&half, &kiln_image::registry()).is_empty());
}
