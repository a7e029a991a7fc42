//! Every knob a port (issue 29), from the command line: `--set` of a graph input that
//! drives params changes the picture, `--set NODE.PORT=VALUE` sets any port of any node,
//! a graph input drives `mesh.scatter`'s `count` (a plan-time port) with the bytes of the
//! constant, a plan-time port fed a cooked value is refused naming node, port and source,
//! and `validate --set` warns about a name the graph does not have.

mod support;

use std::path::Path;
use support::{examples, kiln, text};

fn run(cwd: &Path, graph: &Path, out: &str, set: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut args = vec![
        "run".to_string(),
        graph.display().to_string(),
        "--out".into(),
        out.into(),
        "-q".into(),
        "--size".into(),
        "48x48".into(),
    ];
    for s in set {
        args.push("--set".into());
        args.push(s.to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = kiln(&args, cwd);
    assert!(o.status.success(), "{args:?}: {:?}", text(&o));
    support::files_in(&cwd.join(out))
}

#[test]
fn stones_seed_and_a_nodes_port_change_the_picture() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let stone = examples().join("stone.json");
    let plain = run(cwd, &stone, "a", &[]);
    let seeded = run(cwd, &stone, "b", &["seed=5"]);
    let port = run(cwd, &stone, "c", &["cells.seed=5"]);
    assert_ne!(plain, seeded, "--set seed=5 changes the stones");
    assert_ne!(plain, port, "--set cells.seed=5 changes the cells");
    assert_ne!(seeded, port, "the seed drives the surface too");
    // The default, set by name or by port, is the picture of no --set.
    assert_eq!(plain, run(cwd, &stone, "d", &["seed=11"]));
    assert_eq!(plain, run(cwd, &stone, "e", &["cells.seed=11"]));
}

const SCATTER: &str = r#"{"kiln": 1,
  "inputs": {"count": {"type": "int", "default": 20}},
  "nodes": {
    "ground": {"op": "mesh.grid", "params": {"cols": 4, "rows": 4}},
    "scatter": {"op": "mesh.scatter", "inputs": {"mesh": "ground", "count": "count"}},
    "box": {"op": "mesh.box", "inputs": {"size": [0.05, 0.05, 0.05]}},
    "copies": {"op": "mesh.copy_to_points", "inputs": {"source": "box", "target": "scatter"}}
  },
  "outputs": {"pts": "copies"}}"#;

fn scatter_constant(count: i64) -> String {
    format!(
        r#"{{"kiln": 1,
  "nodes": {{
    "ground": {{"op": "mesh.grid", "params": {{"cols": 4, "rows": 4}}}},
    "scatter": {{"op": "mesh.scatter", "params": {{"count": {count}}}, "inputs": {{"mesh": "ground"}}}},
    "box": {{"op": "mesh.box", "inputs": {{"size": [0.05, 0.05, 0.05]}}}},
    "copies": {{"op": "mesh.copy_to_points", "inputs": {{"source": "box", "target": "scatter"}}}}
  }},
  "outputs": {{"pts": "copies"}}}}"#
    )
}

#[test]
fn a_graph_input_drives_scatters_count_as_its_constant_would() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("wired.json"), SCATTER).unwrap();
    std::fs::write(cwd.join("seven.json"), scatter_constant(7)).unwrap();
    let wired = run(cwd, &cwd.join("wired.json"), "a", &["count=7"]);
    assert_eq!(wired, run(cwd, &cwd.join("seven.json"), "b", &[]));
    assert_ne!(wired, run(cwd, &cwd.join("wired.json"), "c", &["count=9"]));
    // Out of its range, refused before anything is cooked, naming the node and the port.
    let o = kiln(
        &["run", "wired.json", "--out", "d", "--set", "count=-4"],
        cwd,
    );
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("`scatter`") && err.contains("count") && err.contains("-4"),
        "{err}"
    );
}

#[test]
fn a_plan_time_port_fed_a_cooked_value_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let graph = r#"{"kiln": 1,
  "nodes": {
    "n": {"op": "math.add", "inputs": {"a": 2, "b": 3}},
    "grid": {"op": "mesh.grid", "inputs": {"cols": "n"}}
  },
  "outputs": {"ground": "grid"}}"#;
    std::fs::write(cwd.join("g.json"), graph).unwrap();
    let o = kiln(&["validate", "g.json"], cwd);
    let (out, _) = text(&o);
    assert!(!o.status.success());
    assert!(
        out.contains("plan-time-port")
            && out.contains("`grid`")
            && out.contains("`cols`")
            && out.contains("n.out"),
        "{out}"
    );
}

#[test]
fn validate_warns_about_a_set_name_the_graph_does_not_have() {
    let dir = tempfile::tempdir().unwrap();
    let stone = examples().join("stone.json");
    let stone = stone.to_str().unwrap();
    for (set, warned) in [
        ("sed=5", "no input of that name"),
        ("cell.seed=5", "no node `cell`"),
        ("cells.sed=5", "no port `sed`"),
    ] {
        let o = kiln(&["validate", stone, "--set", set], dir.path());
        let (out, err) = text(&o);
        assert!(o.status.success(), "{set}: {err}");
        assert!(out.contains("is valid"), "{set}: {out}");
        assert!(
            err.contains("warning") && err.contains(warned),
            "{set}: {err}"
        );
    }
    let o = kiln(&["validate", stone, "--set", "cells.seed=5"], dir.path());
    assert!(
        o.status.success() && text(&o).1.is_empty(),
        "{:?}",
        text(&o)
    );
}
