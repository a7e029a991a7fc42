//! The flow example (`examples/parcels.json`) run by the CLI, and `--trace` /
//! `--trace-json`: every step printed in order, the JSON written to exactly the path named,
//! parseable, and the same steps in two runs.

mod support;

use support::{examples, kiln, text};

fn run(args: &[&str]) -> (String, String) {
    let out = kiln(args, &examples());
    let (o, e) = text(&out);
    assert!(out.status.success(), "kiln {args:?} failed:\n{o}\n{e}");
    (o, e)
}

#[test]
fn parcels_draws_a_plot_map_and_its_buildings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    run(&["run", "parcels.json", "--out", d, "-q"]);
    for name in ["map.png", "buildings.png"] {
        let img = image::open(dir.path().join(name)).unwrap().to_rgba8();
        assert_eq!(img.dimensions(), (512, 384), "{name}");
        // Several palette colours: the parcels differ.
        let mut colours: Vec<[u8; 4]> = img.pixels().map(|p| p.0).collect();
        colours.sort();
        colours.dedup();
        assert!(colours.len() >= 5, "{name}: {} colours", colours.len());
    }
}

/// The steps of a trace JSON without their times.
fn steps(json: &serde_json::Value) -> Vec<serde_json::Value> {
    json["flows"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut s = s.clone();
            s.as_object_mut().unwrap().remove("micros");
            s
        })
        .collect()
}

#[test]
fn trace_prints_every_step_and_the_json_holds_the_same_steps_in_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let json_a = dir.path().join("a.json");
    let json_b = dir.path().join("nested-name.trace");
    let (_, err) = run(&[
        "run",
        "parcels.json",
        "--out",
        d,
        "-q",
        "--trace",
        "--trace-json",
        json_a.to_str().unwrap(),
    ]);
    run(&[
        "run",
        "parcels.json",
        "--out",
        d,
        "-q",
        "--parallel",
        "2",
        "--evaluator",
        "eager",
        "--trace-json",
        json_b.to_str().unwrap(),
    ]);
    let a: serde_json::Value = serde_json::from_slice(&std::fs::read(&json_a).unwrap()).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&std::fs::read(&json_b).unwrap()).unwrap();
    assert_eq!(a["kiln_trace"], 1);
    assert_eq!(a["flows"][0]["node"], "lots");
    let sa = steps(&a);
    assert_eq!(sa, steps(&b), "two runs give the same steps");
    // The first steps, by the seed's rules: the lot, then split and route in turn.
    let first: Vec<&str> = sa
        .iter()
        .take(3)
        .map(|s| s["node"].as_str().unwrap())
        .collect();
    assert_eq!(first, ["lot", "split", "route"]);
    assert_eq!(sa[1]["in"]["rect"], 1);
    assert_eq!(sa[1]["out"]["first"], 1);
    assert_eq!(sa[1]["out"]["second"], 1);
    // Every step is printed, numbered, in the same order.
    assert!(
        err.contains(&format!("trace of flow `lots`: {} steps", sa.len())),
        "{err}"
    );
    let printed: Vec<&str> = err
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    let expected: Vec<&str> = sa.iter().map(|s| s["node"].as_str().unwrap()).collect();
    assert_eq!(printed, expected);
    // The parcels that reach the output: the entities into `parcels` over all its steps.
    let parcels: u64 = sa
        .iter()
        .filter(|s| s["node"] == "parcels")
        .map(|s| s["in"]["value"].as_u64().unwrap())
        .sum();
    assert!(parcels > 50, "{parcels} parcels");
    // Nothing else was written beside the named files.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["a.json", "buildings.png", "map.png", "nested-name.trace"]
    );
}

#[test]
fn trace_without_a_flow_graph_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (_, err) = run(&["run", "arithmetic.json", "--out", d, "-q", "--trace"]);
    assert!(err.contains("trace: no flow graph ran"), "{err}");
}

#[test]
fn render_traces_the_flow_of_its_last_tick() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("frames");
    let json = dir.path().join("render.trace");
    let (_, err) = run(&[
        "render",
        "parcels.json",
        "--ticks",
        "1",
        "--out",
        d.to_str().unwrap(),
        "-q",
        "--trace",
        "--trace-json",
        json.to_str().unwrap(),
    ]);
    let t: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(t["kiln_trace"], 1);
    assert_eq!(t["flows"][0]["node"], "lots");
    let s = steps(&t);
    let first: Vec<&str> = s
        .iter()
        .take(3)
        .map(|s| s["node"].as_str().unwrap())
        .collect();
    assert_eq!(first, ["lot", "split", "route"]);
    assert!(
        err.contains(&format!("trace of flow `lots`: {} steps", s.len())),
        "{err}"
    );
}

#[test]
fn watch_traces_the_flows_that_ran_in_each_present() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("out");
    let json = dir.path().join("watch.trace");
    let (out, err) = run(&[
        "watch",
        "parcels.json",
        "--out",
        d.to_str().unwrap(),
        "--max-presents",
        "1",
        "--trace",
        "--trace-json",
        json.to_str().unwrap(),
    ]);
    assert!(out.contains("frame"), "{out}");
    let t: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(t["flows"][0]["node"], "lots");
    let s = steps(&t);
    assert_eq!(s[0]["node"], "lot");
    assert!(
        err.contains(&format!("trace of flow `lots`: {} steps", s.len())),
        "{err}"
    );
}
