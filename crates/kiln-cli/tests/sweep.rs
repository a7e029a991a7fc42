//! Sweeps (issue 31, item 1): `kiln run --sweep` cooks one item per combination of knob
//! values, each item's files the bytes of a plain run with the same `--set`s, named from a
//! template; nodes no swept knob reaches are executed once for the whole sweep; zipped
//! sweeps, bad sweeps and a failing item.

mod support;

use std::path::Path;
use support::{examples, files_in, kiln, text};

/// A graph whose costly upstream (`base` → `lift` → `flip`, three nodes) ignores the seed,
/// mixed with cells that follow it.
const SHARED_PREFIX: &str = r#"{
  "kiln": 1,
  "inputs": {"seed": {"type": "int", "default": 0}},
  "nodes": {
    "base": {"op": "image.fractal", "params": {"width": 32, "height": 32, "octaves": 3}},
    "lift": {"op": "image.gain", "inputs": {"image": "base.out", "gain": 0.5, "bias": 0.25}},
    "flip": {"op": "image.invert", "inputs": {"image": "lift.out"}},
    "spots": {"op": "image.cells", "params": {"width": 32, "height": 32}, "inputs": {"seed": "seed"}},
    "mix": {"op": "image.mul", "inputs": {"a": "flip.out", "b": "spots.out"}}
  },
  "outputs": {"out": "mix.out"}
}"#;

fn run_ok(cwd: &Path, args: &[&str]) -> (String, String) {
    let o = kiln(args, cwd);
    let t = text(&o);
    assert!(o.status.success(), "{args:?}: {t:?}");
    t
}

/// The one file a plain run with `--set`s writes.
fn single(cwd: &Path, graph: &str, out: &str, set: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut args = vec!["run", graph, "--out", out, "-q", "--size", "40x40"];
    for s in set {
        args.extend(["--set", s]);
    }
    run_ok(cwd, &args);
    files_in(&cwd.join(out))
}

#[test]
fn every_item_is_the_plain_run_with_its_settings_under_its_templated_name() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let stone = examples().join("stone.json");
    let stone = stone.to_str().unwrap();
    run_ok(
        cwd,
        &[
            "run",
            stone,
            "--sweep",
            "seed=3..4",
            "--sweep",
            "crack=0.05,0.1",
            "--name",
            "{output}_{seed:03}_c{crack:.2}",
            "--out",
            "sw",
            "--size",
            "40x40",
            "--jobs",
            "2",
        ],
    );
    let swept = files_in(&cwd.join("sw"));
    let names: Vec<&str> = swept.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "stone_003_c0.05.png",
            "stone_003_c0.10.png",
            "stone_004_c0.05.png",
            "stone_004_c0.10.png",
            "stone_normal_003_c0.05.png",
            "stone_normal_003_c0.10.png",
            "stone_normal_004_c0.05.png",
            "stone_normal_004_c0.10.png",
            "sweep.json",
        ]
    );
    let bytes = |name: &str| &swept.iter().find(|(n, _)| n == name).unwrap().1;
    for (seed, crack, tag) in [
        ("3", "0.05", "003_c0.05"),
        ("3", "0.1", "003_c0.10"),
        ("4", "0.05", "004_c0.05"),
        ("4", "0.1", "004_c0.10"),
    ] {
        let out = format!("one_{tag}");
        let one = single(
            cwd,
            stone,
            &out,
            &[&format!("seed={seed}"), &format!("crack={crack}")],
        );
        assert_eq!(one[0].0, "stone.png");
        assert_eq!(
            &one[0].1,
            bytes(&format!("stone_{tag}.png")),
            "seed {seed} crack {crack}"
        );
        assert_eq!(&one[1].1, bytes(&format!("stone_normal_{tag}.png")));
    }
    // The manifest names each item's settings and files.
    let m: serde_json::Value = serde_json::from_slice(bytes("sweep.json")).unwrap();
    assert_eq!(m["kiln_sweep"], 1);
    assert_eq!(m["items"].as_array().unwrap().len(), 4);
    assert_eq!(m["items"][1]["settings"]["seed"], "3");
    assert_eq!(m["items"][1]["settings"]["crack"], "0.1");
    assert_eq!(m["items"][1]["files"][0], "stone_003_c0.10.png");
}

#[test]
fn a_costly_upstream_the_knob_does_not_reach_is_executed_once_for_all_items() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    // One plain run executes every node of an item.
    let (_, err) = run_ok(cwd, &["run", "g.json", "--out", "one", "-q", "--stats"]);
    let per_item: u64 = err
        .split("executed ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {err}"));
    for jobs in ["1", "2"] {
        let out = format!("sw{jobs}");
        let (_, err) = run_ok(
            cwd,
            &[
                "run",
                "g.json",
                "--sweep",
                "seed=0..9",
                "--out",
                &out,
                "-q",
                "--jobs",
                jobs,
            ],
        );
        // Item 0 executes everything; each of the 9 others all but the 3 shared nodes.
        let total = per_item + 9 * (per_item - 3);
        assert!(
            err.contains(&format!("10 item(s), {total} node execution(s)")),
            "jobs {jobs}: {err}"
        );
        assert!(
            err.contains(&format!("{} saved by sharing", 9 * 3)),
            "{err}"
        );
    }
    // Items in parallel give the bytes of items in turn.
    assert_eq!(files_in(&cwd.join("sw1")), files_in(&cwd.join("sw2")));
}

#[test]
fn zipped_sweeps_pair_values_and_bad_sweeps_are_refused_before_anything_cooks() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    run_ok(
        cwd,
        &[
            "run",
            "g.json",
            "--sweep",
            "seed=1,2,3",
            "--sweep",
            "lift.gain=0.1..0.3:0.1",
            "--zip",
            "--name",
            "{output}-{seed}-{lift.gain}",
            "--out",
            "z",
            "-q",
        ],
    );
    let names: Vec<String> = files_in(&cwd.join("z"))
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        names,
        [
            "out-1-0.1.png",
            "out-2-0.2.png",
            "out-3-0.3.png",
            "sweep.json"
        ]
    );
    for (args, says) in [
        (vec!["--sweep", "nope=1,2"], "nope"),
        (
            vec!["--sweep", "seed=1,2", "--sweep", "seed=3"],
            "swept twice",
        ),
        (
            vec!["--sweep", "seed=1,2", "--sweep", "lift.gain=1", "--zip"],
            "as many values",
        ),
        (vec!["--sweep", "seed=1,x"], "seed"),
        (vec!["--sweep", "seed=@nofile.png"], "no file nofile.png"),
        (vec!["--sweep", "seed=0..3", "--name", "{seed}"], "{output}"),
        (
            vec!["--sweep", "seed=0..3", "--name", "{output}_{cells}"],
            "cells",
        ),
    ] {
        let mut all = vec!["run", "g.json", "--out", "bad", "-q"];
        all.extend(args.iter());
        let o = kiln(&all, cwd);
        let (_, err) = text(&o);
        assert!(!o.status.success(), "{all:?} should fail");
        assert!(err.contains(says), "{all:?}: {err}");
        assert!(!cwd.join("bad").exists(), "{all:?} wrote something");
    }
}

#[test]
fn a_failing_item_is_named_and_the_others_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    // `spots.cells` of 0 is below its range: that item fails, the others land.
    let o = kiln(
        &[
            "run",
            "g.json",
            "--sweep",
            "spots.cells=4,0,6",
            "--out",
            "f",
            "-q",
        ],
        cwd,
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("item 1 (spots.cells=0) failed"), "{err}");
    assert!(err.contains("1 of 3 item(s) failed: 1"), "{err}");
    let names: Vec<String> = files_in(&cwd.join("f"))
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["out_0000.png", "out_0002.png", "sweep.json"]);
}

#[test]
fn a_sweep_again_over_its_cache_directory_cooks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    let sweep = |out: &str| {
        run_ok(
            cwd,
            &[
                "run",
                "g.json",
                "--sweep",
                "seed=0..5",
                "--out",
                out,
                "-q",
                "--cache",
                "c",
            ],
        )
        .1
    };
    let first = sweep("a");
    assert!(!first.contains("6 item(s), 0 node execution(s)"), "{first}");
    let again = sweep("b");
    assert!(again.contains("6 item(s), 0 node execution(s)"), "{again}");
    assert_eq!(files_in(&cwd.join("a")), files_in(&cwd.join("b")));
}
