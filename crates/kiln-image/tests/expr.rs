//! Formulas: `math.expr` on numbers, `image.expr` per pixel, and errors that name the column.

use kiln_core::prelude::*;
use kiln_image::expr::parse::parse;
use kiln_image::image::Image;

fn math(formula: &str, a: f64, b: f64, time: f64) -> f64 {
    let mut g = Graph::new();
    g.add_node("e", "math.expr").unwrap();
    g.set_param("e", "formula", formula).unwrap();
    g.set_const("e", "a", a).unwrap();
    g.set_const("e", "b", b).unwrap();
    let reg = kiln_image::registry();
    assert!(validate(&g, &reg).is_empty(), "{:?}", validate(&g, &reg));
    let mut ev = LazyEvaluator::new(reg);
    let mut ctx = EvalContext::new();
    ctx.time = time;
    let out = ev.evaluate(&g, &Request::new(["e"]), &ctx).unwrap();
    out.get("e").and_then(Value::as_f64).unwrap()
}

#[test]
fn arithmetic_follows_the_usual_precedence() {
    assert_eq!(math("1 + 2 * 3", 0.0, 0.0, 0.0), 7.0);
    assert_eq!(math("(1 + 2) * 3", 0.0, 0.0, 0.0), 9.0);
    assert_eq!(math("2 ^ 3 ^ 2", 0.0, 0.0, 0.0), 512.0); // right-grouping power
    assert_eq!(math("-2 ^ 2", 0.0, 0.0, 0.0), -4.0); // the power binds tighter
    assert_eq!(math("10 - 4 - 3", 0.0, 0.0, 0.0), 3.0); // left-grouping minus
    assert_eq!(math("-7 % 3", 0.0, 0.0, 0.0), 2.0); // the sign of the divisor
    assert_eq!(math("1 < 2", 0.0, 0.0, 0.0), 1.0);
    assert_eq!(math("3 > 2", 0.0, 0.0, 0.0), 1.0);
    assert_eq!(math("2 >= 3", 0.0, 0.0, 0.0), 0.0);
    assert_eq!(math("2 <= 2", 0.0, 0.0, 0.0), 1.0);
    assert_eq!(
        math("clamp(a * 2 - b, 0, 1)", 0.4, 0.5, 0.0),
        0.4 * 2.0 - 0.5
    );
    assert_eq!(math("clamp(a * 2 - b, 0, 1)", 3.0, 0.5, 0.0), 1.0);
    assert_eq!(math("mix(a, b, 0.25)", 4.0, 8.0, 0.0), 5.0);
    assert_eq!(math("smoothstep(0, 1, 0.5)", 0.0, 0.0, 0.0), 0.5);
    assert_eq!(math("max(a, b) + min(a, b)", 2.0, -1.0, 0.0), 1.0);
    assert_eq!(math("select(a - 1, 10, 20)", 2.0, 0.0, 0.0), 10.0);
    assert_eq!(math("1e-3 * 1000 + .5", 0.0, 0.0, 0.0), 1.5);
    assert_eq!(math("sin(t)", 0.0, 0.0, 0.5), 0.5f64.sin());
    assert_eq!(math("pi", 0.0, 0.0, 0.0), std::f64::consts::PI);
}

#[test]
fn errors_name_the_column() {
    let col = |src: &str| parse(src).unwrap_err().column;
    assert_eq!(col("1 + * 2"), 5);
    assert_eq!(col("sin(1, 2)"), 1);
    assert_eq!(col("2 * foo(1)"), 5);
    assert_eq!(col("a + q"), 5);
    assert_eq!(col("(1 + 2"), 1);
    assert_eq!(col("1 + 2)"), 6);
    assert_eq!(col("a +"), 4); // the end
    assert_eq!(col("1 2"), 3);
    assert_eq!(col("3 # 4"), 3);
    assert_eq!(col("min(1,)"), 7);
    assert_eq!(col(""), 1);
    // Validation reports it before anything runs, with the column.
    let mut g = Graph::new();
    g.add_node("e", "image.expr").unwrap();
    g.set_param("e", "formula", "x + + ").unwrap();
    let diags = validate(&g, &kiln_image::registry());
    assert_eq!(diags.len(), 1);
    assert!(diags[0].to_string().contains("column 7"), "{}", diags[0]);
}

#[test]
fn deep_nesting_costs_no_call_depth_and_length_is_capped() {
    let deep = format!("{}1{}", "(".repeat(2000), ")".repeat(2000));
    assert_eq!(math(&deep, 0.0, 0.0, 0.0), 1.0);
    let calls = format!("{}0{}", "abs(".repeat(700), ")".repeat(700));
    assert_eq!(math(&calls, 0.0, 0.0, 0.0), 0.0);
    let long = "1+".repeat(2100) + "1";
    let e = parse(&long).unwrap_err();
    assert_eq!(e.column, 4097);
}

#[test]
fn image_formula_matches_the_formula_computed_by_hand() {
    let mut g = Graph::new();
    for (id, c) in [
        ("black", [0.0f32, 0.0, 0.0, 1.0]),
        ("tint", [1.0, 0.5, 0.25, 1.0]),
    ] {
        g.add_node(id, "image.fill").unwrap();
        g.set_param(id, "width", 5i64).unwrap();
        g.set_param(id, "height", 8i64).unwrap();
        g.set_const(id, "color", Value::Color(c)).unwrap();
    }
    g.add_node("e", "image.expr").unwrap();
    g.set_param(
        "e",
        "formula",
        "mix(a, b, smoothstep(0.3, 0.7, y)) * (1 + 0.1 * sin(t))",
    )
    .unwrap();
    g.wire("black.out", "e.a");
    g.wire("tint.out", "e.b");
    let reg = kiln_image::registry();
    assert!(validate(&g, &reg).is_empty());
    let mut ev = LazyEvaluator::new(reg);
    let mut ctx = EvalContext::new();
    ctx.time = 1.25;
    let out = ev.evaluate(&g, &Request::new(["e"]), &ctx).unwrap();
    let img = out.get("e").and_then(|v| v.as_heavy::<Image>()).unwrap();
    assert_eq!((img.width, img.height), (5, 8));
    let tint = [1.0f64, 0.5, 0.25];
    for y in 0..8u32 {
        let v = (y as f64 + 0.5) / 8.0;
        let s = ((v - 0.3) / 0.4).clamp(0.0, 1.0);
        let k = s * s * (3.0 - 2.0 * s);
        for x in 0..5u32 {
            let p = img.get(x, y);
            for c in 0..3 {
                let want = (0.0 * (1.0 - k) + tint[c] * k) * (1.0 + 0.1 * 1.25f64.sin());
                assert_eq!(p[c], want as f32, "pixel ({x}, {y}) channel {c}");
            }
            assert_eq!(p[3], 1.0);
        }
    }
}
