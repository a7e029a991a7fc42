//! `kiln bake`: baked graphs run to the same bytes; bad arguments are refused readably.

mod support;

use std::path::Path;
use support::{examples, files_in, kiln, text};

fn example(name: &str) -> String {
    examples()
        .join(format!("{name}.json"))
        .display()
        .to_string()
}

/// `kiln run GRAPH --out DIR [extra]` in `cwd`, which must succeed; the files written.
fn run_files(cwd: &Path, graph: &str, out: &str, extra: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut args = vec!["run", graph, "--out", out, "-q"];
    args.extend_from_slice(extra);
    let o = kiln(&args, cwd);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "kiln run {graph}: {stdout}{stderr}");
    files_in(&cwd.join(out))
}

fn bake_ok(cwd: &Path, args: &[&str]) -> String {
    let mut all = vec!["bake"];
    all.extend_from_slice(args);
    let o = kiln(&all, cwd);
    let (stdout, stderr) = text(&o);
    assert!(
        o.status.success(),
        "kiln {}: {stdout}{stderr}",
        all.join(" ")
    );
    stdout
}

#[test]
fn baked_examples_run_to_the_same_bytes() {
    for name in ["arithmetic", "clouds", "marble"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let cwd = dir.path();
        let src = example(name);
        let report = bake_ok(cwd, &[&src, "--freeze", "--out", "t/b.json"]);
        assert!(report.contains("nodes: "), "{report}");
        assert!(report.contains("folded cones: "), "{report}");
        assert!(report.contains("blobs written: "), "{report}");
        let original = run_files(cwd, &src, "o1", &[]);
        let baked = run_files(cwd, "t/b.json", "o2", &[]);
        assert!(!original.is_empty());
        assert_eq!(baked, original, "{name}");
    }
}

#[test]
fn arithmetic_folds_and_keeps_its_clock() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cwd = dir.path();
    let src = example("arithmetic");
    let report = bake_ok(cwd, &[&src, "--freeze", "--out", "b.json"]);
    assert!(report.contains("nodes: 13 before, 7 after"), "{report}");
    assert!(
        report.contains("folded cones: 2 (2 embedded, 0 in blobs)"),
        "{report}"
    );
    assert!(
        report.contains("frozen inputs: x = 3.0, y = 4.0"),
        "{report}"
    );
    assert!(report.contains("blobs written: 0"), "{report}");
    assert!(!cwd.join("b.blobs").exists());
    for time in ["0", "1.5"] {
        let a = run_files(cwd, &src, &format!("o1-{time}"), &["--time", time]);
        let b = run_files(cwd, "b.json", &format!("o2-{time}"), &["--time", time]);
        assert_eq!(a, b, "time {time}");
    }
    // Folded nodes keep their names as outputs (`len` is now the const holding its value).
    let a = run_files(
        cwd,
        &src,
        "o1-len",
        &["--output", "len", "--output", "pick.out"],
    );
    let b = run_files(
        cwd,
        "b.json",
        "o2-len",
        &["--output", "len", "--output", "pick.out"],
    );
    assert_eq!(a, b);
}

#[test]
fn a_frozen_seed_folds_noise_into_a_blob() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cwd = dir.path();
    let src = example("clouds");
    let report = bake_ok(cwd, &[&src, "--freeze", "--seed", "7", "--out", "t/c.json"]);
    assert!(report.contains("nodes: 4 before, 2 after"), "{report}");
    assert!(
        report.contains("folded cones: 1 (0 embedded, 1 in blobs)"),
        "{report}"
    );
    assert!(report.contains("frozen seed: 7"), "{report}");
    assert!(
        report.contains("blobs written: 1 (0 already there"),
        "{report}"
    );
    let blobs = files_in(&cwd.join("t/c.blobs"));
    assert_eq!(blobs.len(), 1);
    let original = run_files(cwd, &src, "o1", &["--seed", "7"]);
    // From another folder: blobs are found beside the graph file.
    let elsewhere = cwd.join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    let graph = cwd.join("t/c.json").display().to_string();
    assert_eq!(run_files(&elsewhere, &graph, "o2", &[]), original);

    // Baking again rewrites nothing that is intact.
    let again = bake_ok(cwd, &[&src, "--freeze", "--seed", "7", "--out", "t/c.json"]);
    assert!(
        again.contains("blobs written: 0 (1 already there"),
        "{again}"
    );

    // A corrupted blob: `kiln run` refuses the graph, naming the blob.
    let blob = cwd.join("t/c.blobs").join(&blobs[0].0);
    let mut bytes = blobs[0].1.clone();
    bytes[100] ^= 1;
    std::fs::write(&blob, &bytes).expect("corrupt");
    let o = kiln(&["run", "t/c.json", "--out", "o3"], cwd);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("blob `c.blobs/{}` is damaged", blobs[0].0)),
        "{stderr}"
    );
    assert!(stderr.contains("checksum"), "{stderr}");
    assert!(!cwd.join("o3").exists());
}

#[test]
fn set_values_are_frozen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cwd = dir.path();
    let src = example("arithmetic");
    let report = bake_ok(
        cwd,
        &[
            &src, "--freeze", "--set", "x=6", "--set", "y=8", "--out", "b.json",
        ],
    );
    assert!(
        report.contains("frozen inputs: x = 6.0, y = 8.0"),
        "{report}"
    );
    let original = run_files(cwd, &src, "o1", &["--set", "x=6", "--set", "y=8"]);
    let baked = run_files(cwd, "b.json", "o2", &[]);
    assert_eq!(baked, original);
    let length = std::fs::read_to_string(cwd.join("o2/length.json")).expect("length");
    assert!(length.contains("10.0"), "{length}");
    // The baked graph has no inputs left to set.
    let o = kiln(&["run", "b.json", "--set", "x=1", "--out", "o3"], cwd);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr.contains("it has no inputs"), "{stderr}");
}

#[test]
fn without_freeze_inputs_stay_settable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cwd = dir.path();
    let src = example("arithmetic");
    let report = bake_ok(cwd, &[&src, "--out", "b.json"]);
    assert!(report.contains("nodes: 13 before, 13 after"), "{report}");
    let original = run_files(cwd, &src, "o1", &["--set", "x=2"]);
    assert_eq!(run_files(cwd, "b.json", "o2", &["--set", "x=2"]), original);
}

#[test]
fn bad_arguments_are_refused_readably() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cwd = dir.path();
    let src = example("arithmetic");
    std::fs::write(
        cwd.join("broken.json"),
        r#"{"kiln": 1, "nodes": {"a": {"op": "math.nope"}}}"#,
    )
    .expect("write");
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (vec![&src, "--freeze"], 2, "--out <BAKED.json>"),
        (
            vec![&src, "--out", "t/b.json", "--set", "x=1"],
            2,
            "--freeze",
        ),
        (
            vec![&src, "--freeze", "--out", "t/b.json", "--seed", "many"],
            2,
            "invalid value",
        ),
        (
            vec![&src, "--freeze", "--out", "t/b.json", "--bogus"],
            2,
            "--bogus",
        ),
        (
            vec![&src, "--freeze", "--out", "t/b.json", "--set", "z=1"],
            1,
            "--set `z`: the graph has no input of that name (inputs: x, y)",
        ),
        (
            vec![&src, "--freeze", "--out", "t/b.json", "--set", "x=abc"],
            1,
            "--set `x` (float)",
        ),
        (
            vec![&src, "--freeze", "--out", "t/b.json", "--set", "x"],
            1,
            "expected NAME=VALUE",
        ),
        (
            vec!["missing.json", "--freeze", "--out", "t/b.json"],
            1,
            "cannot load missing.json",
        ),
        (
            vec!["broken.json", "--freeze", "--out", "t/b.json"],
            1,
            "unknown-op",
        ),
        (
            vec!["broken.json", "--freeze", "--out", "broken.json"],
            1,
            "is the graph being baked",
        ),
        (
            vec![&src, "--freeze", "--out", "t/b.blobs"],
            1,
            "the blob folder would have the same name",
        ),
    ];
    for (args, code, needle) in cases {
        let mut all = vec!["bake"];
        all.extend(args.iter().copied());
        let o = kiln(&all, cwd);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(code), "{all:?}: {stdout}{stderr}");
        assert!(stderr.contains(needle), "{all:?}: {stderr}");
        assert!(!cwd.join("t").exists(), "{all:?} wrote something");
    }
    // The source graph is untouched.
    assert!(
        std::fs::read_to_string(cwd.join("broken.json"))
            .expect("read")
            .contains("math.nope")
    );
}

#[test]
fn a_frozen_switch_on_a_graph_input_keeps_no_dead_branch_in_a_file_without_calls() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cwd = dir.path();
    std::fs::write(
        cwd.join("pick.json"),
        r#"{
  "kiln": 1,
  "inputs": {"big": {"type": "bool", "default": true}},
  "nodes": {
    "large": {"op": "math.mul", "inputs": {"a": 3.0, "b": 100.0}},
    "small": {"op": "math.mul", "inputs": {"a": 3.0, "b": 0.01}},
    "pick": {"op": "switch", "inputs": {"cond": "big", "a": "large.out", "b": "small.out"}}
  },
  "outputs": {"v": "pick.out"}
}"#,
    )
    .expect("graph written");
    // Frozen, the plan takes the branch the input picks: the other one is never cooked to
    // be folded (the report counts the nodes the plan left, the switch gone with it).
    let report = bake_ok(
        cwd,
        &[
            "pick.json",
            "--freeze",
            "--set",
            "big=false",
            "--out",
            "b.json",
        ],
    );
    assert!(report.contains("nodes: 3 before, 2 after"), "{report}");
    let baked = std::fs::read_to_string(cwd.join("b.json")).expect("baked");
    assert!(!baked.contains("\"large\""), "{baked}");
    let v = run_files(cwd, "b.json", "o", &[]);
    assert_eq!(v.len(), 1);
    let json = String::from_utf8_lossy(&v[0].1);
    assert!(json.contains("0.03"), "{json}");
    // Not frozen, the input stays an input: the switch and both branches stay, and the
    // baked graph still answers to it.
    bake_ok(cwd, &["pick.json", "--out", "k.json"]);
    let v = run_files(cwd, "k.json", "o2", &["--set", "big=false"]);
    assert!(String::from_utf8_lossy(&v[0].1).contains("0.03"));
    let v = run_files(cwd, "k.json", "o3", &["--set", "big=true"]);
    assert!(String::from_utf8_lossy(&v[0].1).contains("300"));
}
