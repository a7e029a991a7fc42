//! A param animated by a curve is sampled at the clock of the request: `run --time T` plans
//! at T, and `render` samples it again at every tick's time. The expected images are those of
//! the same graph with the param set by hand to the curve's value at that time.

mod support;
use std::path::Path;
use support::{kiln, text};

/// A noise whose `gain` param goes linearly from 0 at t = 0 to 1 at t = 1, and whose
/// `octaves` (an int param) steps from 1 to 3.
fn animated(gain: &str, octaves: &str) -> String {
    format!(
        r#"{{"kiln": 1,
  "nodes": {{"n": {{"op": "image.noise", "params": {{"width": 16, "height": 16, "gain": {gain}, "octaves": {octaves}}}}}}},
  "outputs": {{"img": "n"}}}}"#
    )
}

const GAIN: &str = r#"{"curve": [[0, 0.0], [1, 1.0]]}"#;
const OCTAVES: &str = r#"{"curve": [[0, 1], [1, 3]]}"#;

fn run(dir: &Path, graph: &str, name: &str, time: &str) -> Vec<u8> {
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, graph).unwrap();
    let out = dir.join(format!("{name}-{time}"));
    let o = kiln(
        &[
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--time",
            time,
        ],
        dir,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    std::fs::read(out.join("img.png")).unwrap()
}

#[test]
fn run_samples_an_animated_param_at_its_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = animated(GAIN, OCTAVES);
    // At t = 0.5 the gain is 0.5 and the octaves 2 (1 + 2 × 0.5); at t = 0.75, 0.75 and 3
    // (2.5 rounds to the nearest, away from zero).
    assert_eq!(
        run(d, &g, "a", "0.5"),
        run(d, &animated("0.5", "2"), "c", "0.5")
    );
    assert_eq!(
        run(d, &g, "a", "0.75"),
        run(d, &animated("0.75", "3"), "c", "0.75")
    );
    assert_ne!(run(d, &g, "a", "0"), run(d, &g, "a", "1"));
}

#[test]
fn render_samples_an_animated_param_at_every_tick() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = d.join("a.json");
    std::fs::write(&path, animated(GAIN, "4")).unwrap();
    let frames = d.join("frames");
    let o = kiln(
        &[
            "render",
            path.to_str().unwrap(),
            "--ticks",
            "3",
            "--dt",
            "0.5",
            "--out",
            frames.to_str().unwrap(),
        ],
        d,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    for (tick, gain) in [(0, "0.0"), (1, "0.5"), (2, "1.0")] {
        let frame = std::fs::read(frames.join(format!("img_00{tick}.png"))).unwrap();
        let by_hand = run(d, &animated(gain, "4"), &format!("c{tick}"), "0");
        assert_eq!(frame, by_hand, "tick {tick}");
    }
}
