//! Baking: frozen inputs, folded pure cones, blob storage, and outputs identical to the
//! original graph's.

mod domains;

use kiln_lower::flat_file::flat_file;

use kiln_core::eval::{EagerEvaluator, ErrorPolicy, Evaluator, LazyEvaluator, Request};
use kiln_core::graph::{Graph, PortRef};
use kiln_core::prelude::{EvalContext, StreamConfig, StreamingEvaluator};
use kiln_core::recurrence::Recurrent;
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use kiln_doc::bake::{BakeError, BakeOptions, Baked, Storage, bake, blob_dir_for, write_baked};
use kiln_doc::{GraphFile, load_graph, read_graph};
use kiln_io::{LoadError, encode_output};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn reg() -> Registry {
    domains::every_domain()
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// An example file as the plan writes it out (its own graph when it calls nothing).
fn planned(path: &Path) -> GraphFile {
    let d = kiln_doc::assets::read_document(path, &reg(), &Default::default()).expect("loads");
    flat_file(&d, &reg(), &EvalContext::new())
        .expect("plans")
        .file
}

fn example(name: &str) -> GraphFile {
    read_graph(&examples().join(format!("{name}.json")), &reg()).expect("example loads")
}

fn outputs_of(g: &Graph) -> Vec<String> {
    g.nodes()
        .iter()
        .filter(|n| n.op == "output")
        .map(|n| n.id.to_string())
        .collect()
}

/// What `kiln run` writes for every graph output: (file name, bytes).
fn run_with(eval: &mut dyn Evaluator, g: &Graph, ctx: &EvalContext) -> Vec<(String, Vec<u8>)> {
    let out = eval
        .evaluate(g, &Request::new(outputs_of(g)), ctx)
        .expect("evaluates");
    out.values
        .iter()
        .map(|(name, v)| {
            let (path, bytes) = encode_output(Path::new("out"), name, v).expect("encodes");
            (path.display().to_string(), bytes)
        })
        .collect()
}

fn run(g: &Graph, ctx: &EvalContext) -> Vec<(String, Vec<u8>)> {
    let lazy = run_with(&mut LazyEvaluator::new(reg()), g, ctx);
    let eager = run_with(&mut EagerEvaluator::new(reg()), g, ctx);
    assert_eq!(lazy, eager, "lazy and eager disagree");
    lazy
}

fn ctx_at(time: f64, seed: u64) -> EvalContext {
    let mut ctx = EvalContext::new();
    ctx.time = time;
    ctx.seed = seed;
    ctx
}

/// Bake, write beside `dir/name.json`, and read the written graph back.
fn bake_to_disk(file: &GraphFile, options: &BakeOptions, dir: &Path, name: &str) -> (Baked, Graph) {
    let baked = bake(file, &reg(), options).expect("bakes");
    let path = dir.join(format!("{name}.json"));
    write_baked(&path, &baked.file, &reg()).expect("writes");
    let back = read_graph(&path, &reg()).expect("baked graph loads");
    assert!(
        same_graph(&back.graph, &baked.file.graph),
        "{name}: the written graph reads back"
    );
    (baked, back.graph)
}

/// The same nodes (values bit for bit, heavy ones by content) and the same wires, in any order.
fn same_graph(a: &Graph, b: &Graph) -> bool {
    let wires = |g: &Graph| {
        let mut w: Vec<String> = g
            .wires()
            .iter()
            .map(|w| format!("{} -> {}", w.from, w.to))
            .collect();
        w.sort();
        w
    };
    a.nodes() == b.nodes() && wires(a) == wires(b)
}

fn has_signal_or_latch(g: &Graph, reg: &Registry) -> bool {
    g.nodes().iter().any(|n| {
        reg.get(&n.op).is_some_and(|op| {
            let s = op.spec();
            s.delay
                || s.inputs.iter().any(|i| i.ty == ValueType::Signal)
                || s.outputs.iter().any(|o| o.ty == ValueType::Signal)
        })
    })
}

fn freeze() -> BakeOptions {
    BakeOptions {
        freeze: true,
        ..BakeOptions::default()
    }
}

#[test]
fn every_plain_example_bakes_to_the_same_outputs_with_fewer_nodes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut names = vec![];
    for entry in std::fs::read_dir(examples()).expect("examples") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let file = planned(&path);
        // A step scope's solver holds its body, which has no codec: its refusal is tested in
        // `a_step_scope_is_refused_by_name_rather_than_baked_without_its_body`.
        if has_signal_or_latch(&file.graph, &reg())
            || file
                .graph
                .nodes()
                .iter()
                .any(|n| n.op == "scope.step" || n.op == "scope.flow")
        {
            continue;
        }
        let name = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        names.push(name.clone());
        for (label, seed) in [
            ("live-seed", None),
            ("seed-0", Some(0)),
            ("seed-5", Some(5)),
        ] {
            let options = BakeOptions { seed, ..freeze() };
            let (baked, back) =
                bake_to_disk(&file, &options, dir.path(), &format!("{name}-{label}"));
            let r = &baked.report;
            let at = seed.unwrap_or(3);
            for time in [0.0, 2.5] {
                assert_eq!(
                    run(&back, &ctx_at(time, at)),
                    run(&file.graph, &ctx_at(time, at)),
                    "{name} ({label}) at time {time}"
                );
            }
            // A folded cone of more than one node leaves fewer nodes.
            if r.folded.iter().any(|f| f.cone > 1) {
                assert!(r.nodes_after < r.nodes_before, "{name} ({label}): {r}");
            }
            assert_eq!(r.nodes_after, back.len());
            assert!(back.nodes().iter().all(|n| !n.op.starts_with("input.")));
            // Output names stay.
            assert_eq!(outputs_of(&back), outputs_of(&file.graph));
        }
    }
    names.sort();
    assert_eq!(
        names,
        [
            "arithmetic",
            "bricks",
            "clouds",
            "column",
            "erosion",
            "marble",
            "palette",
            "rock",
            "rust",
            "scattered_rocks",
            "stone",
            "terrain",
            "unique_bricks",
            "veined_marble",
            "wall",
            "wood"
        ]
    );
}

#[test]
fn folding_shrinks_the_examples() {
    let a = bake(&example("arithmetic"), &reg(), &freeze()).expect("bakes");
    // x, y, point, len, big, halved, doubled, pick fold into len and pick.
    assert_eq!((a.report.nodes_before, a.report.nodes_after), (13, 7));
    let folded: Vec<&str> = a.report.folded.iter().map(|f| f.source.as_str()).collect();
    assert_eq!(folded, ["len.out", "pick.out"]);
    assert!(
        a.report
            .folded
            .iter()
            .all(|f| f.storage == Storage::Embedded)
    );

    // Seed readers stay unless the seed is frozen.
    let live = bake(&example("clouds"), &reg(), &freeze()).expect("bakes");
    assert_eq!(live.report.nodes_after, 4);
    assert_eq!(live.report.folded_cones(), 0);
    let c = bake(
        &example("clouds"),
        &reg(),
        &BakeOptions {
            seed: Some(0),
            ..freeze()
        },
    )
    .expect("bakes");
    assert_eq!((c.report.nodes_before, c.report.nodes_after), (4, 2));
    assert_eq!(c.report.folded[0].source, "sky.out");
    assert_eq!(c.report.folded[0].cone, 3);
    assert_eq!(c.report.folded[0].storage, Storage::Blob);
    assert_eq!(
        c.file.graph.node("sky").map(|n| n.op.as_str()),
        Some("const")
    );

    let m = bake(&example("marble"), &reg(), &freeze()).expect("bakes");
    // The tint fill folds (tint and colour become one const); the seeded noise stays.
    assert_eq!((m.report.nodes_before, m.report.nodes_after), (11, 10));
    assert_eq!(m.report.folded[0].source, "colour.out");
}

#[test]
fn clock_nodes_stay_and_match_at_any_time() {
    let file = example("arithmetic");
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, back) = bake_to_disk(&file, &freeze(), dir.path(), "arith");
    assert_eq!(back.node("time").map(|n| n.op.as_str()), Some("clock.time"));
    assert_eq!(back.node("sine").map(|n| n.op.as_str()), Some("math.sin"));
    let mut waves = vec![];
    for time in [0.0, 1.25] {
        let ctx = ctx_at(time, 0);
        let baked = run(&back, &ctx);
        assert_eq!(baked, run(&file.graph, &ctx), "time {time}");
        waves.push(baked);
    }
    assert_ne!(waves[0], waves[1], "the clock still moves the wave output");
}

#[test]
fn inputs_given_are_frozen() {
    let file = example("arithmetic");
    let dir = tempfile::tempdir().expect("temp dir");
    let options = BakeOptions {
        inputs: BTreeMap::from([
            ("x".to_string(), Value::Int(6)),
            ("y".to_string(), Value::Float(8.0)),
        ]),
        ..freeze()
    };
    let (baked, back) = bake_to_disk(&file, &options, dir.path(), "set");
    assert_eq!(
        baked.report.frozen,
        vec![
            ("x".to_string(), Value::Float(6.0)),
            ("y".to_string(), Value::Float(8.0)),
        ]
    );
    let mut original = EvalContext::new();
    original.inputs = options.inputs.clone();
    assert_eq!(run(&back, &EvalContext::new()), run(&file.graph, &original));
    let out = LazyEvaluator::new(reg())
        .evaluate(&back, &Request::new(["length"]), &EvalContext::new())
        .expect("runs");
    assert_eq!(out.get("length"), Some(&Value::Float(10.0)));
    // Frozen: a value supplied at run time changes nothing.
    let later = EvalContext::new().with_input("x", 0.0);
    assert_eq!(run(&back, &later), run(&back, &EvalContext::new()));
}

#[test]
fn without_freeze_inputs_stay_inputs() {
    let file = example("arithmetic");
    let b = bake(&file, &reg(), &BakeOptions::default()).expect("bakes");
    assert_eq!(b.report.nodes_after, b.report.nodes_before);
    assert_eq!(b.report.folded_cones(), 0);
    assert_eq!(
        b.file.graph.node("x").map(|n| n.op.as_str()),
        Some("input.float")
    );
    let ctx = EvalContext::new().with_input("x", 9.0);
    assert_eq!(run(&b.file.graph, &ctx), run(&file.graph, &ctx));

    let set = BakeOptions {
        inputs: BTreeMap::from([("x".to_string(), Value::Float(1.0))]),
        ..BakeOptions::default()
    };
    assert!(matches!(
        bake(&file, &reg(), &set),
        Err(BakeError::InputsNeedFreeze)
    ));
    let unknown = BakeOptions {
        inputs: BTreeMap::from([("nope".to_string(), Value::Float(1.0))]),
        ..freeze()
    };
    let e = bake(&file, &reg(), &unknown).expect_err("unknown input");
    assert_eq!(
        e.to_string(),
        "the graph has no input named `nope` (inputs: x, y)"
    );
    let wrong = BakeOptions {
        inputs: BTreeMap::from([("x".to_string(), Value::str("big"))]),
        ..freeze()
    };
    let e = bake(&file, &reg(), &wrong).expect_err("wrong type");
    assert!(e.to_string().contains("cannot freeze input `x`"), "{e}");
}

fn seeded(name: &str) -> (GraphFile, BakeOptions) {
    (
        example(name),
        BakeOptions {
            seed: Some(0),
            ..freeze()
        },
    )
}

#[test]
fn heavy_values_go_to_checked_blobs() {
    let (file, options) = seeded("marble");
    let dir = tempfile::tempdir().expect("temp dir");
    let baked = bake(&file, &reg(), &options).expect("bakes");
    let path = dir.path().join("m.json");
    let w = write_baked(&path, &baked.file, &reg()).expect("writes");
    assert_eq!(w.blobs_written, 1);
    assert_eq!(w.blobs_present, 0);
    let blobs = blob_dir_for(&path).expect("blob dir");
    assert_eq!(w.blob_dir.as_deref(), Some(blobs.as_path()));
    let text = std::fs::read_to_string(&path).expect("graph file");
    let blob_names: Vec<String> = std::fs::read_dir(&blobs)
        .expect("blob dir exists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(blob_names.len(), 1);
    let reference = format!("m.blobs/{}", blob_names[0]);
    assert!(
        text.contains(&format!(r#"{{"type": "image", "blob": "{reference}"}}"#)),
        "{text}"
    );
    // Writing again keeps the intact blob.
    let again = write_baked(&path, &baked.file, &reg()).expect("writes");
    assert_eq!((again.blobs_written, again.blobs_present), (0, 1));

    // Text without a file cannot resolve it.
    let e = load_graph(&text, &reg()).expect_err("needs a folder");
    assert!(matches!(e, LoadError::Blob { .. }), "{e}");
    assert!(e.to_string().contains("not read from a file"), "{e}");
    assert_eq!(e.location(), Some("nodes.tinted.params.value"));

    // A corrupted blob is a load error naming it.
    let blob = blobs.join(&blob_names[0]);
    let mut bytes = std::fs::read(&blob).expect("blob");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&blob, &bytes).expect("corrupt");
    let e = read_graph(&path, &reg()).expect_err("corrupt blob");
    let msg = e.to_string();
    assert!(matches!(e, LoadError::Blob { .. }), "{msg}");
    assert!(msg.contains(&reference), "{msg}");
    assert!(msg.contains("damaged") && msg.contains("checksum"), "{msg}");
    // A truncated one too.
    std::fs::write(&blob, &bytes[..20]).expect("truncate");
    let msg = read_graph(&path, &reg())
        .expect_err("truncated")
        .to_string();
    assert!(msg.contains("damaged") && msg.contains(&reference), "{msg}");
    // A missing one too.
    std::fs::remove_file(&blob).expect("remove");
    let msg = read_graph(&path, &reg()).expect_err("missing").to_string();
    assert!(
        msg.contains("is missing") && msg.contains(&reference),
        "{msg}"
    );
    // Re-writing restores it.
    let again = write_baked(&path, &baked.file, &reg()).expect("writes");
    assert_eq!(again.blobs_written, 1);
    assert!(read_graph(&path, &reg()).is_ok());
}

#[test]
fn rebaking_a_baked_graph_changes_nothing() {
    let (file, options) = seeded("marble");
    let dir = tempfile::tempdir().expect("temp dir");
    let (first, back) = bake_to_disk(&file, &options, dir.path(), "once");
    let (second, again) =
        bake_to_disk(&GraphFile::new(back.clone()), &options, dir.path(), "twice");
    assert_eq!(second.report.nodes_after, first.report.nodes_after);
    assert_eq!(second.report.folded_cones(), 0);
    assert!(same_graph(&again, &back));
    // The same image is stored again under the same content hash.
    let names = |stem: &str| {
        let mut v: Vec<String> = std::fs::read_dir(dir.path().join(format!("{stem}.blobs")))
            .expect("blobs")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names("once"), names("twice"));
}

#[test]
fn bad_blob_references_are_load_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let hex = "0123456789abcdef0123456789abcdef";
    for (value, needle) in [
        (
            format!(r#"{{"type": "image", "blob": "../x/{hex}.kv"}}"#),
            "relative path",
        ),
        (
            r#"{"type": "image", "blob": "b.blobs/x.kv"}"#.to_string(),
            "32 hex digits",
        ),
        (
            format!(r#"{{"blob": "b.blobs/{hex}.kv"}}"#),
            "needs a `type`",
        ),
        (
            r#"{"type": "image", "blob": 3}"#.to_string(),
            "must be a string",
        ),
        (
            format!(r#"{{"type": "image", "blob": "b.blobs/{hex}.kv", "x": 1}}"#),
            "unexpected key `x`",
        ),
        (
            format!(r#"{{"type": "image", "blob": "b.blobs/{hex}.kv"}}"#),
            "is missing",
        ),
        (
            format!(r#"[{{"type": "image", "blob": "b.blobs/{hex}.kv"}}]"#),
            "whole param",
        ),
    ] {
        let text = format!(
            r#"{{"kiln": 1, "nodes": {{"c": {{"op": "const", "params": {{"value": {value}}}}}}}}}"#
        );
        let path = dir.path().join("g.json");
        std::fs::write(&path, &text).expect("write");
        let e = read_graph(&path, &reg()).expect_err(&text);
        assert!(e.to_string().contains(needle), "{text}: {e}");
    }
    // A blob of another type than the reference says.
    let (file, options) = seeded("clouds");
    let baked = bake(&file, &reg(), &options).expect("bakes");
    let path = dir.path().join("c.json");
    write_baked(&path, &baked.file, &reg()).expect("writes");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(
        &path,
        text.replace(r#""type": "image""#, r#""type": "mesh""#),
    )
    .expect("w");
    let e = read_graph(&path, &reg()).expect_err("type");
    assert!(e.to_string().contains("holds a image value"), "{e}");
}

#[test]
fn failing_nodes_are_kept_not_folded() {
    let text = r#"{
      "kiln": 1,
      "nodes": {
        "two": {"op": "math.add", "inputs": {"a": 1.0, "b": 1.0}},
        "bad": {"op": "error.raise", "params": {"message": "boom"}, "inputs": {"value": "two.out", "when": true}},
        "after": {"op": "math.mul", "inputs": {"a": "bad.out", "b": 3.0}},
        "fine": {"op": "math.mul", "inputs": {"a": "two.out", "b": 5.0}}
      },
      "outputs": {"broken": "after.out", "ok": "fine.out"}
    }"#;
    let file = load_graph(text, &reg()).expect("loads");
    let b = bake(&file, &reg(), &freeze()).expect("bakes");
    let g = &b.file.graph;
    assert_eq!(g.node("bad").map(|n| n.op.as_str()), Some("error.raise"));
    assert_eq!(g.node("after").map(|n| n.op.as_str()), Some("math.mul"));
    assert_eq!(g.node("two").map(|n| n.op.as_str()), Some("const"));
    assert_eq!(g.node("fine").map(|n| n.op.as_str()), Some("const"));
    let request = Request::new(["broken", "ok"]).with_errors(ErrorPolicy::Propagate);
    let ctx = EvalContext::new();
    let before = LazyEvaluator::new(reg())
        .evaluate(&file.graph, &request, &ctx)
        .expect("runs");
    let after = LazyEvaluator::new(reg())
        .evaluate(g, &request, &ctx)
        .expect("runs");
    assert_eq!(after.get("ok"), before.get("ok"));
    assert_eq!(after.failures.len(), 1);
    assert_eq!(after.failures[0].node.as_str(), "bad");
    assert_eq!(after.failures[0].error, before.failures[0].error);
}

#[test]
fn multi_output_nodes_fold_port_by_port() {
    let text = r#"{
      "kiln": 1,
      "nodes": {
        "v": {"op": "vec.make3", "inputs": {"x": 1.0, "y": 2.0, "z": 3.0}},
        "parts": {"op": "vec.split", "inputs": {"v": "v.out"}},
        "t": {"op": "clock.time"},
        "sy": {"op": "math.mul", "inputs": {"a": "parts.y", "b": "t.out"}},
        "sz": {"op": "math.add", "inputs": {"a": "parts.z", "b": "t.out"}}
      },
      "outputs": {"y": "sy.out", "z": "sz.out", "x": "parts.x"}
    }"#;
    let file = load_graph(text, &reg()).expect("loads");
    let dir = tempfile::tempdir().expect("temp dir");
    let (baked, back) = bake_to_disk(&file, &freeze(), dir.path(), "split");
    let ids: Vec<&str> = back.nodes().iter().map(|n| n.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "parts__x", "parts__y", "parts__z", "t", "sy", "sz", "y", "z", "x"
        ]
    );
    assert_eq!(baked.report.folded.len(), 3);
    for time in [0.0, 4.0] {
        assert_eq!(
            run(&back, &ctx_at(time, 0)),
            run(&file.graph, &ctx_at(time, 0))
        );
    }
}

#[test]
fn latches_stay_and_ticks_match() {
    let file = example("trails");
    let dir = tempfile::tempdir().expect("temp dir");
    let (baked, back) = bake_to_disk(&file, &freeze(), dir.path(), "trails");
    assert_eq!(back.node("state").map(|n| n.op.as_str()), Some("latch"));
    // The dark fill is folded into a blob.
    assert_eq!(back.node("dark").map(|n| n.op.as_str()), Some("const"));
    assert!(
        baked
            .report
            .folded
            .iter()
            .any(|f| f.storage == Storage::Blob)
    );
    let request = Request::new(["trails"]);
    let mut a = Recurrent::new(LazyEvaluator::new(reg()), reg());
    let mut b = Recurrent::new(LazyEvaluator::new(reg()), reg());
    for t in 0..4 {
        let mut ctx = EvalContext::new();
        ctx.time = t as f64 / 10.0;
        ctx.frame = t;
        let x = a.tick(&file.graph, &request, &ctx).expect("tick");
        let y = b.tick(&back, &request, &ctx).expect("tick");
        assert!(x.values[0].1.same_bits(&y.values[0].1), "tick {t}");
    }
}

#[test]
fn signal_ops_stay_and_stream_the_same_samples() {
    let file = example("drone");
    let options = BakeOptions {
        inputs: BTreeMap::from([("root".to_string(), Value::Float(49.0))]),
        ..freeze()
    };
    let b = bake(&file, &reg(), &options).expect("bakes");
    let g = &b.file.graph;
    for id in [
        "saw", "saw2", "sine", "voices", "filter", "lfo", "echo", "out",
    ] {
        assert_ne!(g.node(id).map(|n| n.op.as_str()), Some("const"), "{id}");
    }
    assert_eq!(g.node("detuned").map(|n| n.op.as_str()), Some("const"));
    let config = StreamConfig {
        sample_rate: 8000,
        block: 64,
        seed: 0,
    };
    let stream = |g: &Graph, ctx: &EvalContext| {
        let mut s =
            StreamingEvaluator::with_context(reg(), g, &["out.out"], config, ctx).expect("stream");
        s.process(2000).expect("process");
        s.output(0)
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<u64>>()
    };
    let original = EvalContext::new().with_input("root", 49.0);
    assert_eq!(
        stream(g, &EvalContext::new()),
        stream(&file.graph, &original)
    );

    // An audio loop cannot be planned for the tick evaluators: nothing is folded.
    let p = bake(&example("pluck"), &reg(), &freeze()).expect("bakes");
    assert!(p.report.not_folded.is_some());
    assert_eq!(p.report.nodes_after, p.report.nodes_before);
}

/// A small deterministic generator.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn float(&mut self) -> f64 {
        (self.next() % 2001) as f64 / 100.0 - 10.0
    }
}

/// A random graph of float maths, vectors and images over two inputs and the clock.
fn generated(rng: &mut Rng) -> Graph {
    let mut g = Graph::new();
    let mut floats: Vec<String> = vec![];
    let mut images: Vec<String> = vec![];
    for name in ["in0", "in1"] {
        g.add_node(name, "input.float").expect("new");
        g.set_param(name, "name", Value::str(name)).expect("node");
        g.set_param(name, "default", rng.float()).expect("node");
        floats.push(format!("{name}.out"));
    }
    if rng.below(2) == 0 {
        g.add_node("t", "clock.time").expect("new");
        floats.push("t.out".into());
    }
    let n = 3 + rng.below(20);
    for k in 0..n {
        let id = format!("n{k}");
        let pick = |rng: &mut Rng, g: &mut Graph, port: &str| {
            if rng.below(5) == 0 {
                g.set_const(&id, port, rng.float()).expect("node");
            } else {
                let src = floats[rng.below(floats.len())].clone();
                g.connect(PortRef::parse(&src), PortRef::new(id.as_str(), port));
            }
        };
        match rng.below(9) {
            0..=3 => {
                let op = ["math.add", "math.mul", "math.sub", "math.max"][rng.below(4)];
                g.add_node(id.as_str(), op).expect("new");
                pick(rng, &mut g, "a");
                pick(rng, &mut g, "b");
                floats.push(format!("{id}.out"));
            }
            4 | 5 => {
                let op = ["math.sin", "math.abs", "math.cos"][rng.below(3)];
                g.add_node(id.as_str(), op).expect("new");
                pick(rng, &mut g, "x");
                floats.push(format!("{id}.out"));
            }
            6 => {
                g.add_node(id.as_str(), "vec.make3").expect("new");
                pick(rng, &mut g, "x");
                pick(rng, &mut g, "z");
                let split = format!("{id}s");
                g.add_node(split.as_str(), "vec.split").expect("new");
                g.connect(
                    PortRef::new(id.as_str(), "out"),
                    PortRef::new(split.as_str(), "v"),
                );
                floats.push(format!("{split}.x"));
                floats.push(format!("{split}.z"));
            }
            7 => {
                g.add_node(id.as_str(), "image.fill").expect("new");
                g.set_param(&id, "width", Value::Int(4)).expect("node");
                g.set_param(&id, "height", Value::Int(3)).expect("node");
                g.set_const(&id, "color", Value::Color([0.2, 0.4, 0.6, 1.0]))
                    .expect("node");
                images.push(format!("{id}.out"));
            }
            _ => {
                if images.is_empty() {
                    continue;
                }
                g.add_node(id.as_str(), "image.gain").expect("new");
                let src = images[rng.below(images.len())].clone();
                g.connect(PortRef::parse(&src), PortRef::new(id.as_str(), "image"));
                pick(rng, &mut g, "gain");
                images.push(format!("{id}.out"));
            }
        }
    }
    let mut sources: Vec<String> = floats[floats.len().saturating_sub(3)..].to_vec();
    sources.extend(images.last().cloned());
    sources.push(floats[rng.below(floats.len())].clone());
    for (i, src) in sources.iter().enumerate() {
        let id = format!("o{i}");
        g.add_node(id.as_str(), "output").expect("new");
        g.connect(PortRef::parse(src), PortRef::new(id.as_str(), "value"));
    }
    g
}

#[test]
fn generated_graphs_bake_to_the_same_outputs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut shrunk = 0;
    for case in 0..60 {
        let g = generated(&mut rng);
        assert!(
            kiln_core::validate::validate(&g, &reg()).is_empty(),
            "case {case} is valid"
        );
        let file = GraphFile::new(g);
        let set = rng.float();
        let options = BakeOptions {
            inputs: BTreeMap::from([("in1".to_string(), Value::Float(set))]),
            ..freeze()
        };
        let (baked, back) = bake_to_disk(&file, &options, dir.path(), &format!("g{case}"));
        for time in [0.0, 0.75] {
            let mut original = ctx_at(time, 0);
            original.inputs.insert("in1".into(), Value::Float(set));
            assert_eq!(
                run(&back, &ctx_at(time, 0)),
                run(&file.graph, &original),
                "case {case} at time {time}:\n{}",
                kiln_doc::save_graph(&file.graph, &reg())
            );
        }
        if baked.report.nodes_after < baked.report.nodes_before {
            shrunk += 1;
        }
    }
    assert!(shrunk > 30, "only {shrunk} of 60 graphs shrank");
}

#[test]
fn a_step_scope_is_refused_by_name_rather_than_baked_without_its_body() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = planned(&examples().join("orbit.json"));
    let baked = bake(&file, &reg(), &BakeOptions::default()).expect("bakes");
    let path = dir.path().join("orbit.json");
    let e = write_baked(&path, &baked.file, &reg()).expect_err("no codec for the step body");
    let msg = e.to_string();
    assert!(
        msg.contains("`planet`") && msg.contains("`body`") && msg.contains("step-body"),
        "{msg}"
    );
    assert!(!path.exists(), "nothing is written");
}
