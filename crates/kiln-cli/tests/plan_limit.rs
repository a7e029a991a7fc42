//! The plan's node limit is checked before a call is written out, from the count of nodes it
//! will write (issue 37, item 2): a 7.7 KB file of 40 inline graphs, each calling the next
//! twice (2^39 copies of the last one's node), used to take minutes and gigabytes before
//! "over the limit"; it is refused at once, under a 1 GB address-space limit, by `validate`,
//! `info` and `run`.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::*;

/// 40 graphs `g0` .. `g39`, each calling the next twice (`g39` adds 1), and a top graph
/// calling `g0`.
fn doubling_calls() -> String {
    let mut graphs = vec![];
    for i in 0..40 {
        let body = if i == 39 {
            r#""d": {"op": "math.add", "inputs": {"a": "x", "b": 1.0}}}, "outputs": {"y": "d"}"#
                .to_string()
        } else {
            let next = i + 1;
            format!(
                r#""a": {{"op": "@g{next}", "inputs": {{"x": "x"}}}}, "b": {{"op": "@g{next}", "inputs": {{"x": "a.y"}}}}}}, "outputs": {{"y": "b.y"}}"#
            )
        };
        graphs.push(format!(
            r#""g{i}": {{"inputs": {{"x": {{"type": "float", "default": 0.0}}}}, "nodes": {{{body}}}"#
        ));
    }
    format!(
        r#"{{"kiln": 1, "graphs": {{{}}}, "nodes": {{"t": {{"op": "@g0", "inputs": {{"x": 1.0}}}}}}, "outputs": {{"r": "t.y"}}}}"#,
        graphs.join(", ")
    )
}

/// Run `kiln` under a 1 GB address-space limit (`prlimit`), killed if it has not finished
/// within 60 s (a hang guard: the refusal takes milliseconds).
fn kiln_limited(args: &[&str], cwd: &std::path::Path) -> Output {
    let mut child = Command::new("prlimit")
        .arg("--as=1073741824")
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit runs");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kiln {args:?} was still planning after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn forty_graphs_each_calling_the_next_twice_are_refused_from_their_count() {
    let dir = tempfile::tempdir().unwrap();
    let file = doubling_calls();
    assert!(file.len() < 8_000, "{}", file.len());
    std::fs::write(dir.path().join("calls.json"), &file).unwrap();
    for args in [
        &["validate", "calls.json"][..],
        &["info", "calls.json"],
        &["run", "calls.json", "--out", "o"],
    ] {
        let o = kiln_limited(args, dir.path());
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {out}\n{err}");
        let said = format!("{out}{err}");
        assert!(
            said.contains(&(1u64 << 39).to_string()) && said.contains("limit of 5000000"),
            "{args:?}: {said}"
        );
    }
}

#[test]
fn a_graph_of_calls_within_the_limit_is_planned() {
    // 2^10 copies of the adding graph: well within the limit.
    let dir = tempfile::tempdir().unwrap();
    let file = doubling_calls().replace(r#""op": "@g10""#, r#""op": "@g39""#);
    std::fs::write(dir.path().join("calls.json"), &file).unwrap();
    let o = kiln_limited(&["validate", "calls.json"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
}
