//! `kiln run --parallel` end to end: independent heavy branches really run on worker
//! threads, as the `--stats` line counts them.

mod support;
use support::*;

/// Two independent 256 × 256 image branches (noise → gain → clamp) joined by a mix: the
/// first level holds two nodes making images.
const TWO_HEAVY_BRANCHES: &str = r#"{
  "kiln": 1,
  "nodes": {
    "left": {"op": "image.noise", "params": {"height": 256, "octaves": 5, "seed": 1, "width": 256}, "inputs": {"scale": 3.0}},
    "right": {"op": "image.noise", "params": {"height": 256, "octaves": 5, "seed": 2, "width": 256}, "inputs": {"scale": 7.0}},
    "left_gain": {"op": "image.gain", "inputs": {"bias": -0.2, "gain": 1.5, "image": "left.out"}},
    "right_gain": {"op": "image.gain", "inputs": {"bias": 0.1, "gain": 0.8, "image": "right.out"}},
    "left_clamp": {"op": "image.clamp", "inputs": {"image": "left_gain.out"}},
    "right_clamp": {"op": "image.clamp", "inputs": {"image": "right_gain.out"}},
    "blend": {"op": "image.mix", "inputs": {"a": "left_clamp.out", "b": "right_clamp.out", "t": 0.5}}
  },
  "outputs": {
    "picture": "blend.out"
  }
}
"#;

/// The `N parallel` counter of a `--stats` line.
fn parallel_count(stderr: &str) -> u64 {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("stats: "))
        .unwrap_or_else(|| panic!("no stats line in {stderr}"));
    let before = line
        .split(" parallel,")
        .next()
        .unwrap_or_else(|| panic!("no parallel counter in {line}"));
    let count = before.rsplit(' ').next().unwrap();
    count
        .parse()
        .unwrap_or_else(|_| panic!("`{count}` is not a count in {line}"))
}

#[test]
fn parallel_runs_independent_heavy_branches_on_worker_threads() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("branches.json");
    std::fs::write(&graph, TWO_HEAVY_BRANCHES).unwrap();
    let g = graph.to_str().unwrap();
    let stats_of = |out: &str, extra: &[&str]| {
        let mut args = vec!["run", g, "--out", out, "-q", "--stats"];
        args.extend_from_slice(extra);
        let o = kiln(&args, dir.path());
        let (_, err) = text(&o);
        assert!(o.status.success(), "{extra:?}: {err}");
        err
    };
    let sequential = stats_of("seq", &["--evaluator", "compiled"]);
    assert_eq!(parallel_count(&sequential), 0, "{sequential}");
    // A level whose nodes make images runs in parallel from the first run on: both noise
    // nodes of the first level (at least) run on worker threads.
    let parallel = stats_of("par", &["--evaluator", "compiled", "--parallel", "2"]);
    assert!(
        parallel.contains("compiled evaluator (parallel, 2 threads)"),
        "{parallel}"
    );
    let ran = parallel_count(&parallel);
    assert!(ran >= 2, "only {ran} node(s) ran in parallel: {parallel}");
    assert!(
        files_in(&dir.path().join("par")) == files_in(&dir.path().join("seq")),
        "the parallel run wrote other bytes"
    );
}
