//! The audio nodes through the streaming evaluator: every node in a small graph gives the
//! same bits at every block size (and after reset, and from a snapshot), a 440 Hz sine
//! crosses zero where it should, a lowpass takes energy out of noise, parameter errors name
//! the node and param, and the tick evaluators refuse signal ops with a message naming the
//! node.

use kiln_core::eval::{StreamConfig, StreamError, StreamingEvaluator};
use kiln_core::prelude::*;

const BLOCKS: [usize; 4] = [1, 64, 256, 37];
const SR: f64 = 48_000.0;

fn list(v: &[f64]) -> Value {
    Value::List(
        v.iter()
            .map(|&x| Value::Float(x))
            .collect::<Vec<_>>()
            .into(),
    )
}

fn stream(g: &Graph, outs: &[&str], block: usize) -> Result<StreamingEvaluator, StreamError> {
    let cfg = StreamConfig {
        block,
        seed: 11,
        ..StreamConfig::default()
    };
    StreamingEvaluator::new(kiln_audio::registry(), g, outs, cfg)
}

fn render(g: &Graph, out: &str, n: usize, block: usize) -> Vec<f64> {
    let mut s = stream(g, &[out], block).unwrap_or_else(|e| panic!("building: {e}"));
    s.render(n as u64)
        .unwrap_or_else(|e| panic!("rendering: {e}"))
        .remove(0)
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn rms(x: &[f64]) -> f64 {
    (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt()
}

/// A graph with node `id` of op `op`, with params and constant inputs.
fn node(g: &mut Graph, id: &str, op: &str, params: &[(&str, Value)], consts: &[(&str, f64)]) {
    g.add_node(id, op).unwrap();
    for (k, v) in params {
        g.set_param(id, k, v.clone()).unwrap();
    }
    for (k, v) in consts {
        g.set_const(id, k, *v).unwrap();
    }
}

/// One small graph per audio op, its output node named `out`.
fn graphs() -> Vec<(&'static str, Graph)> {
    let mut all = vec![];
    let mut add = |name: &'static str, build: &dyn Fn(&mut Graph)| {
        let mut g = Graph::new();
        build(&mut g);
        all.push((name, g));
    };
    for op in ["osc.sine", "osc.saw", "osc.square"] {
        add(op, &|g| {
            // Frequency modulated by another oscillator, amplitude by an envelope.
            node(g, "lfo", "osc.sine", &[], &[("freq", 3.0), ("amp", 200.0)]);
            node(g, "f", "mix", &[], &[("b", 440.0)]);
            g.wire("lfo", "f.a");
            node(g, "env", "env.adsr", &[("attack", 0.005.into())], &[]);
            node(g, "out", op, &[("phase", 0.1.into())], &[]);
            g.wire("f", "out.freq");
            g.wire("env", "out.amp");
        });
        add(op, &|g| node(g, "out", op, &[], &[("freq", 1000.0)]));
    }
    add("osc.square duty", &|g| {
        node(
            g,
            "out",
            "osc.square",
            &[("duty", 0.2.into())],
            &[("freq", 330.0)],
        )
    });
    add("osc.noise", &|g| {
        node(g, "out", "osc.noise", &[], &[("amp", 0.5)])
    });
    add("gain", &|g| {
        node(g, "saw", "osc.saw", &[], &[("freq", 220.0)]);
        node(g, "lfo", "osc.sine", &[], &[("freq", 2.0)]);
        node(g, "out", "gain", &[], &[]);
        g.wire("saw", "out.in");
        g.wire("lfo", "out.gain");
    });
    add("gain const", &|g| {
        node(g, "saw", "osc.saw", &[], &[("freq", 220.0)]);
        node(g, "out", "gain", &[], &[("gain", 0.3)]);
        g.wire("saw", "out.in");
    });
    add("mix", &|g| {
        node(g, "out", "mix", &[], &[("b", 0.25), ("h", -0.5)]);
        for (i, port) in ["a", "c", "d", "g"].iter().enumerate() {
            let id = format!("s{i}");
            node(g, &id, "osc.sine", &[], &[("freq", 100.0 * (i + 1) as f64)]);
            g.wire(&id, &format!("out.{port}"));
        }
    });
    for mode in ["lowpass", "highpass"] {
        add("filter.onepole", &move |g| {
            node(g, "n", "osc.noise", &[], &[]);
            node(
                g,
                "out",
                "filter.onepole",
                &[("mode", mode.into()), ("cutoff", 800.0.into())],
                &[],
            );
            g.wire("n", "out.in");
        });
    }
    for mode in ["lowpass", "highpass", "bandpass", "notch"] {
        add("filter.biquad", &move |g| {
            node(g, "saw", "osc.saw", &[], &[("freq", 110.0)]);
            node(
                g,
                "out",
                "filter.biquad",
                &[
                    ("mode", mode.into()),
                    ("cutoff", 1500.0.into()),
                    ("q", 3.0.into()),
                ],
                &[],
            );
            g.wire("saw", "out.in");
        });
    }
    add("delay", &|g| {
        node(g, "n", "osc.noise", &[], &[]);
        node(
            g,
            "out",
            "delay",
            &[("time", 0.001.into()), ("feedback", 0.7.into())],
            &[],
        );
        g.wire("n", "out.in");
    });
    add("delay loop", &|g| {
        // An echo loop through a delay shorter than most blocks: y = x + 0.5 · delay_10(y).
        node(g, "x", "osc.saw", &[], &[("freq", 300.0)]);
        node(g, "out", "mix", &[], &[]);
        node(g, "d", "delay", &[("samples", 10i64.into())], &[]);
        node(g, "fb", "gain", &[], &[("gain", 0.5)]);
        g.wire("x", "out.a");
        g.wire("out", "d.in");
        g.wire("d", "fb.in");
        g.wire("fb", "out.b");
    });
    add("env.adsr", &|g| {
        node(g, "gate", "osc.square", &[], &[("freq", 20.0)]);
        node(
            g,
            "out",
            "env.adsr",
            &[
                ("attack", 0.002.into()),
                ("decay", 0.005.into()),
                ("release", 0.004.into()),
            ],
            &[],
        );
        g.wire("gate", "out.gate");
    });
    add("signal.sequence", &|g| {
        node(
            g,
            "out",
            "signal.sequence",
            &[
                ("values", list(&[0.5, -1.0, 0.25, 0.0, 2.0])),
                ("loop", true.into()),
            ],
            &[],
        )
    });
    all
}

#[test]
fn every_audio_node_gives_the_same_bits_at_every_block_size() {
    let n = 3_000;
    let mut ops_seen = std::collections::BTreeSet::new();
    for (name, g) in graphs() {
        if let Some(out) = g.node("out") {
            ops_seen.insert(out.op.clone());
        }
        let first = render(&g, "out", n, BLOCKS[0]);
        assert!(
            first.iter().all(|x| x.is_finite()),
            "{name}: non-finite sample"
        );
        assert!(first.iter().any(|&x| x != 0.0), "{name}: silent");
        for &block in &BLOCKS[1..] {
            let y = render(&g, "out", n, block);
            assert_eq!(
                bits(&y),
                bits(&first),
                "{name}: block {block} differs from block 1"
            );
        }
    }
    // Every audio op is covered.
    for op in [
        "osc.sine",
        "osc.saw",
        "osc.square",
        "osc.noise",
        "gain",
        "mix",
        "filter.onepole",
        "filter.biquad",
        "delay",
        "env.adsr",
        "signal.sequence",
    ] {
        assert!(ops_seen.contains(op), "{op} not covered");
    }
}

#[test]
fn reset_and_snapshot_reproduce_the_stream() {
    for (name, g) in graphs() {
        let mut s = stream(&g, &["out"], 64).unwrap();
        let first = s.render(1000).unwrap().remove(0);
        s.reset();
        let again = s.render(1000).unwrap().remove(0);
        assert_eq!(bits(&first), bits(&again), "{name}: reset");
        // Snapshot at 500 in one stream, restore into a fresh one, continue.
        let mut a = stream(&g, &["out"], 37).unwrap();
        a.render(500).unwrap();
        let snap = a.snapshot();
        let mut b = stream(&g, &["out"], 64).unwrap();
        b.render(123).unwrap();
        b.restore(&snap).unwrap();
        let tail = b.render(500).unwrap().remove(0);
        assert_eq!(bits(&tail), bits(&first[500..]), "{name}: snapshot");
    }
}

#[test]
fn sine_440_crosses_zero_where_expected() {
    let mut g = Graph::new();
    node(&mut g, "out", "osc.sine", &[], &[("freq", 440.0)]);
    let y = render(&g, "out", 48_000, 64);
    // sin(2π · 440 · n / 48000) changes sign at n = k · 48000 / 880 = k · 54.5454...
    let mut crossings = vec![];
    for n in 1..y.len() {
        if (y[n - 1] < 0.0) != (y[n] < 0.0) {
            crossings.push(n);
        }
    }
    assert_eq!(crossings.len(), 879, "one second of 440 Hz");
    for (k, &n) in crossings.iter().enumerate() {
        let t = (k + 1) as f64 * SR / 880.0;
        // The sign flips at the first sample at or after the crossing.
        assert!(
            (n as f64 - t) >= -1e-6 && (n as f64 - t) < 1.0 + 1e-6,
            "crossing {k} at sample {n}, expected after {t}"
        );
    }
    // Peaks: amplitude 1.
    let peak = y.iter().cloned().fold(0.0, f64::max);
    assert!((peak - 1.0).abs() < 1e-3, "{peak}");
}

#[test]
fn biquad_lowpass_reduces_the_energy_of_noise() {
    let mut g = Graph::new();
    node(&mut g, "n", "osc.noise", &[], &[]);
    node(
        &mut g,
        "lp",
        "filter.biquad",
        &[("cutoff", 1000.0.into())],
        &[],
    );
    g.wire("n", "lp.in");
    let mut s = stream(&g, &["n", "lp"], 256).unwrap();
    let r = s.render(48_000).unwrap();
    let (raw, low) = (rms(&r[0]), rms(&r[1]));
    assert!(
        (raw - (1.0f64 / 3.0).sqrt()).abs() < 0.01,
        "noise rms {raw}"
    );
    // About sqrt(1.11 · 1000 / 24000) of the rms survives.
    assert!(low < 0.4 * raw && low > 0.1 * raw, "{low} of {raw}");
}

#[test]
fn noise_nodes_differ_and_follow_the_seed() {
    let mut g = Graph::new();
    node(&mut g, "n1", "osc.noise", &[], &[]);
    node(&mut g, "n2", "osc.noise", &[], &[]);
    let mut s = stream(&g, &["n1", "n2"], 64).unwrap();
    let r = s.render(100).unwrap();
    assert_ne!(bits(&r[0]), bits(&r[1]));
    let cfg = StreamConfig {
        seed: 12,
        ..StreamConfig::default()
    };
    let mut other = StreamingEvaluator::new(kiln_audio::registry(), &g, &["n1"], cfg).unwrap();
    assert_ne!(bits(&other.render(100).unwrap()[0]), bits(&r[0]));
}

#[test]
fn bad_params_name_the_node_and_param() {
    let cases: [(&str, &str, Value, &str); 5] = [
        ("filter.biquad", "cutoff", Value::Float(30_000.0), "cutoff"),
        ("filter.biquad", "q", Value::Float(-1.0), "q"),
        ("filter.onepole", "mode", Value::str("bandpass"), "mode"),
        ("delay", "time", Value::Float(1e6), "time"),
        ("env.adsr", "sustain", Value::Float(2.0), "sustain"),
    ];
    for (op, param, value, named) in cases {
        let mut g = Graph::new();
        node(&mut g, "src", "osc.noise", &[], &[]);
        node(&mut g, "bad_node", op, &[(param, value)], &[]);
        if op != "env.adsr" {
            g.wire("src", "bad_node.in");
        }
        let err = stream(&g, &["bad_node"], 64).expect_err("refused");
        let msg = err.to_string();
        assert!(msg.contains("bad_node"), "{op}: {msg}");
        assert!(msg.contains(&format!("param `{named}`")), "{op}: {msg}");
    }
}

#[test]
fn the_lazy_evaluator_refuses_signal_ops_naming_the_node() {
    let mut g = Graph::new();
    node(&mut g, "tone", "osc.sine", &[], &[("freq", 440.0)]);
    node(&mut g, "quiet", "gain", &[], &[("gain", 0.5)]);
    g.wire("tone", "quiet.in");
    let mut lazy = LazyEvaluator::new(kiln_audio::registry());
    let err = lazy
        .evaluate(&g, &Request::new(["quiet"]), &EvalContext::new())
        .expect_err("signal ops do not run in the lazy evaluator");
    let msg = err.to_string();
    assert!(msg.contains("tone") || msg.contains("quiet"), "{msg}");
    assert!(msg.contains("streaming evaluator"), "{msg}");
}

#[test]
fn resample_is_registered() {
    let reg = kiln_audio::registry();
    assert!(reg.get("resample").is_some());
    // A 440 Hz sine made at 44.1 kHz, brought to 48 kHz.
    let mut g = Graph::new();
    node(&mut g, "tone", "osc.sine", &[], &[("freq", 440.0)]);
    node(
        &mut g,
        "out",
        "resample",
        &[("from", 44_100i64.into())],
        &[],
    );
    g.wire("tone", "out.in");
    let y = render(&g, "out", 4_800, 64);
    let peak = y[1000..].iter().cloned().fold(0.0, f64::max);
    assert!((peak - 1.0).abs() < 0.01, "{peak}");
}
