//! Audio graphs with loops against reference outputs computed independently, by direct
//! recurrences in Python (`tests/fixtures/audio/make_reference.py`): a feedback comb filter
//! and a Karplus–Strong string, built from Kiln nodes (`signal.sequence`, `mix`, `delay`,
//! `gain`) and run by the streaming evaluator at several block sizes.

use kiln_core::eval::{StreamConfig, StreamingEvaluator};
use kiln_core::graph::Graph;
use kiln_core::value::Value;
use std::path::PathBuf;

/// Block sizes every system runs at: per-sample loops (block longer than the loop's delay)
/// and block-wise loops, with a size that divides nothing.
const BLOCKS: [usize; 4] = [1, 64, 256, 37];

/// Tolerance against the reference (the graph's additions may round differently).
const TOLERANCE: f64 = 1e-6;

/// A fixture file, parsed just enough: numbers and arrays of numbers by key.
struct Fixture {
    text: String,
}

impl Fixture {
    fn load(name: &str) -> Fixture {
        let path: PathBuf = [
            env!("CARGO_MANIFEST_DIR"),
            "tests",
            "fixtures",
            "audio",
            name,
        ]
        .iter()
        .collect();
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        Fixture { text }
    }

    /// The text after `"key":`.
    fn after(&self, key: &str) -> &str {
        let pat = format!("\"{key}\":");
        let at = self
            .text
            .find(&pat)
            .unwrap_or_else(|| panic!("fixture has no `{key}`"));
        self.text[at + pat.len()..].trim_start()
    }

    fn number(&self, key: &str) -> f64 {
        let rest = self.after(key);
        let end = rest
            .find(|c: char| c == ',' || c == '}' || c.is_whitespace())
            .unwrap_or(rest.len());
        rest[..end]
            .parse()
            .unwrap_or_else(|e| panic!("`{key}`: {e}"))
    }

    fn array(&self, key: &str) -> Vec<f64> {
        let rest = self.after(key);
        let body = rest
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .map(|(b, _)| b)
            .unwrap_or_else(|| panic!("`{key}` is not an array"));
        body.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap_or_else(|e| panic!("`{key}`: {s}: {e}")))
            .collect()
    }
}

fn list(v: &[f64]) -> Value {
    Value::List(
        v.iter()
            .map(|&x| Value::Float(x))
            .collect::<Vec<_>>()
            .into(),
    )
}

/// Run `out` of `g` for `n` samples at `block`.
fn render(g: &Graph, out: &str, n: usize, block: usize) -> Vec<f64> {
    let cfg = StreamConfig {
        block,
        ..StreamConfig::default()
    };
    let mut s = StreamingEvaluator::new(kiln_audio::registry(), g, &[out], cfg)
        .unwrap_or_else(|e| panic!("building the stream: {e}"));
    let mut r = s
        .render(n as u64)
        .unwrap_or_else(|e| panic!("rendering: {e}"));
    assert_eq!(r.len(), 1);
    let y = r.remove(0);
    assert_eq!(y.len(), n);
    y
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Render at every block size; check every size gives the same bits and every sample is
/// within [`TOLERANCE`] of `expected`.
fn check_all_blocks(what: &str, g: &Graph, out: &str, expected: &[f64]) {
    let first = render(g, out, expected.len(), BLOCKS[0]);
    for (n, (y, e)) in first.iter().zip(expected).enumerate() {
        assert!(
            (y - e).abs() <= TOLERANCE,
            "{what}: sample {n} is {y}, reference {e}"
        );
    }
    for &block in &BLOCKS[1..] {
        let y = render(g, out, expected.len(), block);
        assert_eq!(
            bits(&y),
            bits(&first),
            "{what}: block {block} differs from block {}",
            BLOCKS[0]
        );
    }
}

fn excitation(g: &mut Graph, x: &[f64]) {
    g.add_node("x", "signal.sequence").unwrap();
    g.set_param("x", "values", list(x)).unwrap();
}

/// The comb as a graph loop: mix = x + gain(g) · delay_D(mix).
fn comb_loop(x: &[f64], gain: f64, d: i64) -> Graph {
    let mut g = Graph::new();
    excitation(&mut g, x);
    g.add_node("mix", "mix").unwrap();
    g.add_node("delay", "delay").unwrap();
    g.set_param("delay", "samples", d).unwrap();
    g.add_node("gain", "gain").unwrap();
    g.set_const("gain", "gain", gain).unwrap();
    g.wire("x", "mix.a");
    g.wire("mix", "delay.in");
    g.wire("delay", "gain.in");
    g.wire("gain", "mix.b");
    g
}

#[test]
fn feedback_comb_loop_matches_reference() {
    let f = Fixture::load("comb.json");
    let (gain, d) = (f.number("g"), f.number("D") as i64);
    let expected = f.array("expected");
    assert_eq!(expected.len(), f.number("length") as usize);
    check_all_blocks(
        "comb loop",
        &comb_loop(&f.array("excitation"), gain, d),
        "mix",
        &expected,
    );
}

#[test]
fn feedback_comb_from_the_delay_feedback_param_matches_reference() {
    // delay(feedback = g) holds w[n] = x[n] + g · w[n - D] and outputs w[n - D]; so
    // x + g · delay(x) is w itself: the comb, without a graph loop.
    let f = Fixture::load("comb.json");
    let (gain, d) = (f.number("g"), f.number("D") as i64);
    let expected = f.array("expected");
    let mut g = Graph::new();
    excitation(&mut g, &f.array("excitation"));
    g.add_node("delay", "delay").unwrap();
    g.set_param("delay", "samples", d).unwrap();
    g.set_param("delay", "feedback", gain).unwrap();
    g.add_node("gain", "gain").unwrap();
    g.set_const("gain", "gain", gain).unwrap();
    g.add_node("mix", "mix").unwrap();
    g.wire("x", "delay.in");
    g.wire("delay", "gain.in");
    g.wire("x", "mix.a");
    g.wire("gain", "mix.b");
    check_all_blocks("comb via feedback param", &g, "mix", &expected);
    // The delay's own output is the reference, D samples late.
    let late: Vec<f64> = (0..expected.len())
        .map(|n| {
            if n >= d as usize {
                expected[n - d as usize]
            } else {
                0.0
            }
        })
        .collect();
    check_all_blocks("delay output", &g, "delay", &late);
}

#[test]
fn karplus_strong_loop_matches_reference() {
    let f = Fixture::load("karplus_strong.json");
    let rho = f.number("rho");
    let n = f.number("N") as i64;
    let expected = f.array("expected");
    assert_eq!(expected.len(), f.number("length") as usize);
    // y = mix(x, gain(delay_N(y), rho/2), gain(delay_{N+1}(y), rho/2)).
    let mut g = Graph::new();
    excitation(&mut g, &f.array("excitation"));
    g.add_node("y", "mix").unwrap();
    for (name, d) in [("d1", n), ("d2", n + 1)] {
        g.add_node(name, "delay").unwrap();
        g.set_param(name, "samples", d).unwrap();
        let gname = format!("g_{name}");
        g.add_node(gname.as_str(), "gain").unwrap();
        g.set_const(&gname, "gain", rho / 2.0).unwrap();
        g.wire("y", &format!("{name}.in"));
        g.wire(name, &format!("{gname}.in"));
    }
    g.wire("x", "y.a");
    g.wire("g_d1", "y.b");
    g.wire("g_d2", "y.c");
    check_all_blocks("Karplus-Strong", &g, "y", &expected);
    // The string rings: energy late in the run, decaying.
    let late: f64 = expected[500..].iter().map(|v| v * v).sum();
    let early: f64 = expected[20..120].iter().map(|v| v * v).sum();
    assert!(late > 0.0 && late < early);
}

#[test]
fn fixtures_are_small_and_consistent() {
    let mut total = 0;
    for name in ["comb.json", "karplus_strong.json"] {
        let f = Fixture::load(name);
        total += f.text.len();
        let x = f.array("excitation");
        let y = f.array("expected");
        assert!(!x.is_empty() && y.len() > x.len());
        // Before the first echo the output is the excitation.
        assert_eq!(y[0], x[0]);
    }
    assert!(total < 40_000, "fixtures take {total} bytes");
}
