//! Octaves and ramp stops driven from graph inputs: `kiln run --set` on them gives the files
//! of the same values written as params (the form files had before they were inputs), fused
//! or not, and a value out of range is refused naming the node and the port.

mod support;

use std::path::Path;
use support::{kiln, text};

/// `octaves` and `stops` as params, the form of files written before they were inputs.
fn constant(octaves: i64, stops: &str) -> String {
    format!(
        r#"{{"kiln": 1,
    "nodes": {{
      "n": {{"op": "image.fractal", "params": {{"width": 32, "height": 24, "octaves": {octaves}}}}},
      "r": {{"op": "image.ramp", "params": {{"stops": {stops}}}, "inputs": {{"image": "n.out"}}}}
    }},
    "outputs": {{"pic": "r.out"}}}}"#
    )
}

const WIRED: &str = r##"{"kiln": 1,
    "inputs": {"oct": {"type": "int", "default": 2},
               "palette": {"type": "list", "default": [[0.0, "#000000"], [1.0, "#ffffff"]]}},
    "nodes": {
      "n": {"op": "image.fractal", "params": {"width": 32, "height": 24}, "inputs": {"octaves": "oct"}},
      "r": {"op": "image.ramp", "inputs": {"image": "n.out", "stops": "palette"}}
    },
    "outputs": {"pic": "r.out"}}"##;

const WARM: &str = r##"[[0.0, "#201008"], [0.5, "#c06020"], [1.0, "#ffe0a0"]]"##;

fn picture(cwd: &Path, graph: &str, out: &str, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["run", graph, "--out", out, "-q"];
    args.extend_from_slice(extra);
    let o = kiln(&args, cwd);
    assert!(o.status.success(), "{args:?}: {:?}", text(&o));
    std::fs::read(cwd.join(out).join("pic.png")).unwrap()
}

#[test]
fn run_set_drives_octaves_and_stops_as_the_params_did() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("wired.json"), WIRED).unwrap();
    std::fs::write(cwd.join("five.json"), constant(5, WARM)).unwrap();
    let grey = r##"[[0.0, "#000000"], [1.0, "#ffffff"]]"##;
    std::fs::write(cwd.join("two.json"), constant(2, grey)).unwrap();
    let palette = format!("palette={WARM}");
    let set = ["--set", "oct=5", "--set", palette.as_str()];
    let wired = picture(cwd, "wired.json", "a", &set);
    assert_eq!(wired, picture(cwd, "five.json", "b", &[]));
    // Fused, the same bytes.
    let mut fused = set.to_vec();
    fused.push("--fuse");
    assert_eq!(wired, picture(cwd, "wired.json", "c", &fused));
    assert_eq!(wired, picture(cwd, "five.json", "d", &["--fuse"]));
    // The inputs' defaults, and another value: other pictures.
    assert_eq!(
        picture(cwd, "wired.json", "e", &[]),
        picture(cwd, "two.json", "f", &[])
    );
    assert_ne!(wired, picture(cwd, "wired.json", "g", &["--set", "oct=1"]));
}

#[test]
fn a_wired_value_out_of_range_names_the_node_and_port() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("wired.json"), WIRED).unwrap();
    let o = kiln(&["run", "wired.json", "--out", "o", "--set", "oct=40"], cwd);
    assert!(!o.status.success());
    let (_, err) = text(&o);
    assert!(
        err.contains("`n`") && err.contains("octaves") && err.contains("found 40"),
        "{err}"
    );
    assert!(!cwd.join("o/pic.png").exists());
    // `kiln validate` checks the constants, and the inputs' defaults feed nothing it checks.
    let v = kiln(&["validate", "wired.json"], cwd);
    assert_eq!(v.status.code(), Some(0), "{:?}", text(&v));
    std::fs::write(cwd.join("bad.json"), constant(0, WARM)).unwrap();
    let v = kiln(&["validate", "bad.json"], cwd);
    assert_eq!(v.status.code(), Some(1));
    assert!(
        text(&v)
            .0
            .contains("input `octaves`: expected an int from 1 to 16, found 0"),
        "{:?}",
        text(&v)
    );
}
