//! `image.hsv` and `image.colorize` against the textbook formulas written out here,
//! `image.split` and `image.merge_channels` by hand; the per-pixel ones fuse bit for bit.

use kiln_core::prelude::*;
use kiln_image::fuse::fuse;
use kiln_image::image::Image;

fn fill(g: &mut Graph, id: &str, c: [f32; 4]) {
    g.add_node(id, "image.fill").unwrap();
    g.set_param(id, "width", 3i64).unwrap();
    g.set_param(id, "height", 2i64).unwrap();
    g.set_const(id, "color", Value::Color(c)).unwrap();
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

fn after(op: &str, c: [f32; 4], consts: &[(&str, Value)]) -> [f32; 4] {
    let mut g = Graph::new();
    fill(&mut g, "f", c);
    g.add_node("n", op).unwrap();
    for (k, v) in consts {
        g.set_const("n", k, v.clone()).unwrap();
    }
    g.wire("f.out", "n.image");
    eval(&g, "n").get(2, 1)
}

/// RGB to HSV (h in degrees), the textbook way.
fn to_hsv(r: f64, g: f64, b: f64) -> (f64, f64, f64) {
    let mx = r.max(g).max(b);
    let mn = r.min(g).min(b);
    let c = mx - mn;
    let h = if c == 0.0 {
        0.0
    } else if mx == r {
        60.0 * (((g - b) / c).rem_euclid(6.0))
    } else if mx == g {
        60.0 * ((b - r) / c + 2.0)
    } else {
        60.0 * ((r - g) / c + 4.0)
    };
    let s = if mx == 0.0 { 0.0 } else { c / mx };
    (h, s, mx)
}

/// HSV to RGB by the sextant table: C = V S, X = C (1 - |H' mod 2 - 1|), m = V - C.
fn from_hsv(h: f64, s: f64, v: f64) -> [f64; 3] {
    let c = v * s;
    let hp = h.rem_euclid(360.0) / 60.0;
    let x = c * (1.0 - (hp.rem_euclid(2.0) - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r + m, g + m, b + m]
}

fn hsv(c: [f32; 4], h: f64, s: f64, v: f64) -> [f32; 4] {
    after(
        "image.hsv",
        c,
        &[
            ("hue", Value::Float(h)),
            ("saturation", Value::Float(s)),
            ("value", Value::Float(v)),
        ],
    )
}

fn close(got: [f32; 4], want: [f64; 3], alpha: f32, what: &str) {
    for k in 0..3 {
        assert!(
            (got[k] as f64 - want[k]).abs() < 1e-6,
            "{what}: {got:?} vs {want:?}"
        );
    }
    assert_eq!(got[3], alpha, "{what}: alpha");
}

#[test]
fn known_hues_turn_where_they_should() {
    let red = [1.0, 0.0, 0.0, 1.0];
    close(hsv(red, 120.0, 1.0, 1.0), [0.0, 1.0, 0.0], 1.0, "red + 120");
    close(hsv(red, 240.0, 1.0, 1.0), [0.0, 0.0, 1.0], 1.0, "red + 240");
    close(
        hsv(red, -120.0, 1.0, 1.0),
        [0.0, 0.0, 1.0],
        1.0,
        "red - 120",
    );
    close(hsv(red, 60.0, 1.0, 1.0), [1.0, 1.0, 0.0], 1.0, "red + 60");
    close(
        hsv(red, 0.0, 0.0, 1.0),
        [1.0, 1.0, 1.0],
        1.0,
        "red desaturated",
    );
    close(
        hsv(red, 0.0, 1.0, 0.5),
        [0.5, 0.0, 0.0],
        1.0,
        "red at half value",
    );
    // Grey has no hue: a shift leaves it.
    close(
        hsv([0.4, 0.4, 0.4, 0.5], 77.0, 1.0, 1.0),
        [0.4, 0.4, 0.4],
        0.5,
        "grey",
    );
}

#[test]
fn hsv_follows_the_textbook_conversions_and_round_trips() {
    let colours = [
        [0.2f32, 0.4, 0.6, 1.0],
        [0.9, 0.1, 0.3, 0.25],
        [0.05, 0.8, 0.2, 1.0],
        [0.7, 0.7, 0.1, 1.0],
        [0.3, 0.1, 0.9, 1.0],
    ];
    for c in colours {
        let (r, g, b) = (c[0] as f64, c[1] as f64, c[2] as f64);
        close(hsv(c, 0.0, 1.0, 1.0), [r, g, b], c[3], "round trip");
        let (h, s, v) = to_hsv(r, g, b);
        for (dh, fs, fv) in [(30.0, 0.5, 1.2), (200.0, 1.5, 0.7), (-75.0, 1.0, 1.0)] {
            let want = from_hsv(h + dh, (s * fs).min(1.0), v * fv);
            close(hsv(c, dh, fs, fv), want, c[3], "adjusted");
        }
    }
}

fn luma(p: [f32; 4]) -> f64 {
    0.2126 * p[0] as f64 + 0.7152 * p[1] as f64 + 0.0722 * p[2] as f64
}

#[test]
fn colorize_keeps_luminance_and_ends_black_tint_white() {
    let tint = [0.9f32, 0.5, 0.2, 1.0];
    let lc = luma(tint);
    let col = |l: f32, amount: f64| {
        after(
            "image.colorize",
            [l, l, l, 1.0],
            &[
                ("color", Value::Color(tint)),
                ("amount", Value::Float(amount)),
            ],
        )
    };
    for l in [0.0f32, 0.1, 0.3, lc as f32, 0.6, 0.9, 1.0] {
        let p = col(l, 1.0);
        assert!((luma(p) - l as f64).abs() < 1e-6, "L {l}: {p:?}");
        assert!(
            p.iter().all(|&c| (-1e-7..=1.0 + 1e-6).contains(&c)),
            "{p:?}"
        );
    }
    close(col(0.0, 1.0), [0.0; 3], 1.0, "black");
    close(col(1.0, 1.0), [1.0; 3], 1.0, "white");
    close(col(lc as f32, 1.0), [0.9, 0.5, 0.2], 1.0, "the tint itself");
    // Half way up to the tint's luminance, the tint at half strength: c L / Lc.
    let half = (lc / 2.0) as f32;
    let want = [0.9, 0.5, 0.2].map(|c| c * half as f64 / lc);
    close(col(half, 1.0), want, 1.0, "below the tint");
    // amount 0.5: half way between the grey and the tinted pixel.
    let full = col(0.6, 1.0);
    let want = [0, 1, 2].map(|k| 0.3 + 0.5 * full[k] as f64);
    close(col(0.6, 0.5), want, 1.0, "amount");
}

#[test]
fn split_gives_grey_channels_and_merge_puts_them_back() {
    let c = [0.3f32, 0.62, 0.9, 0.4];
    let mut g = Graph::new();
    fill(&mut g, "f", c);
    g.add_node("s", "image.split").unwrap();
    g.wire("f.out", "s.image");
    g.add_node("m", "image.merge_channels").unwrap();
    for ch in ["r", "g", "b", "a"] {
        g.wire(&format!("s.{ch}"), &format!("m.{ch}"));
    }
    let reg = kiln_image::registry();
    assert!(validate(&g, &reg).is_empty(), "{:?}", validate(&g, &reg));
    let mut ev = LazyEvaluator::new(reg);
    let out = ev
        .evaluate(&g, &Request::new(["s", "m"]), &EvalContext::new())
        .unwrap();
    let merged = out.get("m").unwrap().as_heavy::<Image>().unwrap();
    let source = eval(&g, "f");
    assert_eq!(merged.pixels, source.pixels);
    let ev_port = |port: &str| {
        let mut g2 = g.clone();
        g2.add_node("k", "image.invert").unwrap();
        g2.wire(&format!("s.{port}"), "k.image");
        g2.add_node("kk", "image.invert").unwrap();
        g2.wire("k.out", "kk.image");
        eval(&g2, "kk").get(1, 1)
    };
    for (k, port) in ["r", "g", "b", "a"].into_iter().enumerate() {
        let v = ev_port(port);
        assert!(
            (v[0] - c[k]).abs() < 1e-6 && v[0] == v[1] && v[1] == v[2],
            "{port}"
        );
        assert_eq!(v[3], 1.0);
    }
}

#[test]
fn merge_fills_missing_channels_and_needs_one_image() {
    let mut g = Graph::new();
    fill(&mut g, "f", [0.25, 0.5, 0.75, 1.0]);
    g.add_node("m", "image.merge_channels").unwrap();
    g.wire("f.out", "m.g");
    g.set_const("m", "b", 0.5).unwrap();
    assert_eq!(eval(&g, "m").get(0, 0), [0.0, 0.25, 0.5, 1.0]);
    let mut g = Graph::new();
    g.add_node("m", "image.merge_channels").unwrap();
    let mut ev = LazyEvaluator::new(kiln_image::registry());
    let Err(e) = ev.evaluate(&g, &Request::new(["m"]), &EvalContext::new()) else {
        panic!("merged nothing into an image");
    };
    let msg = e.to_string();
    assert!(
        msg.contains("image.merge_channels") && msg.contains("`r`"),
        "{msg}"
    );
}

#[test]
fn colour_ops_fuse_with_the_same_bits() {
    let mut g = Graph::new();
    g.add_node("src", "image.expr").unwrap();
    g.set_param("src", "width", 41i64).unwrap();
    g.set_param("src", "height", 13i64).unwrap();
    g.set_param("src", "formula", "0.5 + 0.5 * sin(px * 0.3 + py * 0.7)")
        .unwrap();
    g.add_node("h", "image.hsv").unwrap();
    g.set_const("h", "hue", 45.0).unwrap();
    g.wire("src.out", "h.image");
    g.add_node("c", "image.colorize").unwrap();
    g.set_const("c", "amount", 0.7).unwrap();
    g.wire("h.out", "c.image");
    g.add_node("m", "image.merge_channels").unwrap();
    g.wire("c.out", "m.r");
    let reg = kiln_image::registry();
    let (fused, report) = fuse(&g, &reg, &["m"]);
    assert_eq!(report.groups.len(), 1, "{report:?}");
    assert_eq!(report.groups[0].1.len(), 4, "{report:?}");
    assert_eq!(eval(&g, "m").pixels, eval(&fused, "m").pixels);
}
