//! `kiln render`: recurrent graphs ticked N times, one file per output and tick, the same
//! bits every time and with every evaluator, whole ticks or nothing, and `kiln run` pointing
//! latch graphs here.

use std::path::{Path, PathBuf};

mod support;
use support::*;

const EVALUATORS: [&str; 4] = ["lazy", "eager", "compiled", "incremental"];

fn trails() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/trails.json")
}

fn names(files: &[(String, Vec<u8>)]) -> Vec<&str> {
    files.iter().map(|(n, _)| n.as_str()).collect()
}

/// Render trails for `ticks` ticks into `dir/out` with `extra` flags; the files written.
fn render_trails(dir: &Path, out: &str, ticks: u32, extra: &[&str]) -> Vec<(String, Vec<u8>)> {
    let t = ticks.to_string();
    let graph = trails();
    let mut args = vec![
        "render",
        graph.to_str().unwrap(),
        "--ticks",
        &t,
        "--out",
        out,
        "-q",
    ];
    args.extend_from_slice(extra);
    let o = kiln(&args, dir);
    assert!(o.status.success(), "{extra:?}: {:?}", text(&o));
    frames_in(&dir.join(out))
}

#[test]
fn trails_for_five_ticks_writes_five_named_pngs() {
    let dir = tempfile::tempdir().unwrap();
    let files = render_trails(dir.path(), "frames", 5, &[]);
    assert_eq!(
        names(&files),
        [
            "trails_000.png",
            "trails_001.png",
            "trails_002.png",
            "trails_003.png",
            "trails_004.png"
        ]
    );
    let mut frames = vec![];
    for (name, bytes) in &files {
        let img = image::load_from_memory(bytes)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .to_rgba8();
        assert_eq!(img.dimensions(), (64, 48), "{name}");
        frames.push(img.into_raw());
    }
    // A simulation, not a still: every frame differs from the one before.
    for (i, w) in frames.windows(2).enumerate() {
        assert_ne!(w[0], w[1], "ticks {i} and {} are the same picture", i + 1);
    }
}

#[test]
fn rendering_twice_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let a = render_trails(dir.path(), "a", 6, &[]);
    let b = render_trails(dir.path(), "b", 6, &[]);
    assert_eq!(names(&a), names(&b));
    assert!(a == b, "two renders differ");
    // The seed reaches the noise.
    let c = render_trails(dir.path(), "c", 6, &["--seed", "4"]);
    assert_eq!(names(&a), names(&c));
    assert!(a != c, "--seed changed nothing");
}

#[test]
fn every_evaluator_renders_the_same_frames() {
    let dir = tempfile::tempdir().unwrap();
    let reference = render_trails(dir.path(), "default", 5, &[]);
    assert_eq!(reference.len(), 5);
    for name in EVALUATORS {
        let files = render_trails(dir.path(), name, 5, &["--evaluator", name]);
        assert_eq!(names(&files), names(&reference), "{name}");
        for ((n, a), (_, b)) in files.iter().zip(&reference) {
            assert!(a == b, "{n} differs between {name} and the default");
        }
    }
    for (out, extra) in [
        ("c2", &["--evaluator", "compiled", "--parallel", "2"][..]),
        ("e2", &["--evaluator", "eager", "--parallel", "2"][..]),
    ] {
        let files = render_trails(dir.path(), out, 5, extra);
        assert!(files == reference, "{extra:?} differs from the default");
    }
}

/// `count` counts the ticks (a latch); `checked` passes it through `error.raise`, which fails
/// from tick 3 on (`clock.frame >= 3`).
const FAILS_AT_THREE: &str = r#"{
  "kiln": 1,
  "nodes": {
    "zero": {"op": "const", "params": {"value": 0.0}},
    "count": {"op": "latch", "inputs": {"init": "zero.out", "signal": "next.out"}},
    "next": {"op": "math.add", "inputs": {"a": "count.out", "b": 1.0}},
    "frame": {"op": "clock.frame"},
    "late": {"op": "cmp.ge", "inputs": {"a": "frame.out", "b": 3}},
    "boom": {
      "op": "error.raise",
      "params": {"message": "tick three is too late"},
      "inputs": {"value": "count.out", "when": "late.out"}
    }
  },
  "outputs": {"total": "count.out", "checked": "boom.out"}
}"#;

#[test]
fn a_failing_tick_stops_keeps_earlier_ticks_and_writes_none_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.json"), FAILS_AT_THREE).unwrap();
    for name in EVALUATORS {
        let o = kiln(
            &[
                "render",
                "g.json",
                "--ticks",
                "6",
                "--out",
                name,
                "-q",
                "--evaluator",
                name,
            ],
            dir.path(),
        );
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {out}\n{err}");
        assert!(!err.contains("panicked"), "{err}");
        for needle in [
            "tick 3 of 6 failed",
            "node `boom` (error.raise): tick three is too late",
            "ticks 0 to 2 were written",
        ] {
            assert!(err.contains(needle), "{name}: no `{needle}` in {err}");
        }
        let files = frames_in(&dir.path().join(name));
        assert_eq!(
            names(&files),
            [
                "checked_000.json",
                "checked_001.json",
                "checked_002.json",
                "total_000.json",
                "total_001.json",
                "total_002.json"
            ],
            "{name}: ticks 0..2 whole, nothing of tick 3 (and no temporary file)"
        );
        // The files of the earlier ticks are complete: the count at each tick.
        for (t, (_, bytes)) in files[3..].iter().enumerate() {
            let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            assert_eq!(v["value"].as_f64(), Some(t as f64), "{name}: tick {t}");
        }
    }
}

#[test]
fn ticks_set_frame_and_time_from_dt() {
    let dir = tempfile::tempdir().unwrap();
    let g = r#"{
  "kiln": 1,
  "nodes": {"t": {"op": "clock.time"}, "f": {"op": "clock.frame"}},
  "outputs": {"time": "t.out", "frame": "f.out"}
}"#;
    std::fs::write(dir.path().join("clock.json"), g).unwrap();
    let read = |out: &str, file: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(dir.path().join(out).join(file)).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    for (out, dt, step) in [("half", "0.5", 0.5), ("frac", "1/25", 1.0 / 25.0)] {
        let o = kiln(
            &[
                "render",
                "clock.json",
                "--ticks",
                "4",
                "--dt",
                dt,
                "--out",
                out,
                "-q",
            ],
            dir.path(),
        );
        assert!(o.status.success(), "{:?}", text(&o));
        for t in 0..4 {
            let time = read(out, &format!("time_{t:03}.json"));
            assert_eq!(time["value"].as_f64(), Some(t as f64 * step), "{out} {t}");
            let frame = read(out, &format!("frame_{t:03}.json"));
            assert_eq!(frame["value"].as_i64(), Some(t), "{out} {t}");
        }
    }
    // The default is 1/60 s per tick.
    let o = kiln(
        &["render", "clock.json", "--ticks", "3", "--out", "def", "-q"],
        dir.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let time = read("def", "time_002.json");
    assert_eq!(time["value"].as_f64(), Some(2.0 * (1.0 / 60.0)));
    // Bad counts and steps are usage errors.
    for bad in [
        &["--ticks", "0"][..],
        &["--ticks", "x"],
        &["--ticks", "3", "--dt", "0"],
        &["--ticks", "3", "--dt", "-1"],
        &["--ticks", "3", "--dt", "1/0"],
        &["--ticks", "3", "--dt", "fast"],
        &[],
    ] {
        let mut args = vec!["render", "clock.json", "--out", "bad"];
        args.extend_from_slice(bad);
        let o = kiln(&args, dir.path());
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {:?}", text(&o));
    }
    assert!(!dir.path().join("bad").exists());
}

#[test]
fn set_output_and_stats_work_as_in_run() {
    let dir = tempfile::tempdir().unwrap();
    let p = trails();
    let p = p.to_str().unwrap();
    // Fading all the way: every frame is the noise itself, so the frames differ from the
    // default's.
    let reference = render_trails(dir.path(), "ref", 3, &[]);
    let full = render_trails(dir.path(), "full", 3, &["--set", "fade=1"]);
    assert_eq!(names(&full), names(&reference));
    assert!(full != reference, "--set fade=1 changed nothing");
    // `--output` picks any node's port; dots become underscores in file names.
    let o = kiln(
        &[
            "render",
            p,
            "--ticks",
            "2",
            "--out",
            "picked",
            "--output",
            "noise.out",
            "--output",
            "trails",
            "--stats",
        ],
        dir.path(),
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        names(&frames_in(&dir.path().join("picked"))),
        [
            "noise_out_000.png",
            "noise_out_001.png",
            "trails_000.png",
            "trails_001.png"
        ]
    );
    assert!(out.contains("trails_000.png"), "{out}");
    assert!(
        err.contains("stats: incremental evaluator (sequential) over 2 tick(s): executed"),
        "{err}"
    );
    // Without -q the progress bar stays off a stderr that is not a terminal: only the stats.
    assert_eq!(err.lines().count(), 1, "{err}");
    // Errors as in run.
    let o = kiln(
        &["render", p, "--ticks", "2", "--set", "nope=1"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("inputs: fade, speed"), "{:?}", text(&o));
    let o = kiln(
        &[
            "render",
            p,
            "--ticks",
            "2",
            "--evaluator",
            "lazy",
            "--parallel",
        ],
        dir.path(),
    );
    // Every evaluator renders in parallel too.
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
}

#[test]
fn run_on_a_latch_graph_points_to_render() {
    let dir = tempfile::tempdir().unwrap();
    let p = trails();
    let p = p.to_str().unwrap();
    for name in EVALUATORS {
        let o = kiln(
            &["run", p, "--out", "o", "-q", "--evaluator", name],
            dir.path(),
        );
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        for needle in [
            "node `state` (latch)",
            "nothing was written",
            "hint: the graph has latch node(s) (state)",
            &format!("kiln render {p} --ticks N"),
        ] {
            assert!(err.contains(needle), "{name}: no `{needle}` in {err}");
        }
    }
    // Under propagate the failure is reported with the same hint.
    let o = kiln(
        &["run", p, "--out", "o", "-q", "--errors", "propagate"],
        dir.path(),
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("--ticks N"), "{err}");
    assert!(!dir.path().join("o").exists(), "nothing written");
}
