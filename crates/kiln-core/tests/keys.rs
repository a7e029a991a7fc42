//! Content keys: literal keys pinned for a set of nodes, the op version inside every key,
//! and volatile nodes that are run on every request and never kept.
//!
//! Keys outlive a process: cache directories file results under them. A change to how keys
//! are derived must be a conscious version bump — of `kiln_core::key::KEY_FORMAT_VERSION`
//! (and with it the cache directory's folder, `kiln_io::cache::VERSION_DIR`) — never a side
//! effect, or every existing cache directory is silently orphaned. If
//! `keys_are_pinned_for_a_set_of_nodes` fails, key derivation changed: either undo the change
//! or bump the version and write the new literal keys here.

use kiln_core::cache::{KeepAll, Store};
use kiln_core::key::{KEY_FORMAT_VERSION, Key};
use kiln_core::plan::{Class, Plan};
use kiln_core::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// An op reading `time` and `frame` from the context (its output: time + frame).
struct Clock(OpSpec);

impl Op for Clock {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = Value::Float(call.ctx.time + call.ctx.frame as f64);
        Ok(())
    }
}

/// A number.
#[kiln_core::op("num", out = "value")]
fn num(
    #[param("the number", default = 0.0)] value: f64,
    #[param("a label", default = "")] label: &str,
) -> f64 {
    value
}

/// Params of every plain kind.
#[kiln_core::op("mixed", out = "n")]
fn mixed(
    #[param("an int", default = 0)] n: i64,
    #[param("a bool", default = false)] on: bool,
    #[param("a vec3", default = [0.0; 3])] at: [f64; 3],
    #[param("a colour", default = [0.0; 4])] tint: [f32; 4],
    #[param("a list", default = Vec::<Value>::new())] items: &[Value],
) -> f64 {
    n as f64
}

/// a + b
#[kiln_core::op("add")]
fn add(#[input("a", default = 0.0)] a: f64, #[input("b", default = 0.0)] b: f64) -> f64 {
    a + b
}

/// floor and ceiling
#[kiln_core::op("split", outputs("lo" = "floor", "hi" = "ceiling"))]
fn split(#[input("x", default = 0.0)] x: f64) -> (f64, f64) {
    (x.floor(), x.ceil())
}

/// The ops of the pinned graph:
/// - `num` (params `value`: float, `label`: string) → out = value
/// - `mixed` (params int, bool, vec3, color, list) → out = the int, as a float
/// - `add` (a, b: float) → a + b
/// - `split` (x) → lo = floor x, hi = ceil x
/// - `clock` (reads time and frame) → time + frame
fn key_registry() -> Registry {
    let mut reg = Registry::new();
    reg.register(NumOp::new()).unwrap();
    reg.register(MixedOp::new()).unwrap();
    reg.register(AddOp::new()).unwrap();
    reg.register(SplitOp::new()).unwrap();
    reg.register(Clock(
        OpSpec::new("clock", "time + frame")
            .reads(Reads::TIME.with(Reads::FRAME))
            .output(OutputSpec::new("out", ValueType::Float, "time + frame")),
    ))
    .unwrap();
    reg
}

/// `k = num(1.5, "k")`, `m = mixed(...)`, `sum = add(k, 2.25)`, `halves = split(sum)`,
/// `up = add(halves.hi, m)`, `t = clock`, `late = add(up, t)`.
fn key_graph() -> Graph {
    let mut g = Graph::new();
    g.add_node("k", "num").unwrap();
    g.set_param("k", "value", 1.5).unwrap();
    g.set_param("k", "label", "k").unwrap();
    g.add_node("m", "mixed").unwrap();
    g.set_param("m", "n", -7i64).unwrap();
    g.set_param("m", "on", true).unwrap();
    g.set_param("m", "at", Value::Vec3([0.5, -0.0, 3.0]))
        .unwrap();
    g.set_param("m", "tint", Value::Color([1.0, 0.5, 0.25, 1.0]))
        .unwrap();
    let items = Value::List(Arc::from([Value::Int(1), Value::str("two")]));
    g.set_param("m", "items", items).unwrap();
    g.add_node("sum", "add").unwrap();
    g.wire("k.out", "sum.a");
    g.set_const("sum", "b", 2.25).unwrap();
    g.add_node("halves", "split").unwrap();
    g.wire("sum.out", "halves.x");
    g.add_node("up", "add").unwrap();
    g.wire("halves.hi", "up.a");
    g.wire("m.out", "up.b");
    g.add_node("t", "clock").unwrap();
    g.add_node("late", "add").unwrap();
    g.wire("up.out", "late.a");
    g.wire("t.out", "late.b");
    g
}

fn key_context() -> EvalContext {
    let mut ctx = EvalContext::new();
    ctx.time = 1.5;
    ctx.frame = 36;
    ctx
}

/// Every node's key in `key_context`, by node id.
fn keys_of(g: &Graph, reg: &Registry) -> Vec<(String, Key)> {
    let plan = Plan::build(g, reg).unwrap();
    let ctx = key_context();
    let mut keys = vec![Key::default(); plan.len()];
    for &v in plan.order() {
        let v = v as usize;
        keys[v] = plan.node_key(v, &ctx, 0, |s| keys[s]);
    }
    (0..plan.len())
        .map(|v| (plan.id(v).to_string(), keys[v]))
        .collect()
}

/// Literal keys of key format version 1 (see the module docs before changing any), in
/// `key_context`: every node's key, then the key of `halves`'s second output.
const PINNED: [(&str, &str); 8] = [
    ("k", "937908c28a68e4194e60e5189c330d2d"),
    ("m", "36c0cc38e6b26f45aac413d2103ca22e"),
    ("sum", "4b8a5ffa62a8542eed0d95f43d2d3b0f"),
    ("halves", "e3d6d3f4aa1921e7828970097d28fdd0"),
    ("up", "c4517821e6c73a7211f375277f0d9cd7"),
    ("t", "077ae1563eaaacb1923a99161bc5a79d"),
    ("late", "5e80f2668a85375ed914ed015ef7a2f0"),
    ("halves.hi", "a2beee4e3865b7d06ba6cad875659757"),
];

fn pinned(name: &str) -> Key {
    let hex = PINNED.iter().find(|(n, _)| *n == name).unwrap().1;
    Key(u128::from_str_radix(hex, 16).unwrap())
}

#[test]
fn keys_are_pinned_for_a_set_of_nodes() {
    assert_eq!(
        KEY_FORMAT_VERSION, 1,
        "write the new version's keys in PINNED"
    );
    let keys = keys_of(&key_graph(), &key_registry());
    let halves = keys[3].1;
    let mut got: Vec<(String, String)> =
        keys.iter().map(|(n, k)| (n.clone(), k.to_hex())).collect();
    got.push(("halves.hi".into(), halves.port(1).to_hex()));
    let want: Vec<(String, String)> = PINNED
        .iter()
        .map(|(n, k)| (n.to_string(), k.to_string()))
        .collect();
    assert_eq!(got, want);
}

/// A key's canonical bytes, written out by hand: every number little-endian, XXH3-128 with
/// seed 0 over the lot.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn raw(mut self, b: &[u8]) -> Self {
        self.0.extend_from_slice(b);
        self
    }
    fn u8(self, v: u8) -> Self {
        self.raw(&[v])
    }
    fn u64(self, v: u64) -> Self {
        self.raw(&v.to_le_bytes())
    }
    fn key(self, k: Key) -> Self {
        self.raw(&k.0.to_le_bytes())
    }
    /// A length-prefixed string.
    fn str(self, s: &str) -> Self {
        self.u64(s.len() as u64).raw(s.as_bytes())
    }
    /// The start of a node's definition: op id and version.
    fn op(self, id: &str) -> Self {
        self.str(id).u64(1)
    }
    /// Values: a type tag, then the content.
    fn float(self, x: f64) -> Self {
        self.u8(1).u64(x.to_bits())
    }
    fn int(self, x: i64) -> Self {
        self.u8(2).raw(&x.to_le_bytes())
    }
    fn string(self, s: &str) -> Self {
        self.u8(8).str(s)
    }
    /// Input sources in a definition: a wire, or a constant and its value.
    fn wire(self) -> Self {
        self.u8(1)
    }
    fn constant(self) -> Self {
        self.u8(2)
    }
    fn hash(&self) -> Key {
        Key(xxhash_rust::xxh3::xxh3_128(&self.0))
    }
}

/// The pinned keys follow from the documented derivation, computed here from raw bytes: a
/// node's definition key hashes its op id and version, its params, and per input a wire
/// marker or the constant; its key hashes the definition key, the context fields it reads
/// and the keys of its wired inputs (port p > 0 of a node: the node's key and p).
#[test]
fn the_pinned_keys_follow_from_the_byte_encoding() {
    let node = |definition: Bytes, then: Bytes| {
        Bytes::default().key(definition.hash()).raw(&then.0).hash()
    };
    let k = node(
        Bytes::default().op("num").float(1.5).string("k"),
        Bytes::default(),
    );
    let m = node(
        Bytes::default()
            .op("mixed")
            .int(-7)
            .u8(3)
            .u8(1) // bool true
            .u8(5)
            .u64(0.5f64.to_bits())
            .u64((-0.0f64).to_bits())
            .u64(3.0f64.to_bits()) // vec3
            .u8(7)
            .raw(&1.0f32.to_le_bytes())
            .raw(&0.5f32.to_le_bytes())
            .raw(&0.25f32.to_le_bytes())
            .raw(&1.0f32.to_le_bytes()) // color
            .u8(9)
            .u64(2)
            .int(1)
            .string("two"), // list
        Bytes::default(),
    );
    let sum = node(
        Bytes::default().op("add").wire().constant().float(2.25),
        Bytes::default().key(k),
    );
    let halves = node(
        Bytes::default().op("split").wire(),
        Bytes::default().key(sum),
    );
    let hi = Bytes::default().key(halves).u64(1).hash();
    let up = node(
        Bytes::default().op("add").wire().wire(),
        Bytes::default().key(hi).key(m),
    );
    let t = node(
        Bytes::default().op("clock"),
        Bytes::default()
            .u64(1.5f64.to_bits())
            .raw(&36i64.to_le_bytes()),
    );
    let late = node(
        Bytes::default().op("add").wire().wire(),
        Bytes::default().key(up).key(t),
    );
    let derived = [
        ("k", k),
        ("m", m),
        ("sum", sum),
        ("halves", halves),
        ("up", up),
        ("t", t),
        ("late", late),
        ("halves.hi", hi),
    ];
    for (name, key) in derived {
        assert_eq!(key, pinned(name), "{name}: {key:?}");
    }
}

/// The keys the evaluators file results under are these keys.
#[test]
fn evaluators_file_results_under_the_pinned_keys() {
    let g = key_graph();
    let store = Store::new(KeepAll).shared();
    let mut lazy = LazyEvaluator::new(key_registry()).with_store(store.clone());
    lazy.evaluate(&g, &Request::new(["late"]), &key_context())
        .unwrap();
    for (name, _) in PINNED {
        assert!(store.contains(pinned(name)), "{name}");
    }
    assert_eq!(store.len(), PINNED.len());
    let mut inc =
        IncrementalEvaluator::new(key_registry()).with_store(Store::new(KeepAll).shared());
    inc.evaluate(&g, &Request::new(["late", "halves.hi"]), &key_context())
        .unwrap();
    assert_eq!(inc.output_key(&g, "late"), Some(pinned("late")));
    assert_eq!(inc.output_key(&g, "halves.hi"), Some(pinned("halves.hi")));
}

/// `scale` (x) → 2x at `version`, and `plus` (a, b) → a + b at version 1.
fn versioned_registry(version: u32) -> Registry {
    let mut reg = Registry::new();
    reg.register(Versioned::new(ScaleOp::new(), version))
        .unwrap();
    reg.register(PlusOp::new()).unwrap();
    reg
}

/// 2x
#[kiln_core::op("scale")]
fn scale(#[input("x", default = 0.0)] x: f64) -> f64 {
    2.0 * x
}

/// a + b
#[kiln_core::op("plus")]
fn plus(#[input("a", default = 0.0)] a: f64, #[input("b", default = 0.0)] b: f64) -> f64 {
    a + b
}

/// An op at another version: the same op, declared as of `version`.
struct Versioned<O> {
    spec: OpSpec,
    op: O,
}

impl<O: Op> Versioned<O> {
    fn new(op: O, version: u32) -> Self {
        let mut spec = op.spec().clone();
        spec.version = version;
        Versioned { spec, op }
    }
}

impl<O: Op> Op for Versioned<O> {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        self.op.execute(call, out)
    }
    fn kernel(
        &self,
        inputs: &[Option<ValueType>],
        params: &[Value],
    ) -> Option<kiln_core::op::Kernel> {
        self.op.kernel(inputs, params)
    }
}

/// `s = scale(1.5)`, `d = plus(s, 1)`.
fn versioned_graph() -> Graph {
    let mut g = Graph::new();
    g.add_node("s", "scale").unwrap();
    g.set_const("s", "x", 1.5).unwrap();
    g.add_node("d", "plus").unwrap();
    g.wire("s.out", "d.a");
    g.set_const("d", "b", 1.0).unwrap();
    g
}

#[test]
fn the_op_version_is_part_of_the_key() {
    let g = versioned_graph();
    let v1 = Plan::build(&g, &versioned_registry(1)).unwrap();
    let v2 = Plan::build(&g, &versioned_registry(2)).unwrap();
    let again = Plan::build(&g, &versioned_registry(1)).unwrap();
    for n in 0..2 {
        assert_eq!(v1.static_key(n), again.static_key(n), "{}", v1.id(n));
        // The node itself, and what is downstream of it (its key holds its input's key).
        assert_ne!(v1.static_key(n), v2.static_key(n), "{}", v1.id(n));
    }
    assert_ne!(v1.definition_key(0), v2.definition_key(0));
    assert_eq!(
        v1.definition_key(1),
        v2.definition_key(1),
        "`plus` did not change"
    );
}

/// Results cached under version 1 are not served to an evaluator whose op is at version 2,
/// even from a store both share.
#[test]
fn a_store_shared_across_op_versions_misses_on_the_new_version() {
    let g = versioned_graph();
    let request = Request::new(["d"]);
    let ctx = EvalContext::new();
    let store = Store::new(KeepAll).shared();
    let first = LazyEvaluator::new(versioned_registry(1))
        .with_store(store.clone())
        .evaluate(&g, &request, &ctx)
        .unwrap();
    assert_eq!(first.stats.executed, 2);
    // The same version in another evaluator: everything comes from the store.
    let same = LazyEvaluator::new(versioned_registry(1))
        .with_store(store.clone())
        .evaluate(&g, &request, &ctx)
        .unwrap();
    assert_eq!((same.stats.executed, same.stats.cache_hits), (0, 1));
    let same = IncrementalEvaluator::new(versioned_registry(1))
        .with_store(store.clone())
        .evaluate(&g, &request, &ctx)
        .unwrap();
    assert_eq!(same.stats.executed, 0, "{:?}", same.stats);
    // Version 2: both nodes run again, under both evaluators.
    let lazy = LazyEvaluator::new(versioned_registry(2))
        .with_store(store.clone())
        .evaluate(&g, &request, &ctx)
        .unwrap();
    assert_eq!((lazy.stats.executed, lazy.stats.cache_hits), (2, 0));
    let store2 = Store::new(KeepAll).shared();
    let mut v1 = IncrementalEvaluator::new(versioned_registry(1)).with_store(store2.clone());
    v1.evaluate(&g, &request, &ctx).unwrap();
    let mut v2 = IncrementalEvaluator::new(versioned_registry(2)).with_store(store2.clone());
    let inc = v2.evaluate(&g, &request, &ctx).unwrap();
    assert_eq!((inc.stats.executed, inc.stats.cache_hits), (2, 0));
    assert_ne!(v1.output_key(&g, "d"), v2.output_key(&g, "d"));
    assert!(v1.output_key(&g, "d").is_some());
    assert_eq!(lazy.values[0].1, Value::Float(4.0));
}

/// A stateful op: its output counts its executions.
struct Ticks {
    spec: OpSpec,
    runs: AtomicU64,
}

impl Op for Ticks {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, _: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = Value::Float((self.runs.fetch_add(1, Ordering::Relaxed) + 1) as f64);
        Ok(())
    }
}

/// `versioned_registry(1)` with `ticks`, of purity `purity`.
fn ticking_registry(purity: Purity) -> Registry {
    let mut reg = versioned_registry(1);
    reg.register(Ticks {
        spec: OpSpec::new("ticks", "How often it ran.")
            .purity(purity)
            .output(OutputSpec::new("out", ValueType::Float, "runs so far")),
        runs: AtomicU64::new(0),
    })
    .unwrap();
    reg
}

/// `tick = ticks`, `after = plus(tick, 10)` (volatile through its input), `fixed = scale(1.5)`.
fn ticking_graph() -> Graph {
    let mut g = Graph::new();
    g.add_node("tick", "ticks").unwrap();
    g.add_node("after", "plus").unwrap();
    g.wire("tick.out", "after.a");
    g.set_const("after", "b", 10.0).unwrap();
    g.add_node("fixed", "scale").unwrap();
    g.set_const("fixed", "x", 1.5).unwrap();
    g
}

#[test]
fn a_volatile_op_runs_on_every_request_and_is_never_kept() {
    let g = ticking_graph();
    let request = Request::new(["tick", "after", "fixed"]);
    let ctx = EvalContext::new();
    for purity in [Purity::Stateful, Purity::SideEffect] {
        let reg = ticking_registry(purity);
        let plan = Plan::build(&g, &reg).unwrap();
        let classes: Vec<Class> = (0..plan.len()).map(|v| plan.class(v)).collect();
        assert_eq!(classes, [Class::Volatile, Class::Volatile, Class::Static]);
        let fixed_key = plan.static_key(2);
        let kinds: [&str; 6] = [
            "lazy",
            "eager",
            "compiled",
            "incremental",
            "lazy + store",
            "incremental + store",
        ];
        for kind in kinds {
            // A fresh registry per evaluator, so its counter starts at zero.
            let reg = ticking_registry(purity);
            let store = Store::new(KeepAll).shared();
            let mut eval: Box<dyn Evaluator> = match kind {
                "lazy" => Box::new(LazyEvaluator::new(reg)),
                "eager" => Box::new(EagerEvaluator::new(reg)),
                "compiled" => Box::new(CompiledEvaluator::new(reg).with_background(false)),
                "incremental" => Box::new(IncrementalEvaluator::new(reg)),
                "lazy + store" => Box::new(LazyEvaluator::new(reg).with_store(store.clone())),
                _ => Box::new(IncrementalEvaluator::new(reg).with_store(store.clone())),
            };
            for run in 1..=3 {
                let out = eval.evaluate(&g, &request, &ctx).unwrap();
                let tick = run as f64;
                assert_eq!(
                    out.get("tick"),
                    Some(&Value::Float(tick)),
                    "{kind} {purity:?}"
                );
                assert_eq!(out.get("after"), Some(&Value::Float(tick + 10.0)), "{kind}");
                assert_eq!(out.get("fixed"), Some(&Value::Float(3.0)), "{kind}");
                assert!(out.stats.executed >= 2, "{kind} run {run}: {:?}", out.stats);
            }
            // Only the static node is kept: nothing under a volatile node's key.
            if kind.ends_with("store") {
                assert_eq!(store.keys(), [fixed_key], "{kind} {purity:?}");
            }
        }
        let mut lazy = LazyEvaluator::new(ticking_registry(purity));
        for _ in 0..3 {
            lazy.evaluate(&g, &request, &ctx).unwrap();
        }
        assert_eq!(
            lazy.cache_len(),
            1,
            "{purity:?}: the memo holds `fixed` only"
        );
        assert!(lazy.is_cached(fixed_key));
    }
}
