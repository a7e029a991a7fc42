//! The graphs kiln-std ships (`@std/...`), called from graphs run by `kiln run`, checked
//! against values worked out by hand.

use std::path::Path;

mod support;
use support::*;

/// Run `graph` in `dir` and return the text of output `name`'s JSON file.
fn run_json(dir: &Path, graph: &str, name: &str) -> String {
    std::fs::write(dir.join("g.json"), graph).unwrap();
    let o = kiln(&["run", "g.json", "--out", "o", "-q"], dir);
    assert!(o.status.success(), "{:?}", text(&o));
    std::fs::read_to_string(dir.join(format!("o/{name}.json"))).unwrap()
}

/// The number after `"value":` in a typed-value file.
fn value_of(json: &str) -> f64 {
    let rest = json.split("\"value\":").nth(1).expect("a value");
    rest.trim()
        .trim_end_matches(['}', '\n', ' '])
        .parse()
        .unwrap_or_else(|e| panic!("{json}: {e}"))
}

#[test]
fn smoothstep_follows_the_hermite_curve_and_clamps() {
    let dir = tempfile::tempdir().unwrap();
    // (x, edge0, edge1, expected): t = (x - e0) / (e1 - e0) clamped, then t * t * (3 - 2t).
    let cases = [
        (0.25, 0.0, 1.0, 0.15625), // 0.0625 * 2.5
        (4.0, 2.0, 6.0, 0.5),      // t = 0.5: 0.25 * 2
        (5.0, 2.0, 6.0, 0.84375),  // t = 0.75: 0.5625 * 1.5
        (-1.0, 2.0, 6.0, 0.0),     // below edge0
        (9.0, 2.0, 6.0, 1.0),      // above edge1
    ];
    for (x, e0, e1, want) in cases {
        let g = format!(
            r#"{{"kiln": 1,
              "nodes": {{"s": {{"op": "@std/smoothstep", "inputs": {{"x": {x:?}, "edge0": {e0:?}, "edge1": {e1:?}}}}}}},
              "outputs": {{"y": "s"}}}}"#
        );
        let got = value_of(&run_json(dir.path(), &g, "y"));
        assert_eq!(got, want, "smoothstep({x}, {e0}, {e1})");
    }
}

#[test]
fn contrast_spreads_channels_about_mid_grey() {
    let dir = tempfile::tempdir().unwrap();
    // amount 2: c -> (c - 0.5) * 2 + 0.5, so 0.55 -> 0.6, 0.2 -> -0.1, 0.9 -> 1.3; alpha
    // stays 1. As 8-bit PNG channels (clamped, sRGB-encoded, * 255, rounded): 203
    // (1.055 · 0.6^(1/2.4) − 0.055 = 0.79774, · 255 = 203.4), 0, 255, 255.
    let g = r#"{"kiln": 1,
      "nodes": {
        "fill": {"op": "image.fill", "params": {"width": 2, "height": 2},
                 "inputs": {"color": {"type": "color", "value": [0.55, 0.2, 0.9, 1.0]}}},
        "c": {"op": "@std/contrast", "inputs": {"image": "fill", "amount": 2.0}}
      },
      "outputs": {"pic": "c"}}"#;
    std::fs::write(dir.path().join("g.json"), g).unwrap();
    let o = kiln(&["run", "g.json", "--out", "o", "-q"], dir.path());
    assert!(o.status.success(), "{:?}", text(&o));
    let img = image::open(dir.path().join("o/pic.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(img.dimensions(), (2, 2));
    for p in img.pixels() {
        assert_eq!(p.0, [203, 0, 255, 255]);
    }
}
