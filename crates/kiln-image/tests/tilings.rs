//! `image.hexagons` and `image.weave` tile: across the left/right and top/bottom seams the
//! image changes no more than between inner neighbours (the tile continues into itself);
//! odd counts that could not tile are refused; they fuse bit for bit.

use kiln_core::prelude::*;
use kiln_image::fuse::fuse;
use kiln_image::image::Image;

fn node(op: &str, w: i64, h: i64, params: &[(&str, Value)]) -> Graph {
    let mut g = Graph::new();
    g.add_node("n", op).unwrap();
    g.set_param("n", "width", w).unwrap();
    g.set_param("n", "height", h).unwrap();
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
    out.get(id).unwrap().as_heavy::<Image>().unwrap().clone()
}

/// The largest step between horizontal (or vertical) neighbours inside the image, and
/// across the seam (last column to first, last row to first).
fn steps(img: &Image) -> ([f32; 2], [f32; 2]) {
    let (w, h) = (img.width, img.height);
    let v = |x: u32, y: u32| img.get(x, y)[0];
    let (mut inner, mut seam) = ([0.0f32; 2], [0.0f32; 2]);
    for y in 0..h {
        for x in 0..w {
            let right = (v(x, y) - v((x + 1) % w, y)).abs();
            let down = (v(x, y) - v(x, (y + 1) % h)).abs();
            let s = if x + 1 == w { &mut seam } else { &mut inner };
            s[0] = s[0].max(right);
            let t = if y + 1 == h { &mut seam } else { &mut inner };
            t[1] = t[1].max(down);
        }
    }
    (inner, seam)
}

#[test]
fn the_patterns_continue_across_their_seams() {
    for (op, params) in [
        (
            "image.hexagons",
            vec![("columns", Value::Int(5)), ("rows", Value::Int(6))],
        ),
        (
            "image.weave",
            vec![("columns", Value::Int(6)), ("rows", Value::Int(4))],
        ),
    ] {
        let img = eval(&node(op, 96, 80, &params), "n");
        let (inner, seam) = steps(&img);
        for k in 0..2 {
            assert!(
                seam[k] <= inner[k] + 1e-6,
                "{op}: seam {seam:?}, inner {inner:?}"
            );
        }
        let spread = img.pixels.iter().map(|p| p[0]).fold(0.0f32, f32::max)
            - img.pixels.iter().map(|p| p[0]).fold(1.0f32, f32::min);
        assert!(spread > 0.5, "{op} is nearly flat");
    }
    // A hexagon's ids: across the left/right seam the cells straddling it keep their id,
    // so neighbouring pixels across the seam agree as often as inner neighbours do.
    let ids = eval(
        &node(
            "image.hexagons",
            96,
            80,
            &[
                ("columns", Value::Int(4)),
                ("rows", Value::Int(4)),
                ("output", Value::str("id")),
            ],
        ),
        "n",
    );
    let differ = |x0: u32, x1: u32| {
        (0..80)
            .filter(|&y| ids.get(x0, y) != ids.get(x1, y))
            .count()
    };
    let inner_max = (0..95).map(|x| differ(x, x + 1)).max().unwrap();
    assert!(
        differ(95, 0) <= inner_max,
        "{} > {inner_max}",
        differ(95, 0)
    );
    // In the middle of the straddling cell of row 0 (centred on the left edge), both sides
    // are the same cell.
    assert_eq!(ids.get(0, 0), ids.get(95, 0));
}

#[test]
fn odd_counts_are_refused_and_the_patterns_fuse() {
    let reg = kiln_image::registry();
    for (op, k) in [
        ("image.hexagons", "rows"),
        ("image.weave", "columns"),
        ("image.weave", "rows"),
    ] {
        let g = node(op, 8, 8, &[(k, Value::Int(5))]);
        let d = validate(&g, &reg);
        assert!(!d.is_empty(), "{op} {k}");
        assert!(format!("{d:?}").contains("even"), "{d:?}");
    }
    let mut g = node("image.weave", 40, 30, &[]);
    g.add_node("inv", "image.invert").unwrap();
    g.wire("n.out", "inv.image");
    let (fused, report) = fuse(&g, &reg, &["inv"]);
    assert_eq!(report.groups.len(), 1);
    assert_eq!(eval(&g, "inv").pixels, eval(&fused, "inv").pixels);
}

#[test]
fn hexagon_ids_follow_the_evaluation_seed_through_the_cache() {
    let reg = kiln_image::registry();
    let spec = reg.get("image.hexagons").unwrap().spec();
    assert!(spec.reads.has(Reads::SEED), "the ids mix in the seed");
    let g = node("image.hexagons", 32, 32, &[("output", Value::str("id"))]);
    // One evaluator, so a cached result keyed without the seed would be handed back.
    let mut ev = LazyEvaluator::new(reg);
    let mut images = vec![];
    for seed in [1, 2, 1] {
        let mut ctx = EvalContext::new();
        ctx.seed = seed;
        let out = ev.evaluate(&g, &Request::new(["n"]), &ctx).unwrap();
        images.push(out.get("n").unwrap().as_heavy::<Image>().unwrap().clone());
    }
    assert!(
        images[0].pixels != images[1].pixels,
        "seeds 1 and 2 gave the same ids"
    );
    assert!(images[0].pixels == images[2].pixels, "seed 1 twice differs");
}
