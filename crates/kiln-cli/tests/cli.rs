//! The `kiln` command end to end: real files in, real files out, readable errors.

use std::path::{Path, PathBuf};
use std::process::Output;

mod support;
use support::*;

fn assert_clean_failure(o: &Output, needle: &str) {
    let (out, err) = text(o);
    assert!(!o.status.success(), "expected failure, got success: {out}");
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(!err.contains("panicked"), "a panic escaped: {err}");
    assert!(
        err.contains(needle) || out.contains(needle),
        "missing `{needle}` in:\n{out}\n{err}"
    );
}

#[test]
fn demo_writes_a_real_png() {
    let dir = tempfile::tempdir().unwrap();
    let o = kiln(&["demo", "--out", "pics", "--quiet"], dir.path());
    assert!(o.status.success(), "{:?}", text(&o));
    let img = image::open(dir.path().join("pics/clouds.png"))
        .expect("a PNG")
        .to_rgba8();
    assert_eq!(img.dimensions(), (384, 256));
    // Not a flat picture: many distinct colours.
    let mut colours: Vec<[u8; 4]> = img.pixels().map(|p| p.0).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 100, "only {} colours", colours.len());
    // Nothing else was written, and no temporary file was left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path().join("pics"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("clouds.png")]);
}

#[test]
fn demo_is_deterministic_and_seed_changes_it() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        kiln(&["demo", "--out", "a", "-q"], dir.path())
            .status
            .success()
    );
    assert!(
        kiln(&["demo", "--out", "b", "-q"], dir.path())
            .status
            .success()
    );
    assert!(
        kiln(&["demo", "--out", "c", "-q", "--seed", "9"], dir.path())
            .status
            .success()
    );
    let read = |d: &str| std::fs::read(dir.path().join(d).join("clouds.png")).unwrap();
    assert_eq!(read("a"), read("b"));
    assert_ne!(read("a"), read("c"));
}

#[test]
fn every_example_runs() {
    let mut n = 0;
    for entry in std::fs::read_dir(examples()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        n += 1;
        let dir = tempfile::tempdir().unwrap();
        let p = path.to_str().unwrap();
        let v = kiln(&["validate", p], dir.path());
        assert!(v.status.success(), "{p}: {:?}", text(&v));
        // An audio graph streams with `render --seconds`; a graph with latches needs the
        // recurrent driver: `render --ticks`, not `run`.
        let o = if is_audio(&path) {
            kiln(
                &["render", p, "--seconds", "0.1", "--out", "out", "-q"],
                dir.path(),
            )
        } else if has_latches(&path) {
            kiln(
                &["render", p, "--ticks", "3", "--out", "out", "-q"],
                dir.path(),
            )
        } else {
            kiln(&["run", p, "--out", "out", "-q"], dir.path())
        };
        assert!(o.status.success(), "{p}: {:?}", text(&o));
        let written = std::fs::read_dir(dir.path().join("out")).unwrap().count();
        assert!(written > 0, "{p} wrote nothing");
    }
    assert!(n >= 3);
}

/// Whether the graph file at `path` has signal (audio) nodes: it then renders with
/// `kiln render --seconds` (tests/render_audio.rs checks those).
fn is_audio(path: &Path) -> bool {
    let reg = {
        let mut r = kiln_image::registry();
        kiln_audio::register(&mut r).expect("the image and audio ops are distinct");
        kiln_mesh::register(&mut r).expect("the mesh ops are distinct");
        kiln_sim::register(&mut r).expect("the simulation ops are distinct");
        r
    };
    let file = kiln_doc::read_graph(path, &reg).unwrap();
    file.graph.nodes().iter().any(|n| {
        reg.get(&n.op).is_some_and(|op| {
            op.spec()
                .outputs
                .iter()
                .any(|o| o.ty == kiln_core::value::ValueType::Signal)
        })
    })
}

/// Whether the graph file at `path` has a latch node (it then runs with `kiln render`).
fn has_latches(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    file["nodes"]
        .as_object()
        .is_some_and(|nodes| nodes.values().any(|n| n["op"] == "latch"))
}

#[test]
fn run_sets_inputs_and_clock() {
    let dir = tempfile::tempdir().unwrap();
    let p = examples().join("arithmetic.json");
    let o = kiln(
        &[
            "run",
            p.to_str().unwrap(),
            "--out",
            ".",
            "--set",
            "x=6",
            "--time",
            "1.5",
            "--stats",
            "-q",
        ],
        dir.path(),
    );
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("stats: lazy evaluator"), "{err}");
    assert!(err.contains("executed"), "{err}");
    // The memory report: the memo and the plan, with a total that adds them up.
    let bytes = |part: &str| -> u64 {
        let line = err
            .lines()
            .find(|l| l.trim_start().starts_with(part))
            .unwrap_or_else(|| panic!("no `{part}` line in {err}"));
        line.split_whitespace()
            .rev()
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no byte count in `{line}`"))
    };
    assert!(bytes("lazy memo") > 0, "{err}");
    assert_eq!(bytes("total"), bytes("lazy memo") + bytes("plan"), "{err}");
    let read = |n: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(n)).unwrap()).unwrap()
    };
    assert_eq!(read("length.json")["value"].as_f64().unwrap(), 52f64.sqrt());
    // length > 4.5, so the switch picks the halved branch.
    assert_eq!(
        read("picked.json")["value"].as_f64().unwrap(),
        52f64.sqrt() * 0.5
    );
    assert_eq!(read("wave.json")["value"].as_f64().unwrap(), 1.5f64.sin());
}

#[test]
fn bad_set_values_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = examples().join("arithmetic.json");
    let p = p.to_str().unwrap();
    assert_clean_failure(
        &kiln(&["run", p, "--set", "x=abc"], dir.path()),
        "--set `x` (float)",
    );
    assert_clean_failure(
        &kiln(&["run", p, "--set", "nope=1"], dir.path()),
        "inputs: x, y",
    );
    assert_clean_failure(
        &kiln(&["run", p, "--set", "x"], dir.path()),
        "expected NAME=VALUE",
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written on failure"
    );
}

#[test]
fn malformed_graph_files_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("empty.json"), "").unwrap();
    std::fs::write(
        d.join("broken.json"),
        "{\n  \"kiln\": 1,\n  \"nodes\": {,}\n}",
    )
    .unwrap();
    std::fs::write(d.join("list.json"), "[1, 2, 3]").unwrap();
    std::fs::write(d.join("v9.json"), "{\"kiln\": 9, \"nodes\": {}}").unwrap();
    // Several MB of seeded random bytes.
    let mut x: u64 = 0x9E3779B97F4A7C15;
    let bytes: Vec<u8> = (0..4 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(d.join("noise.bin"), bytes).unwrap();
    for cmd in ["run", "validate", "info", "dot"] {
        assert_clean_failure(&kiln(&[cmd, "empty.json"], d), "empty.json");
        assert_clean_failure(&kiln(&[cmd, "broken.json"], d), "line 3");
        assert_clean_failure(&kiln(&[cmd, "list.json"], d), "list.json");
        assert_clean_failure(&kiln(&[cmd, "v9.json"], d), "version");
        assert_clean_failure(&kiln(&[cmd, "noise.bin"], d), "noise.bin");
        assert_clean_failure(&kiln(&[cmd, "missing.json"], d), "missing.json");
    }
    let (_, err) = text(&kiln(&["validate", "broken.json"], d));
    assert!(err.contains("column"), "{err}");
}

#[test]
fn validate_reports_every_problem_with_node_and_port() {
    let dir = tempfile::tempdir().unwrap();
    let g = r#"{
  "kiln": 1,
  "nodes": {
    "a": {"op": "math.addd", "inputs": {"a": 1.0, "b": 2.0}},
    "b": {"op": "math.add", "inputs": {"a": "c.out"}},
    "c": {"op": "math.mul", "inputs": {"a": "b.out", "b": 2.0}},
    "d": {"op": "math.add", "inputs": {"a": {"const": "text"}, "b": 1.0}},
    "e": {"op": "logic.not", "inputs": {"x": "c.out", "y": true}}
  }
}"#;
    std::fs::write(dir.path().join("bad.json"), g).unwrap();
    let o = kiln(&["validate", "bad.json"], dir.path());
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    for needle in [
        "unknown-op: node `a` (math.addd)",
        "did you mean `math.add`",
        "missing-input: node `b` (math.add), input `b`",
        "cycle: node `b` (math.add): b -> c -> b",
        "type-mismatch: node `d` (math.add), input `a`: expected number, found constant of type string",
        "unknown-port: node `e` (logic.not), input `y`",
    ] {
        assert!(out.contains(needle), "missing `{needle}` in:\n{out}");
    }
    // `kiln run` refuses and writes nothing.
    assert_clean_failure(
        &kiln(&["run", "bad.json", "--out", "o"], dir.path()),
        "problem(s)",
    );
    assert!(!dir.path().join("o").exists());
}

#[test]
fn a_runtime_failure_writes_no_output_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let g = r#"{
  "kiln": 1,
  "inputs": {"d": {"type": "int", "default": 0}},
  "nodes": {
    "ok": {"op": "math.add", "inputs": {"a": 1, "b": 2}},
    "bad": {"op": "math.div", "inputs": {"a": 1, "b": "d.out"}}
  },
  "outputs": {"first": "ok.out", "second": "bad.out"}
}"#;
    std::fs::write(dir.path().join("g.json"), g).unwrap();
    let o = kiln(&["run", "g.json", "--out", "o", "-q"], dir.path());
    assert_clean_failure(
        &o,
        "node `bad` (math.div), input `b`: integer division by zero",
    );
    assert!(
        !dir.path().join("o").exists()
            || std::fs::read_dir(dir.path().join("o")).unwrap().count() == 0
    );
    let o = kiln(
        &["run", "g.json", "--out", "o", "-q", "--set", "d=2"],
        dir.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let second = std::fs::read_to_string(dir.path().join("o/second.json")).unwrap();
    assert!(second.contains("\"value\": 0"), "{second}");
}

#[test]
fn info_dot_and_ops_describe_things() {
    let dir = tempfile::tempdir().unwrap();
    let p = examples().join("clouds.json");
    let p = p.to_str().unwrap();
    let (out, _) = text(&kiln(&["info", p], dir.path()));
    assert!(out.contains("scale: float = 3.0"), "{out}");
    assert!(out.contains("clouds: image"), "{out}");
    let (out, _) = text(&kiln(&["dot", p], dir.path()));
    assert!(out.starts_with("digraph"), "{out}");
    assert!(
        out.contains("noise") && out.contains("sky") && out.contains("->"),
        "{out}"
    );
    let (out, _) = text(&kiln(&["ops"], dir.path()));
    for id in [
        "switch",
        "image.noise",
        "image.ramp",
        "math.add",
        "input.float",
        "clock.time",
    ] {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("{id} "))),
            "ops lacks {id}"
        );
    }
    assert!(out.contains("lazy"), "switch's lazy inputs are shown");
    let o = kiln(&["frobnicate"], dir.path());
    assert_eq!(o.status.code(), Some(2));
}

const EVALUATORS: [&str; 4] = ["lazy", "eager", "compiled", "incremental"];

fn example_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(examples())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("json"))
        // Latch graphs run with `kiln render`; tests/render.rs compares their evaluators.
        // Audio graphs stream; tests/render_audio.rs checks them.
        .filter(|p| !has_latches(p) && !is_audio(p))
        .collect();
    paths.sort();
    assert!(paths.len() >= 3);
    paths
}

/// Run `example` with `extra` flags into `dir/out`, and return the files written.
fn run_example(example: &Path, dir: &Path, out: &str, extra: &[&str]) -> Vec<(String, Vec<u8>)> {
    let p = example.to_str().unwrap();
    let mut args = vec!["run", p, "--out", out, "-q", "--time", "1.5"];
    // Only arithmetic.json has an `x` input; the others run at their defaults.
    if p.ends_with("arithmetic.json") {
        args.extend(["--set", "x=6"]);
    }
    args.extend_from_slice(extra);
    let o = kiln(&args, dir);
    assert!(o.status.success(), "{p} {extra:?}: {:?}", text(&o));
    let files = files_in(&dir.join(out));
    assert!(!files.is_empty(), "{p} {extra:?} wrote nothing");
    files
}

#[test]
fn every_evaluator_writes_the_same_bytes() {
    for example in example_paths() {
        let dir = tempfile::tempdir().unwrap();
        let reference = run_example(&example, dir.path(), "lazy", &["--evaluator", "lazy"]);
        for name in EVALUATORS {
            let files = run_example(&example, dir.path(), name, &["--evaluator", name]);
            let names =
                |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
            assert_eq!(names(&files), names(&reference), "{example:?} with {name}");
            for ((n, a), (_, b)) in files.iter().zip(&reference) {
                assert!(a == b, "{example:?}: {n} differs between {name} and lazy");
            }
        }
    }
}

#[test]
fn parallel_evaluation_writes_the_same_bytes() {
    for example in example_paths() {
        let dir = tempfile::tempdir().unwrap();
        let reference = run_example(&example, dir.path(), "seq", &[]);
        for (out, extra) in [
            ("c2", &["--parallel", "2", "--evaluator", "compiled"][..]),
            ("cn", &["--evaluator", "compiled", "--parallel"][..]),
            ("e2", &["--parallel", "2", "--evaluator", "eager"][..]),
            ("l2", &["--parallel", "2", "--evaluator", "lazy"][..]),
            ("i2", &["--parallel", "2", "--evaluator", "incremental"][..]),
        ] {
            let files = run_example(&example, dir.path(), out, extra);
            assert!(
                files == reference,
                "{example:?} {extra:?} differs from sequential lazy"
            );
        }
    }
}

#[test]
fn parallel_threads_must_be_at_least_one() {
    let dir = tempfile::tempdir().unwrap();
    let p = examples().join("arithmetic.json");
    let p = p.to_str().unwrap();
    let o = kiln(
        &[
            "run",
            p,
            "--out",
            "o",
            "--evaluator",
            "eager",
            "--parallel",
            "0",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("at least 1"), "{:?}", text(&o));
}

#[test]
fn stats_name_the_evaluator_and_every_counter() {
    let dir = tempfile::tempdir().unwrap();
    let p = examples().join("clouds.json");
    for name in EVALUATORS {
        let o = kiln(
            &[
                "run",
                p.to_str().unwrap(),
                "--out",
                name,
                "-q",
                "--evaluator",
                name,
                "--stats",
            ],
            dir.path(),
        );
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert!(!out.contains("stats"), "stats go to stderr: {out}");
        assert!(err.contains(&format!("stats: {name} evaluator")), "{err}");
        for counter in [
            "executed 4 nodes",
            "cache hits",
            "cutoffs",
            "propagated",
            "parallel",
            "keys computed",
            "planned",
            " ms",
        ] {
            assert!(err.contains(counter), "{name}: no `{counter}` in {err}");
        }
    }
}

#[test]
fn timings_list_the_slowest_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let p = examples().join("marble.json");
    let o = kiln(
        &["run", p.to_str().unwrap(), "--out", "o", "-q", "--timings"],
        dir.path(),
    );
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("timings: slowest 10 of"), "{err}");
    let rows: Vec<&str> = err.lines().filter(|l| l.contains(" ms  ")).collect();
    assert_eq!(rows.len(), 10, "{err}");
    assert!(err.contains("coarse (image.noise)"), "{err}");
    // Slowest first.
    let ms: Vec<f64> = rows
        .iter()
        .map(|r| r.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert!(ms.windows(2).all(|w| w[0] >= w[1]), "{ms:?}");
}

#[test]
fn unknown_evaluator_lists_the_choices() {
    let dir = tempfile::tempdir().unwrap();
    let p = examples().join("arithmetic.json");
    let o = kiln(
        &["run", p.to_str().unwrap(), "--evaluator", "turbo"],
        dir.path(),
    );
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("turbo"), "{err}");
    for name in EVALUATORS {
        assert!(err.contains(name), "`{name}` not listed in {err}");
    }
    let o = kiln(
        &["run", p.to_str().unwrap(), "--errors", "ignore"],
        dir.path(),
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("fail-fast") && err.contains("propagate"),
        "{err}"
    );
}

/// One output fails (`error.raise` with `when` true, and a node downstream of it); the other
/// does not.
const HALF_BROKEN: &str = r#"{
  "kiln": 1,
  "nodes": {
    "ok": {"op": "math.add", "inputs": {"a": 1.0, "b": 2.0}},
    "boom": {"op": "error.raise", "params": {"message": "boom went off"}, "inputs": {"value": 1.0, "when": true}},
    "after": {"op": "math.mul", "inputs": {"a": "boom.out", "b": 2.0}}
  },
  "outputs": {"healthy": "ok.out", "broken": "after.out"}
}"#;

#[test]
fn propagate_writes_the_healthy_outputs_and_reports_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.json"), HALF_BROKEN).unwrap();
    for name in EVALUATORS {
        let o = kiln(
            &[
                "run",
                "g.json",
                "--out",
                name,
                "-q",
                "--errors",
                "propagate",
                "--evaluator",
                name,
            ],
            dir.path(),
        );
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {out}\n{err}");
        assert!(!err.contains("panicked"), "{err}");
        let files = files_in(&dir.path().join(name));
        assert_eq!(files.len(), 1, "{name}: only the healthy output: {files:?}");
        assert_eq!(files[0].0, "healthy.json");
        let v: serde_json::Value = serde_json::from_slice(&files[0].1).unwrap();
        assert_eq!(v["value"].as_f64(), Some(3.0));
        assert!(out.contains("healthy.json"), "{out}");
        assert!(!out.contains("broken"), "{out}");
        for needle in [
            "node `boom` (error.raise): boom went off",
            "affects output(s): broken",
            "1 of 2 output(s) failed",
        ] {
            assert!(err.contains(needle), "{name}: no `{needle}` in {err}");
        }
        assert!(!err.contains("healthy"), "{err}");
    }
    // Fail-fast (the default) writes nothing at all.
    let o = kiln(&["run", "g.json", "--out", "ff", "-q"], dir.path());
    assert_clean_failure(&o, "node `boom` (error.raise): boom went off");
    assert!(!dir.path().join("ff").exists());
    // Asking only for the healthy output succeeds under propagate.
    let o = kiln(
        &[
            "run",
            "g.json",
            "--out",
            "only",
            "-q",
            "--errors",
            "propagate",
            "--output",
            "healthy",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(files_in(&dir.path().join("only")).len(), 1);
}

/// `validate` warns, on stderr and with exit code 0, about a declared input that nothing
/// reads (issue 29: `stone.json`'s `seed` changed no byte under `--set`).
#[test]
fn validate_warns_about_an_input_that_nothing_reads() {
    let dir = tempfile::tempdir().unwrap();
    let g = r#"{
  "kiln": 1,
  "inputs": {"gain": {"type": "float", "default": 2.0}, "spare": {"type": "int", "default": 1}},
  "nodes": {"twice": {"op": "math.mul", "inputs": {"a": "gain.out", "b": 2.0}}},
  "outputs": {"out": "twice.out"}
}"#;
    std::fs::write(dir.path().join("g.json"), g).unwrap();
    let o = kiln(&["validate", "g.json"], dir.path());
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("ok:"), "{out}");
    assert!(
        err.contains("warning: input `spare` is declared but nothing reads it"),
        "{err}"
    );
    assert!(!err.contains("`gain`"), "{err}");
}
