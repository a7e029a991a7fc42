//! `image.curves`, `image.auto_levels` and `image.histogram_range` against values worked by
//! hand here; curves fuse bit for bit, and the whole-image ops give the same bits for 1 and
//! several threads; bad params are refused by validation.

use kiln_core::prelude::*;
use kiln_image::fuse::fuse;
use kiln_image::image::Image;

/// `src`: an `image.expr` of `formula` over `w` x `h`, then `op` reading it with `params`.
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
    g.wire("src.out", "n.image");
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

fn pt(x: f64, y: f64) -> Value {
    Value::list([Value::Float(x), Value::Float(y)])
}

#[test]
fn curves_map_the_chosen_channels_through_the_hand_worked_curve() {
    // Points (0, 0), (0.5, 0.8), (1, 1): at 0.25 the curve is 0.4375 and at 0.75 0.9375
    // (worked in curves.rs from the Fritsch-Carlson tangents 1.6, 1, 0.4).
    let points = Value::list([pt(0.0, 0.0), pt(1.0, 1.0), pt(0.5, 0.8)]);
    let p = [("points", points), ("channels", Value::str("rb"))];
    let g = graph(4, 2, "select(px - 1.5, 0.75, 0.25)", "image.curves", &p);
    let out = eval(&g, "n");
    let left = out.get(0, 0);
    assert!((left[0] - 0.4375).abs() < 1e-6, "{left:?}");
    assert_eq!(left[1], 0.25); // green not mapped
    assert!((left[2] - 0.4375).abs() < 1e-6);
    assert_eq!(left[3], 1.0);
    let right = out.get(3, 1);
    assert!(
        (right[0] - 0.9375).abs() < 1e-6 && right[1] == 0.75,
        "{right:?}"
    );
    // The default is the identity.
    let g = graph(4, 2, "px / 4", "image.curves", &[]);
    assert_eq!(eval(&g, "n").pixels, eval(&g, "src").pixels);
}

#[test]
fn curves_fuse_with_the_same_bits() {
    let points = Value::list([pt(0.0, 0.1), pt(0.3, 0.2), pt(0.6, 0.9), pt(1.0, 0.95)]);
    let mut g = graph(
        37,
        11,
        "0.5 + 0.5 * sin(px * 0.3 + py)",
        "image.curves",
        &[("points", points)],
    );
    g.add_node("inv", "image.invert").unwrap();
    g.wire("n.out", "inv.image");
    let reg = kiln_image::registry();
    let (fused, report) = fuse(&g, &reg, &["inv"]);
    assert_eq!(report.groups.len(), 1, "{report:?}");
    assert_eq!(eval(&g, "inv").pixels, eval(&fused, "inv").pixels);
}

#[test]
fn auto_levels_stretches_min_max_and_percentiles() {
    // Values 0.2 + 0.04 px over 11 columns: 0.2 .. 0.6. Min..max: (c - 0.2) / 0.4.
    let ramp = "0.2 + 0.04 * px";
    let out = eval(&graph(11, 2, ramp, "image.auto_levels", &[]), "n");
    for x in 0..11 {
        let want = (0.04 * x as f64) / 0.4;
        assert!(
            (out.get(x, 1)[0] as f64 - want).abs() < 1e-5,
            "{x}: {:?}",
            out.get(x, 1)
        );
    }
    // Percentiles 10 and 90 over 11 x 2 values of r, g, b pooled (66 values, each column's
    // value 6 times): rank 0.1 * 65 = 6.5 lies between the 7th and 8th smallest, both
    // column 1 (0.24); rank 58.5 is column 9 (0.56). So lo 0.24, hi 0.56, and clipped.
    let p = [("low", Value::Float(0.1)), ("high", Value::Float(0.9))];
    let out = eval(&graph(11, 2, ramp, "image.auto_levels", &p), "n");
    let at = |x: u32| out.get(x, 0)[0] as f64;
    assert_eq!(at(0), 0.0);
    assert!((at(1)).abs() < 1e-5);
    assert!((at(5) - (0.4 - 0.24) / 0.32).abs() < 1e-5, "{}", at(5));
    assert_eq!(at(10), 1.0);
    // Unclipped, column 10 goes past 1: (0.6 - 0.24) / 0.32 = 1.125.
    let p = [
        ("low", Value::Float(0.1)),
        ("high", Value::Float(0.9)),
        ("clip", Value::Bool(false)),
    ];
    let out = eval(&graph(11, 2, ramp, "image.auto_levels", &p), "n");
    assert!((out.get(10, 0)[0] as f64 - 1.125).abs() < 1e-5);
}

#[test]
fn auto_levels_per_channel_and_flat_channels() {
    // r runs 0.2 .. 0.6 and g 0.5 .. 0.7 across, b is flat at 0.3; alpha 1 (image.expr).
    let mut g = Graph::new();
    g.add_node("r", "image.expr").unwrap();
    g.add_node("gch", "image.expr").unwrap();
    for (id, formula) in [("r", "0.2 + 0.04 * px"), ("gch", "0.5 + 0.02 * px")] {
        g.set_param(id, "width", 11i64).unwrap();
        g.set_param(id, "height", 1i64).unwrap();
        g.set_param(id, "formula", formula).unwrap();
    }
    g.add_node("m", "image.merge_channels").unwrap();
    g.wire("r.out", "m.r");
    g.wire("gch.out", "m.g");
    g.set_const("m", "b", 0.3).unwrap();
    g.add_node("n", "image.auto_levels").unwrap();
    g.set_param("n", "per_channel", true).unwrap();
    g.wire("m.out", "n.image");
    let out = eval(&g, "n");
    let p = out.get(5, 0);
    assert!(
        (p[0] - 0.5).abs() < 1e-5 && (p[1] - 0.5).abs() < 1e-5,
        "{p:?}"
    );
    assert!((p[2] - 0.3).abs() < 1e-7, "flat channel kept: {p:?}");
    // Pooled, the window is 0.2 .. 0.7 for all three: b = (0.3 - 0.2) / 0.5.
    g.set_param("n", "per_channel", false).unwrap();
    let p = eval(&g, "n").get(5, 0);
    assert!((p[0] - 0.4).abs() < 1e-5, "{p:?}");
    assert!((p[1] - (0.6 - 0.2) / 0.5).abs() < 1e-5, "{p:?}");
    assert!((p[2] - 0.2).abs() < 1e-5, "{p:?}");
}

#[test]
fn histogram_range_stretches_a_window_of_the_span() {
    // Span 0.2 .. 0.6 (0.4 wide). position 0.5, range 0.5: window 0.3 .. 0.5.
    let p = [
        ("position", Value::Float(0.5)),
        ("range", Value::Float(0.5)),
    ];
    let out = eval(
        &graph(11, 1, "0.2 + 0.04 * px", "image.histogram_range", &p),
        "n",
    );
    let at = |x: u32| out.get(x, 0)[0] as f64;
    assert_eq!(at(0), 0.0);
    assert!((at(5) - 0.5).abs() < 1e-5, "{}", at(5)); // 0.4
    assert!((at(4) - (0.36 - 0.3) / 0.2).abs() < 1e-5);
    assert_eq!(at(10), 1.0);
    // position 0.25, range 0.5: window 0.2 .. 0.4.
    let p = [
        ("position", Value::Float(0.25)),
        ("range", Value::Float(0.5)),
    ];
    let out = eval(
        &graph(11, 1, "0.2 + 0.04 * px", "image.histogram_range", &p),
        "n",
    );
    assert!((out.get(2, 0)[0] as f64 - 0.4).abs() < 1e-5);
    // A flat image passes unchanged.
    let out = eval(&graph(5, 3, "0.7", "image.histogram_range", &p), "n");
    assert!(out.pixels.iter().all(|px| px[0] == 0.7));
}

#[test]
fn whole_image_tone_ops_give_the_same_bits_on_every_thread_count() {
    for (op, p) in [
        (
            "image.auto_levels",
            vec![("low", Value::Float(0.05)), ("high", Value::Float(0.95))],
        ),
        ("image.histogram_range", vec![("range", Value::Float(0.3))]),
    ] {
        let g = graph(
            300,
            97,
            "0.5 + 0.4 * sin(px * 0.1) * cos(py * 0.13)",
            op,
            &p,
        );
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
fn bad_tone_params_are_refused_by_validation() {
    let reg = kiln_image::registry();
    let bad = [
        (
            "image.curves",
            "points",
            Value::list([pt(0.0, 0.0), pt(0.0, 1.0)]),
        ),
        ("image.curves", "points", Value::list([pt(0.0, 0.0)])),
        ("image.curves", "channels", Value::str("rgbx")),
        ("image.auto_levels", "low", Value::Float(1.5)),
        ("image.auto_levels", "high", Value::Float(0.0)),
        ("image.histogram_range", "range", Value::Float(0.0)),
    ];
    for (op, k, v) in bad {
        let g = graph(4, 4, "px", op, &[(k, v.clone())]);
        let d = validate(&g, &reg);
        assert!(!d.is_empty(), "{op} {k} = {v:?} accepted");
        let msg = format!("{d:?}");
        assert!(msg.contains('n'), "{msg}");
    }
}
