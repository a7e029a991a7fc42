//! The streaming evaluator with test signal ops: block-size invariance, loops at block and
//! sample level, control values, clock domains, snapshots and failures.

mod common;

use kiln_audio::ResampleOp;
use kiln_core::eval::{StreamConfig, StreamError, StreamingEvaluator};
use kiln_core::op::port::SignalIn;
use kiln_core::prelude::*;
use kiln_core::signal::{SignalCall, SignalProc, Words};

/// Sample n is `at(n)`: a stateless function of the sample count, whose state is the count.
struct Counted {
    n: u64,
    at: Box<dyn Fn(u64) -> f64 + Send>,
}
impl SignalProc for Counted {
    fn process(&mut self, _inputs: &[&[f64]], out: &mut [f64]) {
        for o in out {
            *o = (self.at)(self.n);
            self.n += 1;
        }
    }
    fn reset(&mut self) {
        self.n = 0;
    }
    fn save(&self, w: &mut Vec<u64>) {
        w.push(self.n);
    }
    fn load(&mut self, w: &[u64]) -> Result<(), String> {
        self.n = Words::exact(w, 1)?.u64();
        Ok(())
    }
}

/// `a + k · b`.
struct AddScaled {
    k: f64,
}
impl SignalProc for AddScaled {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = inputs[0][i] + self.k * inputs[1][i];
        }
    }
}

/// A delay of `d` samples (a ring buffer), through a feedback input.
struct Delay {
    buf: Vec<f64>,
    pos: usize,
}
impl SignalProc for Delay {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.buf[self.pos];
            self.buf[self.pos] = inputs[0][i];
            self.pos = (self.pos + 1) % self.buf.len();
        }
    }
    fn latency(&self) -> usize {
        self.buf.len()
    }
    fn emit(&mut self, out: &mut [f64]) {
        let d = self.buf.len();
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.buf[(self.pos + i) % d];
        }
    }
    fn absorb(&mut self, inputs: &[&[f64]]) {
        let d = self.buf.len();
        for &x in inputs[0] {
            self.buf[self.pos] = x;
            self.pos = (self.pos + 1) % d;
        }
    }
    fn reset(&mut self) {
        self.buf.fill(0.0);
        self.pos = 0;
    }
    fn save(&self, w: &mut Vec<u64>) {
        w.push(self.pos as u64);
        w.extend(self.buf.iter().map(|x| x.to_bits()));
    }
    fn load(&mut self, w: &[u64]) -> Result<(), String> {
        let mut r = Words::exact(w, 1 + self.buf.len())?;
        self.pos = r.u64() as usize;
        for b in &mut self.buf {
            *b = r.f64();
        }
        Ok(())
    }
}

/// Panics at sample `at`.
struct Boom {
    n: u64,
    at: u64,
}
impl SignalProc for Boom {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            assert!(self.n != self.at, "boom at sample {}", self.n);
            *o = inputs[0][i];
            self.n += 1;
        }
    }
    fn reset(&mut self) {
        self.n = 0;
    }
    fn save(&self, w: &mut Vec<u64>) {
        w.push(self.n);
    }
    fn load(&mut self, w: &[u64]) -> Result<(), String> {
        self.n = Words::exact(w, 1)?.u64();
        Ok(())
    }
}

/// n * step
#[kiln_core::op("s.ramp", signal, out = "ramp")]
fn ramp(#[param("step", default = 1.0)] step: f64) -> Counted {
    // `n · step` at sample n.
    Counted {
        n: 0,
        at: Box::new(move |n| n as f64 * step),
    }
}

/// sine of a control frequency
#[kiln_core::op("s.sine", signal, out = "sine")]
fn sine(#[input("Hz", default = 440.0)] freq: f64, call: &SignalCall<'_>) -> Counted {
    // `sin(2π f n / rate)`, with `f` a control input.
    let rate = call.sample_rate;
    Counted {
        n: 0,
        at: Box::new(move |n| (std::f64::consts::TAU * freq * n as f64 / rate).sin()),
    }
}

/// a + k b
#[kiln_core::op("s.add", signal, out = "sum")]
fn add(
    #[input("a")] a: SignalIn,
    #[input("b", default = 0.0)] b: SignalIn,
    #[param("k", default = 1.0)] k: f64,
) -> AddScaled {
    AddScaled { k }
}

/// delay
#[kiln_core::op("s.delay", signal, out = "delayed")]
fn delay(
    #[input("in", feedback)] r#in: SignalIn,
    #[param("d", default = 1)] samples: i64,
) -> Result<Delay, OpError> {
    if samples < 1 {
        return Err(OpError::param(0, "must be at least 1"));
    }
    Ok(Delay {
        buf: vec![0.0; samples as usize],
        pos: 0,
    })
}

/// panics
#[kiln_core::op("s.boom", signal, out = "in")]
fn boom(#[input("in")] r#in: SignalIn, #[param("when", default = 100)] at: i64) -> Boom {
    Boom {
        n: 0,
        at: at as u64,
    }
}

fn registry() -> Registry {
    let mut reg = common::env().reg;
    reg.register_signal(RampOp::new()).unwrap();
    reg.register_signal(SineOp::new()).unwrap();
    reg.register_signal(AddOp::new()).unwrap();
    reg.register_signal(DelayOp::new()).unwrap();
    reg.register_signal(BoomOp::new()).unwrap();
    reg.register_signal(ResampleOp::default()).unwrap();
    reg
}

fn cfg(block: usize) -> StreamConfig {
    StreamConfig {
        sample_rate: 48_000,
        block,
        seed: 0,
    }
}

fn render(g: &Graph, outs: &[&str], block: usize, n: u64) -> Vec<Vec<f64>> {
    let mut s = StreamingEvaluator::new(registry(), g, outs, cfg(block)).unwrap();
    s.render(n).unwrap()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// y = x + k · y[n - d], built as a graph loop through `s.delay`.
fn comb(d: i64, k: f64) -> Graph {
    let mut g = Graph::new();
    g.add_node("x", "s.ramp").unwrap();
    g.set_param("x", "step", 0.001).unwrap();
    g.add_node("y", "s.add").unwrap();
    g.set_param("y", "k", k).unwrap();
    g.add_node("d", "s.delay").unwrap();
    g.set_param("d", "samples", d).unwrap();
    g.wire("x", "y.a");
    g.wire("d", "y.b");
    g.wire("y", "d.in");
    g
}

fn comb_reference(d: usize, k: f64, n: usize) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for i in 0..n {
        let x = i as f64 * 0.001;
        let fb = if i >= d { y[i - d] } else { 0.0 };
        y[i] = x + k * fb;
    }
    y
}

#[test]
fn loops_match_the_recurrence_for_every_block_size() {
    // d = 1 and 5 run sample by sample at the larger blocks; d = 300 block by block.
    for d in [1usize, 5, 300] {
        let g = comb(d as i64, 0.5);
        let want = comb_reference(d, 0.5, 2_000);
        let first = render(&g, &["y"], 1, 2_000);
        assert_eq!(bits(&first[0]), bits(&want), "d = {d}, block 1");
        for block in [64, 256, 37, 300, 1024] {
            let got = render(&g, &["y"], block, 2_000);
            assert_eq!(bits(&got[0]), bits(&want), "d = {d}, block {block}");
        }
    }
}

#[test]
fn process_block_fills_one_block_and_position_advances() {
    let g = comb(3, 0.5);
    let mut s = StreamingEvaluator::new(registry(), &g, &["y"], cfg(16)).unwrap();
    assert_eq!(s.output(0).len(), 0);
    s.process_block().unwrap();
    assert_eq!(s.output(0).len(), 16);
    s.process(5).unwrap();
    assert_eq!(s.output(0).len(), 5);
    assert_eq!(s.position(), 21);
    let want = comb_reference(3, 0.5, 21);
    assert_eq!(bits(s.output(0)), bits(&want[16..]));
}

#[test]
fn control_values_come_from_ordinary_nodes() {
    // freq = 100 + 340 computed by ordinary ops, evaluated once.
    let mut g = Graph::new();
    g.add_node("a", "num").unwrap();
    g.set_param("a", "value", 100.0).unwrap();
    g.add_node("f", "add").unwrap();
    g.wire("a", "f.a");
    g.set_const("f", "b", 340.0).unwrap();
    g.add_node("osc", "s.sine").unwrap();
    g.wire("f", "osc.freq");
    let out = render(&g, &["osc"], 64, 480);
    for (n, &y) in out[0].iter().enumerate() {
        let want = (std::f64::consts::TAU * 440.0 * n as f64 / 48_000.0).sin();
        assert_eq!(y.to_bits(), want.to_bits(), "sample {n}");
    }
}

#[test]
fn reset_and_snapshots_reproduce_the_stream() {
    let g = comb(7, 0.9);
    let mut s = StreamingEvaluator::new(registry(), &g, &["y"], cfg(32)).unwrap();
    let whole = s.render(1_000).unwrap();
    s.reset();
    let again = s.render(1_000).unwrap();
    assert_eq!(bits(&whole[0]), bits(&again[0]));

    s.reset();
    let head = s.render(333).unwrap();
    let snap = s.snapshot();
    assert_eq!(snap.position(), 333);
    let tail = s.render(667).unwrap();
    assert_eq!(bits(&head[0]), bits(&whole[0][..333]));
    assert_eq!(bits(&tail[0]), bits(&whole[0][333..]));
    // Restored into another stream, with another block size.
    let mut other = StreamingEvaluator::new(registry(), &g, &["y"], cfg(5)).unwrap();
    other.restore(&snap).unwrap();
    let tail2 = other.render(667).unwrap();
    assert_eq!(bits(&tail2[0]), bits(&whole[0][333..]));
    // A snapshot of another graph does not fit.
    let mut third = StreamingEvaluator::new(registry(), &comb(7, 0.9), &["d"], cfg(5)).unwrap();
    let mut g2 = Graph::new();
    g2.add_node("x", "s.ramp").unwrap();
    let lone = StreamingEvaluator::new(registry(), &g2, &["x"], cfg(5)).unwrap();
    assert!(matches!(
        third.restore(&lone.snapshot()),
        Err(StreamError::Snapshot(_))
    ));
}

#[test]
fn a_loop_without_a_delay_is_refused_and_tick_evaluators_refuse_audio_loops() {
    // A loop through s.add alone: validation names it.
    let mut g = Graph::new();
    g.add_node("x", "s.ramp").unwrap();
    g.add_node("y", "s.add").unwrap();
    g.wire("x", "y.a");
    g.wire("y", "y.b");
    let err = StreamingEvaluator::new(registry(), &g, &["y"], cfg(8)).unwrap_err();
    assert!(matches!(err, StreamError::Invalid(_)), "{err}");
    assert!(err.to_string().contains("cycle"), "{err}");

    // A loop through a feedback input is fine for streaming, not for the tick evaluators.
    let g = comb(4, 0.5);
    let mut lazy = LazyEvaluator::new(registry());
    let err = lazy
        .evaluate(&g, &Request::new(["y"]), &EvalContext::new())
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("audio feedback"), "{msg}");
    assert!(msg.contains("streaming evaluator"), "{msg}");
}

#[test]
fn signal_ops_in_a_tick_evaluator_name_the_node() {
    let mut g = Graph::new();
    g.add_node("osc", "s.sine").unwrap();
    let mut lazy = LazyEvaluator::new(registry());
    let err = lazy
        .evaluate(&g, &Request::new(["osc"]), &EvalContext::new())
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("`osc`"), "{msg}");
    assert!(msg.contains("streaming evaluator"), "{msg}");
}

#[test]
fn build_errors_name_the_node_and_port() {
    // An output that is not a signal.
    let mut g = Graph::new();
    g.add_node("a", "num").unwrap();
    let err = StreamingEvaluator::new(registry(), &g, &["a"], cfg(8)).unwrap_err();
    assert!(matches!(err, StreamError::Output { .. }), "{err}");
    assert!(err.to_string().contains("not a signal"), "{err}");
    // An unknown output.
    let err = StreamingEvaluator::new(registry(), &g, &["nope"], cfg(8)).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    // A bad param: the op's error, with the param named.
    let mut g = comb(0, 0.5);
    g.set_param("d", "samples", 0i64).unwrap();
    let err = StreamingEvaluator::new(registry(), &g, &["y"], cfg(8)).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("`d` (s.delay), param `samples`"), "{msg}");
    // A zero block.
    let err = StreamingEvaluator::new(registry(), &comb(2, 0.5), &["y"], cfg(0)).unwrap_err();
    assert!(matches!(err, StreamError::Config(_)), "{err}");
    // A failing control value names its node.
    let mut g = Graph::new();
    g.add_node("bad", "boom").unwrap();
    g.add_node("osc", "s.sine").unwrap();
    g.wire("bad", "osc.freq");
    g.add_node("one", "num").unwrap();
    g.wire("one", "bad.x");
    let err = StreamingEvaluator::new(registry(), &g, &["osc"], cfg(8)).unwrap_err();
    assert!(matches!(err, StreamError::Control(_)), "{err}");
    assert!(err.to_string().contains("`bad`"), "{err}");
}

#[test]
fn a_panic_becomes_the_nodes_error_and_stops_the_stream_until_reset() {
    let mut g = Graph::new();
    g.add_node("x", "s.ramp").unwrap();
    g.add_node("b", "s.boom").unwrap();
    g.set_param("b", "at", 100i64).unwrap();
    g.wire("x", "b.in");
    let mut s = StreamingEvaluator::new(registry(), &g, &["b"], cfg(64)).unwrap();
    s.process_block().unwrap();
    let err = s.process_block().unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("`b` (s.boom)") && msg.contains("panicked"),
        "{msg}"
    );
    assert!(matches!(
        s.process_block(),
        Err(StreamError::Stopped { .. })
    ));
    s.reset();
    s.process_block().unwrap();
    assert_eq!(s.output(0)[10], 10.0);
}

#[test]
fn cancellation_stops_between_blocks() {
    let g = comb(3, 0.5);
    let mut s = StreamingEvaluator::new(registry(), &g, &["y"], cfg(10)).unwrap();
    let cancel = CancelToken::new();
    let c2 = cancel.clone();
    let mut seen = vec![];
    let err = s
        .render_with(100, Some(&cancel), &mut |done, total| {
            seen.push((done, total));
            if done == 30 {
                c2.cancel();
            }
        })
        .unwrap_err();
    assert!(
        matches!(err, StreamError::Cancelled { position: 30 }),
        "{err}"
    );
    assert_eq!(seen, vec![(10, 100), (20, 100), (30, 100)]);
    // The stream continues where it stopped.
    let rest = s.render(70).unwrap();
    assert_eq!(bits(&rest[0]), bits(&comb_reference(3, 0.5, 100)[30..]));
    // No outputs is a configuration error, not a panic.
    let err = StreamingEvaluator::new(registry(), &g, &[], cfg(10)).unwrap_err();
    assert!(matches!(err, StreamError::Config(_)), "{err}");
}

/// A 1 kHz sine made at 44.1 kHz and resampled into the 48 kHz graph.
fn resampled(method: &str) -> Graph {
    let mut g = Graph::new();
    g.add_node("src", "s.sine").unwrap();
    g.set_const("src", "freq", 1_000.0).unwrap();
    g.add_node("rs", "resample").unwrap();
    g.set_param("rs", "from", 44_100i64).unwrap();
    g.set_param("rs", "method", Value::str(method)).unwrap();
    g.wire("src", "rs.in");
    g.add_node("out", "s.add").unwrap();
    g.wire("rs", "out.a");
    g
}

#[test]
fn resample_joins_a_44k1_domain_into_a_48k_graph() {
    for (method, tol) in [("linear", 4e-3), ("sinc", 1e-4)] {
        let g = resampled(method);
        let mut s = StreamingEvaluator::new(registry(), &g, &["out"], cfg(64)).unwrap();
        assert_eq!(s.domain_count(), 2);
        let got = s.render(4_800).unwrap();
        // After the interpolator's warm-up, it is the 1 kHz sine at 48 kHz.
        let mut worst = 0.0f64;
        for (n, &y) in got[0].iter().enumerate().skip(64) {
            let want = (std::f64::consts::TAU * 1_000.0 * n as f64 / 48_000.0).sin();
            worst = worst.max((y - want).abs());
        }
        assert!(worst < tol, "{method}: worst error {worst}");
        // Identical for every block size.
        for block in [1, 37, 256] {
            let other = render(&g, &["out"], block, 4_800);
            assert_eq!(bits(&other[0]), bits(&got[0]), "{method}, block {block}");
        }
    }
}

#[test]
fn resample_snapshots_and_domain_conflicts() {
    let g = resampled("sinc");
    let mut s = StreamingEvaluator::new(registry(), &g, &["out"], cfg(64)).unwrap();
    let whole = s.render(2_000).unwrap();
    s.reset();
    s.render(777).unwrap();
    let snap = s.snapshot();
    let mut t = StreamingEvaluator::new(registry(), &g, &["out"], cfg(13)).unwrap();
    t.restore(&snap).unwrap();
    let tail = t.render(2_000 - 777).unwrap();
    assert_eq!(bits(&tail[0]), bits(&whole[0][777..]));

    // The source also read directly at 48 kHz: it would run in two domains.
    let mut g = resampled("linear");
    g.wire("src", "out.b");
    let err = StreamingEvaluator::new(registry(), &g, &["out"], cfg(64)).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("`src`") && msg.contains("two clock domains"),
        "{msg}"
    );
}

#[test]
fn a_control_node_reading_a_signal_is_refused() {
    let mut g = Graph::new();
    g.add_node("x", "s.ramp").unwrap();
    g.add_node("f", "add").unwrap();
    g.wire("x", "f.a");
    g.add_node("osc", "s.sine").unwrap();
    g.wire("f", "osc.freq");
    // Validation already refuses the signal at a float port.
    let err = StreamingEvaluator::new(registry(), &g, &["osc"], cfg(64)).unwrap_err();
    assert!(err.to_string().contains("`f`"), "{err}");
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// A generated signal graph: `delays` delay nodes (1 to 40 samples) whose inputs are wired
    /// to later nodes, so loops of every length close through them, and `adds` nodes each
    /// reading two earlier nodes or delays with a gain below one.
    #[derive(Clone, Debug)]
    struct Spec {
        delays: Vec<i64>,
        adds: Vec<(usize, usize, f64)>,
        delay_from: Vec<usize>,
    }

    fn spec() -> impl Strategy<Value = Spec> {
        (1usize..4, 2usize..12).prop_flat_map(|(nd, na)| {
            (
                proptest::collection::vec(1i64..40, nd),
                proptest::collection::vec((0usize..64, 0usize..64, -0.9f64..0.9), na),
                proptest::collection::vec(0usize..64, nd),
            )
                .prop_map(|(delays, adds, delay_from)| Spec {
                    delays,
                    adds,
                    delay_from,
                })
        })
    }

    fn build(s: &Spec) -> Graph {
        let mut g = Graph::new();
        g.add_node("x", "s.ramp").unwrap();
        g.set_param("x", "step", 0.01).unwrap();
        let mut names: Vec<String> = vec!["x".into()];
        for (i, d) in s.delays.iter().enumerate() {
            let id = format!("d{i}");
            g.add_node(id.as_str(), "s.delay").unwrap();
            g.set_param(&id, "samples", *d).unwrap();
            names.push(id);
        }
        for (i, (a, b, k)) in s.adds.iter().enumerate() {
            let id = format!("a{i}");
            g.add_node(id.as_str(), "s.add").unwrap();
            g.set_param(&id, "k", *k).unwrap();
            g.wire(&names[a % names.len()], &format!("{id}.a"));
            g.wire(&names[b % names.len()], &format!("{id}.b"));
            names.push(id);
        }
        let adds_start = 1 + s.delays.len();
        for (i, f) in s.delay_from.iter().enumerate() {
            // Any node but the delay itself; a loop closes when the source reads the delay.
            let src = adds_start + f % s.adds.len();
            g.wire(&names[src], &format!("d{i}.in"));
        }
        g
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn output_is_the_same_for_every_block_size(s in spec(), b1 in 2usize..80, b2 in 80usize..300) {
            let g = build(&s);
            let last = format!("a{}", s.adds.len() - 1);
            let outs = [last.as_str(), "d0"];
            let want = render(&g, &outs, 1, 700);
            for block in [b1, b2, 64] {
                let got = render(&g, &outs, block, 700);
                for (w, o) in want.iter().zip(&got) {
                    prop_assert_eq!(bits(w), bits(o), "block {}", block);
                }
            }
            // A snapshot in the middle, restored at another block size, continues the same.
            let mut a = StreamingEvaluator::new(registry(), &g, &outs, cfg(b1)).unwrap();
            a.render(333).unwrap();
            let snap = a.snapshot();
            let mut b = StreamingEvaluator::new(registry(), &g, &outs, cfg(b2)).unwrap();
            b.restore(&snap).unwrap();
            let tail = b.render(367).unwrap();
            prop_assert_eq!(bits(&tail[0]), bits(&want[0][333..]));
        }
    }
}

mod generated_domains {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// A ramp through a comb in a source domain at any rate, resampled (linear or sinc)
        /// into the outer domain: the same bits for every block size and across snapshots.
        #[test]
        fn resampled_domains_are_block_size_invariant(
            from in 4_000i64..200_000,
            sinc in any::<bool>(),
            half in 1i64..24,
            d in 1i64..40,
            b1 in 1usize..50,
            b2 in 50usize..300,
        ) {
            let mut g = comb(d, 0.5);
            g.add_node("rs", "resample").unwrap();
            g.set_param("rs", "from", from).unwrap();
            g.set_param("rs", "method", Value::str(if sinc { "sinc" } else { "linear" })).unwrap();
            g.set_param("rs", "half_width", half).unwrap();
            g.wire("y", "rs.in");
            let want = render(&g, &["rs"], 1, 600);
            for block in [b1, b2] {
                let got = render(&g, &["rs"], block, 600);
                prop_assert_eq!(bits(&got[0]), bits(&want[0]), "block {}", block);
            }
            let mut a = StreamingEvaluator::new(registry(), &g, &["rs"], cfg(b1)).unwrap();
            a.render(277).unwrap();
            let snap = a.snapshot();
            let mut b = StreamingEvaluator::new(registry(), &g, &["rs"], cfg(b2)).unwrap();
            b.restore(&snap).unwrap();
            let tail = b.render(323).unwrap();
            prop_assert_eq!(bits(&tail[0]), bits(&want[0][277..]));
        }
    }
}
