//! `kiln run` commits its outputs as one group: a failure on any file leaves every output
//! file as it was before the run.

use std::path::Path;

mod support;
use support::*;

/// Three outputs of one input: each file's bytes change when `x` does.
const GRAPH: &str = r#"{
  "kiln": 1,
  "inputs": {"x": {"type": "float", "default": 1.0}},
  "nodes": {
    "plus": {"op": "math.add", "inputs": {"a": "x.out", "b": 1.0}},
    "times": {"op": "math.mul", "inputs": {"a": "x.out", "b": 3.0}},
    "minus": {"op": "math.sub", "inputs": {"a": "x.out", "b": 5.0}}
  },
  "outputs": {"a": "plus.out", "b": "times.out", "c": "minus.out"}
}"#;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_run_whose_last_file_cannot_land_keeps_every_old_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.json"), GRAPH).unwrap();
    let first = kiln(&["run", "g.json", "--out", "o", "-q"], dir.path());
    assert!(first.status.success(), "{:?}", text(&first));
    let out = dir.path().join("o");
    let (old_a, old_b) = (read(&out.join("a.json")), read(&out.join("b.json")));
    // x = 1: a = 2, b = 3.
    assert!(old_a.contains("\"value\": 2"), "{old_a}");
    assert!(old_b.contains("\"value\": 3"), "{old_b}");
    // `c.json` becomes a folder that is not empty: no rename can replace it, even as root.
    std::fs::remove_file(out.join("c.json")).unwrap();
    std::fs::create_dir(out.join("c.json")).unwrap();
    std::fs::write(out.join("c.json/keep"), "mine").unwrap();

    let second = kiln(
        &["run", "g.json", "--out", "o", "-q", "--set", "x=10"],
        dir.path(),
    );
    let (stdout, stderr) = text(&second);
    assert_eq!(second.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("c.json"),
        "the error names the file: {stderr}"
    );
    assert!(!stdout.contains("wrote"), "{stdout}");
    // Both files that could have been written hold what the first run wrote.
    assert_eq!(read(&out.join("a.json")), old_a);
    assert_eq!(read(&out.join("b.json")), old_b);
    assert_eq!(read(&out.join("c.json/keep")), "mine");
    // Nothing else is left in the folder (no staged or backup files).
    let names: Vec<String> = files_in_names(&out);
    assert_eq!(names, ["a.json", "b.json", "c.json"]);

    // Once the folder is gone, the same run writes all three.
    std::fs::remove_dir_all(out.join("c.json")).unwrap();
    let third = kiln(
        &["run", "g.json", "--out", "o", "-q", "--set", "x=10"],
        dir.path(),
    );
    assert!(third.status.success(), "{:?}", text(&third));
    assert!(read(&out.join("a.json")).contains("\"value\": 11"));
    assert!(read(&out.join("b.json")).contains("\"value\": 30"));
    assert!(read(&out.join("c.json")).contains("\"value\": 5"));
}

/// The names in a folder, sorted.
fn files_in_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
