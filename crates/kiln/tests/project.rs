//! The `Project` API from the outside: opening, the interface, inputs decoded once, plans
//! kept and shared with the cook, errors that name what they concern, writes as a group.

use kiln::core::list_type::list_of;
use kiln::prelude::*;
use kiln::{Clock, OpenOptions, OutputFiles, ProjectError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("the graph is written");
    p
}

/// `test.items`: the list `[1, 2, 3]`, counting its executions.
struct Items {
    spec: OpSpec,
    runs: Arc<AtomicUsize>,
}

impl Op for Items {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, _call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        out[0] = Value::list([1.0, 2.0, 3.0].map(Value::Float));
        Ok(())
    }
}

fn counting_registry() -> (Registry, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let mut reg = kiln::registry();
    reg.register(Items {
        spec: OpSpec::new("test.items", "The list [1, 2, 3], counted.").output(OutputSpec::new(
            "out",
            list_of(ValueType::Float),
            "the items",
        )),
        runs: runs.clone(),
    })
    .expect("a new op");
    (reg, runs)
}

const FOR_OVER_A_NODE: &str = r#"{
  "kiln": 1,
  "graphs": {
    "double": {
      "inputs": {"item": {"type": "float", "default": 0.0}},
      "nodes": {"d": {"op": "math.mul", "inputs": {"a": "item", "b": 2.0}}},
      "outputs": {"out": "d"}
    }
  },
  "nodes": {
    "items": {"op": "test.items"},
    "doubled": {"op": "@double", "for": "items.out"}
  },
  "outputs": {"twice": "doubled.out", "listed": "items.out"}
}"#;

#[test]
fn a_for_over_a_node_s_list_cooks_that_list_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "for.json", FOR_OVER_A_NODE);
    for kind in EvaluatorKind::ALL {
        let (reg, runs) = counting_registry();
        let mut p = OpenOptions::new().registry(reg).open(&path).unwrap();
        let cooked = p
            .cook(&CookOptions {
                evaluator: kind,
                ..CookOptions::default()
            })
            .unwrap();
        let doubled: Vec<f64> = cooked
            .get("twice")
            .and_then(Value::as_list)
            .expect("a list")
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        assert_eq!(doubled, [2.0, 4.0, 6.0], "{kind:?}");
        // The plan cooked the list to write the copies; the cook found it by key.
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "{kind:?}: the list cooked once"
        );
        assert_eq!(p.lower_counts().made, 1);
    }
}

#[test]
fn the_plan_is_kept_until_an_input_it_read_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "count.json",
        r#"{
  "kiln": 1,
  "inputs": {"n": {"type": "int", "default": 2}, "k": {"type": "float", "default": 1.0}},
  "graphs": {
    "one": {
      "inputs": {"index": {"type": "int", "default": 0}},
      "nodes": {"f": {"op": "math.add", "inputs": {"a": "index", "b": 0.5}}},
      "outputs": {"out": "f"}
    }
  },
  "nodes": {
    "each": {"op": "@one", "fold": {"count": "n"}},
    "sum": {"op": "math.add", "inputs": {"a": "each.out", "b": "k"}}
  },
  "outputs": {"total": "sum.out"}
}"#,
    );
    let mut p = Project::open(&path).unwrap();
    let first = p.cook(&CookOptions::default()).unwrap();
    assert_eq!(first.get("total"), Some(&Value::Float(2.5)));
    p.cook(&CookOptions::default()).unwrap();
    // `k` is not read by the plan: the plan stands.
    p.set("k", 2.0).unwrap();
    let c = p.cook(&CookOptions::default()).unwrap();
    assert_eq!(c.get("total"), Some(&Value::Float(3.5)));
    assert_eq!((p.lower_counts().made, p.lower_counts().reused), (1, 2));
    // `n` is: a new plan.
    p.set("n", 3).unwrap();
    let c = p.cook(&CookOptions::default()).unwrap();
    assert_eq!(c.get("total"), Some(&Value::Float(4.5)));
    assert_eq!(p.lower_counts().made, 2);
}

#[test]
fn a_cook_resolves_the_flat_graph_once_and_a_kept_plan_not_again() {
    use kiln::core::validate::resolve_count;
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "flat.json",
        r#"{
  "kiln": 1,
  "inputs": {"k": {"type": "float", "default": 1.5}},
  "nodes": {
    "a": {"op": "math.mul", "inputs": {"a": 3.0, "b": "k"}},
    "b": {"op": "math.add", "inputs": {"a": "a.out", "b": 0.5}}
  },
  "outputs": {"v": "b.out"}
}"#,
    );
    for kind in kiln::EvaluatorKind::ALL {
        let mut p = Project::open(&path).unwrap();
        let opts = CookOptions {
            evaluator: kind,
            ..CookOptions::default()
        };
        // Validation resolves the flat graph; the evaluator plans from what it resolved.
        let before = resolve_count();
        let c = p.cook(&opts).unwrap();
        assert_eq!(c.get("v"), Some(&Value::Float(5.0)), "{}", kind.name());
        assert_eq!(resolve_count() - before, 1, "{}", kind.name());
        // The kept plan is neither validated nor planned again by a fresh evaluator.
        let before = resolve_count();
        p.cook(&opts).unwrap();
        assert_eq!(resolve_count() - before, 0, "{}", kind.name());
    }
}

#[test]
fn a_switch_on_a_graph_input_in_a_file_without_calls_is_resolved_at_plan_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "switch.json",
        r#"{
  "kiln": 1,
  "inputs": {"big": {"type": "bool", "default": true}},
  "nodes": {
    "a": {"op": "math.mul", "inputs": {"a": 3.0, "b": 100.0}},
    "b": {"op": "math.mul", "inputs": {"a": 3.0, "b": 0.01}},
    "pick": {"op": "switch", "inputs": {"cond": "big", "a": "a.out", "b": "b.out"}}
  },
  "outputs": {"v": "pick.out"}
}"#,
    );
    let mut p = Project::open(&path).unwrap();
    let planned = p.lower(Clock::default()).unwrap();
    let report = planned.report.expect("the plan made a choice");
    assert_eq!(report.choices, 1);
    assert!(report.pruned >= 1, "{report:?}");
    let ids: Vec<&str> = planned
        .graph
        .nodes()
        .iter()
        .map(|n| n.id.as_str())
        .collect();
    assert!(ids.contains(&"a") && !ids.contains(&"b"), "{ids:?}");
    assert_eq!(
        p.cook(&CookOptions::default()).unwrap().get("v"),
        Some(&Value::Float(300.0))
    );
}

#[test]
fn a_file_input_is_decoded_once_when_it_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("photo.png");
    let mut img = image::RgbaImage::new(4, 2);
    for (x, _, px) in img.enumerate_pixels_mut() {
        *px = image::Rgba([if x == 0 { 255 } else { 0 }, 0, 0, 255]);
    }
    img.save(&png).unwrap();
    let path = write(
        dir.path(),
        "photo.json",
        r#"{
  "kiln": 1,
  "inputs": {"photo": {"type": "image"}},
  "nodes": {"inv": {"op": "image.invert", "inputs": {"image": "photo"}}},
  "outputs": {"inverted": "inv.out"}
}"#,
    );
    let mut p = Project::open(&path).unwrap();
    p.set_text("photo", &format!("@{}", png.display())).unwrap();
    // The file is not read again: it may go.
    std::fs::remove_file(&png).unwrap();
    for _ in 0..2 {
        let cooked = p.cook(&CookOptions::default()).unwrap();
        let out = dir.path().join("out");
        let w = p.write(&cooked, &out, &OutputFiles::default()).unwrap();
        let back = image::open(&w.files[0]).unwrap().to_rgba8();
        assert_eq!(back.dimensions(), (4, 2));
        // Inverted: the red corner is cyan, the black pixels white.
        assert_eq!(back.get_pixel(0, 0).0, [0, 255, 255, 255]);
        assert_eq!(back.get_pixel(1, 0).0, [255, 255, 255, 255]);
    }
}

#[test]
fn the_interface_lists_inputs_with_defaults_docs_and_rules_and_outputs_with_types() {
    let p = Project::open(example("stone.json")).unwrap();
    let inputs = p.inputs();
    let seed = inputs.iter().find(|i| i.name == "seed").expect("seed");
    assert_eq!(seed.ty, ValueType::Int);
    assert_eq!(seed.default, Some(Value::Int(11)));
    assert_eq!(
        seed.doc.as_deref(),
        Some("the stones' seed: their cells and their surface")
    );
    let crack = inputs.iter().find(|i| i.name == "crack").expect("crack");
    assert_eq!(crack.default, Some(Value::Float(0.08)));
    let outputs = p.outputs();
    let names: Vec<&str> = outputs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["stone", "stone_normal"]);
    assert!(
        outputs
            .iter()
            .all(|o| o.ty.is_some_and(|t| t.name() == "image")),
        "{outputs:?}"
    ); // An input wired into a ranged port carries that port's rule.
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "octaves.json",
        r#"{"kiln": 1,
  "inputs": {"oct": {"type": "int", "default": 4}},
  "nodes": {"f": {"op": "image.fractal", "inputs": {"octaves": "oct"}}},
  "outputs": {"img": "f.out"}}"#,
    );
    let p = Project::open(&path).unwrap();
    let oct = p
        .inputs()
        .into_iter()
        .find(|i| i.name == "oct")
        .expect("oct");
    assert_eq!(oct.reaches.len(), 1, "{oct:?}");
    assert_eq!(oct.reaches[0].0, "f.octaves");
    assert!(
        matches!(
            oct.reaches[0].1,
            kiln::core::op::rule::Rule::Ints { min: 1, .. }
        ),
        "{oct:?}"
    );
}

#[test]
fn errors_name_the_input_the_file_and_the_node() {
    let mut p = Project::open(example("stone.json")).unwrap();
    let e = p.set("rough", 1.0).unwrap_err();
    assert!(matches!(e, ProjectError::UnknownInput { .. }));
    assert!(e.to_string().contains("inputs: seed, crack"), "{e}");
    let e = p.set("seed", "six").unwrap_err();
    assert!(
        e.to_string().starts_with("`seed` (int): expected int"),
        "{e}"
    );
    let e = p.set_text("crack", "wide").unwrap_err();
    assert!(e.to_string().contains("`crack` (float)"), "{e}");
    let e = Project::open("/nonexistent/graph.json")
        .err()
        .expect("no file");
    assert!(e.to_string().contains("/nonexistent/graph.json"), "{e}");
    // A node's failure names it and its op.
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "fail.json",
        r#"{"kiln": 1, "nodes": {"boom": {"op": "error.raise", "params": {"message": "no"}}},
            "outputs": {"o": "boom.out"}}"#,
    );
    let mut p = Project::open(&path).unwrap();
    let e = p.cook(&CookOptions::default()).expect_err("it fails");
    assert!(matches!(
        e,
        ProjectError::Eval { .. } | ProjectError::Invalid { .. }
    ));
    assert!(e.to_string().contains("`boom`"), "{e}");
}

#[test]
fn outputs_land_as_a_group_in_the_formats_asked() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Project::open(example("stone.json")).unwrap();
    p.set("seed", 5).unwrap();
    let cooked = p
        .cook(&CookOptions {
            size: Some((32, 32)),
            ..CookOptions::default()
        })
        .unwrap();
    let args = [
        "stone.exr".to_string(),
        "stone.png".to_string(),
        "stone_normal".to_string(),
    ];
    let (names, files) = OutputFiles::parse(&args, Some(16)).unwrap();
    assert_eq!(names, ["stone", "stone", "stone_normal"]);
    let w = p.write(&cooked, dir.path(), &files).unwrap();
    let mut got: Vec<String> = w
        .files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    got.sort();
    assert_eq!(got, ["stone.exr", "stone.png", "stone_normal.png"]);
    let png = image::open(dir.path().join("stone.png")).unwrap();
    assert_eq!(png.color(), image::ColorType::Rgba16);
    // A folder in the way of one file: nothing lands, the other files keep their bytes.
    let before = std::fs::read(dir.path().join("stone.exr")).unwrap();
    std::fs::remove_file(dir.path().join("stone_normal.png")).unwrap();
    std::fs::create_dir(dir.path().join("stone_normal.png")).unwrap();
    p.set("seed", 6).unwrap();
    let other = p
        .cook(&CookOptions {
            size: Some((32, 32)),
            ..CookOptions::default()
        })
        .unwrap();
    let e = p.write(&other, dir.path(), &files).expect_err("refused");
    assert!(matches!(e, ProjectError::Commit { .. }), "{e}");
    assert_eq!(std::fs::read(dir.path().join("stone.exr")).unwrap(), before);
}

#[test]
fn cancelling_stops_a_cook_and_progress_is_reported() {
    let mut p = Project::open(example("stone.json")).unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let s = seen.clone();
    let opts = CookOptions {
        size: Some((16, 16)),
        progress: Some(Arc::new(move |_: &Progress<'_>| {
            s.fetch_add(1, Ordering::SeqCst);
        })),
        ..CookOptions::default()
    };
    p.cook(&opts).unwrap();
    assert!(seen.load(Ordering::SeqCst) > 0, "progress was reported");
    let cancelled = CookOptions {
        cancel: CancelToken::new(),
        ..opts
    };
    cancelled.cancel.cancel();
    let e = p.cook(&cancelled).expect_err("cancelled");
    assert!(e.to_string().contains("cancel"), "{e}");
}

/// Issue 29's finding was that `stone.json` declared a `seed` nothing read and `wall.json` a
/// `size`; now they drive params (through the plan), and an input wired nowhere is told.
#[test]
fn inputs_that_nothing_reads_are_told() {
    for name in [
        "stone.json",
        "wall.json",
        "marble.json",
        "unique_bricks.json",
    ] {
        let mut p = Project::open(example(name)).unwrap();
        assert!(p.unread_inputs().unwrap().is_empty(), "{name}");
    }
    let text = r#"{"kiln": 1,
      "inputs": {"seed": {"type": "int", "default": 3}, "spare": {"type": "int", "default": 1}},
      "nodes": {"cells": {"op": "image.cells", "inputs": {"seed": "seed"}}},
      "outputs": {"pic": "cells"}}"#;
    let mut p = OpenOptions::new()
        .open_text(text, "spare.json", Path::new("."))
        .unwrap();
    assert_eq!(p.unread_inputs().unwrap(), vec!["spare".to_string()]);
}

/// `NODE.PORT` sets any port of a node of any example (issue 29): here the first param of
/// the first node of a registered op, to its current value or default, and the graph stays
/// valid; a port the node lacks is refused naming what it has.
#[test]
fn every_example_takes_a_node_port_by_name() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    let mut set = 0;
    for path in names {
        let mut p = Project::open(&path).unwrap();
        let reg = p.registry().clone();
        let doc = &p.document().doc;
        let found = doc.graph.nodes().iter().find_map(|n| {
            if doc.calls.contains_key(&n.id) {
                return None;
            }
            let spec = reg.get(&n.op)?.spec();
            let param = spec.params.iter().find(|q| {
                spec.input_index(&q.name).is_none()
                    && !doc
                        .graph
                        .wires()
                        .iter()
                        .any(|w| w.to == PortRef::new(n.id.as_str(), &q.name))
            })?;
            let v = n
                .params
                .get(&param.name)
                .or(param.default.as_ref())?
                .clone();
            Some((format!("{}.{}", n.id, param.name), v, n.id.to_string()))
        });
        let Some((at, v, node)) = found else { continue };
        p.set(&at, v)
            .unwrap_or_else(|e| panic!("{}: {at}: {e}", path.display()));
        let diags = p.validate(Clock::default(), None).unwrap();
        assert!(diags.is_empty(), "{}: {at}: {diags:?}", path.display());
        let e = p.set(&format!("{node}.no_such_port"), 1).unwrap_err();
        assert!(matches!(e, ProjectError::UnknownPort { .. }), "{e}");
        set += 1;
    }
    assert!(set >= 20, "only {set} examples had a node param");
}
