//! `kiln validate` refuses the values `run` and `render` refuse, with the same lines: params
//! out of range, broken ramp stops, and (with `--rate`) audio rules that depend on the
//! sample rate.

mod support;
use support::*;

const BAD: &str = r##"{"kiln": 1,
 "nodes": {
  "f": {"op": "image.fill", "params": {"width": 16384, "height": 16384}},
  "n": {"op": "image.noise", "params": {"octaves": 40}, "inputs": {"scale": -1.0}},
  "r": {"op": "image.ramp", "params": {"stops": [[0.0, "#000000"], [0.5]]}, "inputs": {"image": "n.out"}}
 },
 "outputs": {"big": "f.out", "ramp": "r.out"}}"##;

/// The `bad-value` lines of `text`.
fn bad_values(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with("bad-value"))
        .collect()
}

#[test]
fn validate_and_run_refuse_the_same_values_with_the_same_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.json"), BAD).unwrap();
    let v = kiln(&["validate", "bad.json"], dir.path());
    assert_eq!(v.status.code(), Some(1));
    let (vout, _) = text(&v);
    let lines = bad_values(&vout);
    assert_eq!(lines.len(), 4, "{vout}");
    for want in [
        "node `f` (image.fill), param `width`: expected an image of at most 67108864 pixels, \
         found 16384 x 16384 = 268435456 pixels",
        // `octaves` is an input now; a file giving it as a param sets the input's constant.
        "node `n` (image.noise), input `octaves`: expected an int from 1 to 16, found 40",
        "node `n` (image.noise), input `scale`: expected a finite number above 0, found -1",
        "node `r` (image.ramp), input `stops`: expected stop #1 to be [position, colour]",
    ] {
        assert!(lines.iter().any(|l| l.contains(want)), "{want}\n{vout}");
    }
    let r = kiln(&["run", "bad.json", "--out", "o"], dir.path());
    assert_eq!(r.status.code(), Some(1));
    let (_, rerr) = text(&r);
    assert_eq!(bad_values(&rerr), lines, "{rerr}");
    assert!(!dir.path().join("o").join("big.png").exists());
}

#[test]
fn validate_at_a_rate_refuses_what_render_refuses_at_it() {
    let dir = tempfile::tempdir().unwrap();
    let graph = r#"{"kiln": 1,
     "nodes": {
      "tone": {"op": "osc.saw"},
      "lp": {"op": "filter.onepole", "params": {"cutoff": 30000.0}, "inputs": {"in": "tone.out"}}
     },
     "outputs": {"sound": "lp.out"}}"#;
    std::fs::write(dir.path().join("lp.json"), graph).unwrap();
    // 30 kHz is below Nyquist at 96 kHz, above it at 48 kHz.
    let ok = kiln(&["validate", "lp.json", "--rate", "96000"], dir.path());
    assert_eq!(ok.status.code(), Some(0), "{:?}", text(&ok));
    let v = kiln(&["validate", "lp.json", "--rate", "48000"], dir.path());
    assert_eq!(v.status.code(), Some(1));
    let (vout, _) = text(&v);
    let want = "bad-value: node `lp` (filter.onepole), param `cutoff`: expected a cutoff below \
                the Nyquist frequency (24000 Hz at 48000 Hz), found 30000";
    assert_eq!(bad_values(&vout), [want], "{vout}");
    let r = kiln(
        &[
            "render",
            "lp.json",
            "--seconds",
            "0.01",
            "--rate",
            "48000",
            "--out",
            "o",
        ],
        dir.path(),
    );
    assert_eq!(r.status.code(), Some(1));
    let (_, rerr) = text(&r);
    assert_eq!(bad_values(&rerr), [want], "{rerr}");
    assert!(!dir.path().join("o").join("sound.wav").exists());
    let r = kiln(
        &[
            "render",
            "lp.json",
            "--seconds",
            "0.01",
            "--rate",
            "96000",
            "--out",
            "o",
        ],
        dir.path(),
    );
    assert_eq!(r.status.code(), Some(0), "{:?}", text(&r));
}
