//! Tone and channel ops against their formulas, computed here by hand.

use kiln_core::prelude::*;
use kiln_image::image::Image;

const C: [f32; 4] = [0.3, 0.62, 0.9, 0.4];

fn after(op: &str, params: &[(&str, Value)]) -> [f32; 4] {
    let mut g = Graph::new();
    g.add_node("f", "image.fill").unwrap();
    g.set_param("f", "width", 3i64).unwrap();
    g.set_param("f", "height", 2i64).unwrap();
    g.set_const("f", "color", Value::Color(C)).unwrap();
    g.add_node("n", op).unwrap();
    for (k, v) in params {
        g.set_param("n", k, v.clone()).unwrap();
    }
    g.wire("f.out", "n.image");
    let reg = kiln_image::registry();
    assert!(validate(&g, &reg).is_empty(), "{:?}", validate(&g, &reg));
    let mut ev = LazyEvaluator::new(reg);
    let out = ev
        .evaluate(&g, &Request::new(["n"]), &EvalContext::new())
        .unwrap();
    out.get("n")
        .and_then(|v| v.as_heavy::<Image>())
        .unwrap()
        .get(2, 1)
}

fn close(got: [f32; 4], want: [f64; 4], what: &str) {
    for c in 0..4 {
        assert!(
            (got[c] as f64 - want[c]).abs() < 1e-6,
            "{what} channel {c}: {got:?} vs {want:?}"
        );
    }
}

fn each(f: impl Fn(f64) -> f64) -> [f64; 4] {
    [f(C[0] as f64), f(C[1] as f64), f(C[2] as f64), C[3] as f64]
}

#[test]
fn tone_ops_follow_their_formulas() {
    let p = [
        ("in_low", Value::Float(0.2)),
        ("in_high", Value::Float(0.8)),
        ("gamma", Value::Float(2.0)),
        ("out_low", Value::Float(0.1)),
        ("out_high", Value::Float(0.9)),
    ];
    close(
        after("image.levels", &p),
        each(|c| 0.1 + 0.8 * ((c - 0.2) / 0.6).clamp(0.0, 1.0).powf(0.5)),
        "levels",
    );
    close(
        after("image.gamma", &[("gamma", Value::Float(2.2))]),
        each(|c| c.powf(1.0 / 2.2)),
        "gamma",
    );
    close(
        after("image.posterize", &[("levels", Value::Float(4.0))]),
        each(|c| (c * 4.0).floor().min(3.0) / 3.0),
        "posterize",
    );
    let luma = 0.2126 * C[0] as f64 + 0.7152 * C[1] as f64 + 0.0722 * C[2] as f64;
    close(
        after("image.grey", &[]),
        [luma, luma, luma, C[3] as f64],
        "grey",
    );
    let t = after(
        "image.threshold",
        &[("threshold", Value::Float(luma + 0.01))],
    );
    close(t, [0.0, 0.0, 0.0, C[3] as f64], "threshold above");
    let t = after(
        "image.threshold",
        &[("threshold", Value::Float(luma - 0.01))],
    );
    close(t, [1.0, 1.0, 1.0, C[3] as f64], "threshold below");
    assert_eq!(
        after("image.swizzle", &[("order", Value::str("bgr1"))]),
        [C[2], C[1], C[0], 1.0]
    );
    assert_eq!(
        after("image.swizzle", &[("order", Value::str("aa0r"))]),
        [C[3], C[3], 0.0, C[0]]
    );
}
