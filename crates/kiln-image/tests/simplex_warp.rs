//! Simplex noise and domain warp through their nodes: tiles continue across their period
//! (left column against right, top row against bottom), an odd simplex period is refused
//! naming `period`, a warp of 0 is the plain fractal bit for bit, and a warped pixel is the
//! fractal noise read at the point its offset noises give, computed here from the noises.

use kiln_core::prelude::*;
use kiln_image::generators::domain_warp::warp_seeds;
use kiln_image::generators::lattice::{Basis, Fractal, FractalNoise};
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

fn eval(g: &Graph) -> Result<Image, EvalError> {
    let mut ev = LazyEvaluator::new(kiln_image::registry());
    let out = ev.evaluate(g, &Request::new(["n"]), &EvalContext::new())?;
    Ok(out.get("n").unwrap().as_heavy::<Image>().unwrap().clone())
}

fn params(op_extra: &[(&'static str, Value)]) -> Vec<(&'static str, Value)> {
    let mut p = vec![
        ("width", Value::Int(48)),
        ("height", Value::Int(48)),
        ("basis", Value::str("simplex")),
        ("cells", Value::Float(4.0)),
        ("period", Value::Int(4)),
        ("seed", Value::Int(5)),
    ];
    p.extend(op_extra.iter().cloned());
    p
}

/// The largest jump between neighbouring pixels inside the image, and across its seams.
fn jumps(img: &Image) -> (f32, f32) {
    let (w, h) = (img.width, img.height);
    let v = |x: u32, y: u32| img.get(x, y)[0];
    let mut inside = 0.0f32;
    for y in 0..h {
        for x in 1..w {
            inside = inside.max((v(x, y) - v(x - 1, y)).abs());
        }
    }
    for x in 0..w {
        for y in 1..h {
            inside = inside.max((v(x, y) - v(x, y - 1)).abs());
        }
    }
    let mut seam = 0.0f32;
    for k in 0..w.min(h) {
        seam = seam.max((v(0, k) - v(w - 1, k)).abs());
        seam = seam.max((v(k, 0) - v(k, h - 1)).abs());
    }
    (inside, seam)
}

#[test]
fn tiled_simplex_and_warp_continue_across_the_seams() {
    for op in ["image.fractal", "image.domain_warp"] {
        for fractal in ["fbm", "ridged"] {
            let img = eval(&node(op, &params(&[("fractal", Value::str(fractal))]))).unwrap();
            let (inside, seam) = jumps(&img);
            assert!(inside > 0.0, "{op} {fractal} is flat");
            // The seam is one more step of the same smooth field: no larger than the
            // largest step inside (with a little room for the sample point's rounding).
            assert!(
                seam <= inside * 1.05 + 1e-6,
                "{op} {fractal}: {seam} vs {inside}"
            );
        }
    }
    // Twice the cells over twice the size is the tile four times.
    let one = eval(&node("image.domain_warp", &params(&[]))).unwrap();
    let two = eval(&node(
        "image.domain_warp",
        &params(&[
            ("width", Value::Int(96)),
            ("height", Value::Int(96)),
            ("cells", Value::Float(8.0)),
        ]),
    ))
    .unwrap();
    for y in 0..48 {
        for x in 0..48 {
            let v = one.get(x, y)[0];
            assert!((v - two.get(x + 48, y + 48)[0]).abs() < 1e-5);
            assert!((v - two.get(x, y + 48)[0]).abs() < 1e-5);
        }
    }
}

#[test]
fn an_odd_simplex_period_is_refused_naming_it() {
    let odd = node("image.fractal", &params(&[("period", Value::Int(3))]));
    let Err(err) = eval(&odd) else {
        panic!("an odd period ran");
    };
    let msg = err.to_string();
    assert!(msg.contains("period") && msg.contains("even"), "{msg}");
    // Perlin takes any period.
    assert!(
        eval(&node(
            "image.fractal",
            &params(&[("period", Value::Int(3)), ("basis", Value::str("perlin"))])
        ))
        .is_ok()
    );
}

#[test]
fn no_warp_is_the_fractal_and_a_warp_reads_it_at_the_offset_point() {
    for basis in ["perlin", "simplex", "value"] {
        let b = [("basis", Value::str(basis))];
        let plain = eval(&node("image.fractal", &params(&b))).unwrap();
        let zero = eval(&node(
            "image.domain_warp",
            &params(&[("basis", Value::str(basis)), ("warp", Value::Float(0.0))]),
        ))
        .unwrap();
        assert_eq!(plain.pixels, zero.pixels, "{basis}");
    }
    // One pixel by hand: untiled, the sample point is (u, v * h / w) * cells.
    let warp = 0.75;
    let p = params(&[("period", Value::Int(0)), ("warp", Value::Float(warp))]);
    let img = eval(&node("image.domain_warp", &p)).unwrap();
    let seed = mix_seed(5, 0);
    let f = |s: u64, fr: Fractal| FractalNoise::new(Basis::Simplex, fr, s, 4, 2.0, 0.5, 0);
    use kiln_image::field::Noise2;
    let [sx, sy] = warp_seeds(seed);
    let (base, nx, ny) = (
        f(seed, Fractal::Fbm),
        f(sx, Fractal::Fbm),
        f(sy, Fractal::Fbm),
    );
    for (px, py) in [(0u32, 0u32), (17, 30), (47, 5)] {
        let x = (px as f64 + 0.5) / 48.0 * 4.0;
        let y = (py as f64 + 0.5) / 48.0 * 4.0;
        let n = base.sample(x + warp * nx.sample(x, y), y + warp * ny.sample(x, y));
        let want = (n * 0.5 + 0.5).clamp(0.0, 1.0) as f32;
        assert!((img.get(px, py)[0] - want).abs() < 1e-6, "({px}, {py})");
    }
}

#[test]
fn simplex_and_warp_fused_with_their_readers_give_the_same_bits() {
    use kiln_image::fuse::fuse;
    let mut g = Graph::new();
    g.add_node("w", "image.domain_warp").unwrap();
    g.add_node("f", "image.fractal").unwrap();
    for id in ["w", "f"] {
        for (k, v) in params(&[("width", Value::Int(37)), ("height", Value::Int(21))]) {
            g.set_param(id, k, v).unwrap();
        }
    }
    g.add_node("n", "image.mix").unwrap();
    g.set_const("n", "t", 0.4).unwrap();
    g.wire("w.out", "n.a");
    g.wire("f.out", "n.b");
    g.add_node("inv", "image.invert").unwrap();
    g.wire("n.out", "inv.image");
    let reg = kiln_image::registry();
    let (fused, report) = fuse(&g, &reg, &["inv"]);
    assert_eq!(report.groups.len(), 1);
    assert_eq!(fused.len(), 1, "one node for the four");
    let run = |g: &Graph| {
        let mut ev = LazyEvaluator::new(kiln_image::registry());
        let out = ev
            .evaluate(g, &Request::new(["inv"]), &EvalContext::new())
            .unwrap();
        out.get("inv").unwrap().as_heavy::<Image>().unwrap().clone()
    };
    let (a, b) = (run(&g), run(&fused));
    let bits = |i: &Image| -> Vec<u32> {
        i.pixels
            .as_flattened()
            .iter()
            .map(|c| c.to_bits())
            .collect()
    };
    assert_eq!(bits(&a), bits(&b));
}
