//! Graph inputs that change while a stream runs (`StreamingEvaluator::set_input`): same bits
//! for every block size given the same change positions, the same samples as a stream built
//! with the new value for a stateless chain, only dependent control values re-evaluated, and
//! errors that name the input and leave the stream as it was.

use kiln_core::context::EvalContext;
use kiln_core::eval::{StreamConfig, StreamError, StreamingEvaluator};
use kiln_core::graph::Graph;
use kiln_core::value::Value;

/// A sine at `2 · freq` Hz (`freq` a graph input), scaled by graph input `level`, through a
/// lowpass: stateful (phase, filter memory).
fn tone() -> Graph {
    let mut g = Graph::new();
    g.add_node("freq", "input.float").unwrap();
    g.set_param("freq", "name", "freq").unwrap();
    g.set_param("freq", "default", 220.0).unwrap();
    g.add_node("twice", "math.mul").unwrap();
    g.set_const("twice", "b", 2.0).unwrap();
    g.wire("freq", "twice.a");
    g.add_node("level", "input.float").unwrap();
    g.set_param("level", "name", "level").unwrap();
    g.set_param("level", "default", 0.5).unwrap();
    g.add_node("osc", "osc.sine").unwrap();
    g.wire("twice", "osc.freq");
    g.wire("level", "osc.amp");
    g.add_node("lp", "filter.onepole").unwrap();
    g.set_param("lp", "cutoff", 2000.0).unwrap();
    g.wire("osc", "lp.in");
    g
}

/// `in · gain` with both read from graph inputs: stateless.
fn scaled_constant() -> Graph {
    let mut g = Graph::new();
    for (id, default) in [("x", 0.25), ("k", 3.0)] {
        g.add_node(id, "input.float").unwrap();
        g.set_param(id, "name", id).unwrap();
        g.set_param(id, "default", default).unwrap();
    }
    g.add_node("out", "gain").unwrap();
    g.wire("x", "out.in");
    g.wire("k", "out.gain");
    g
}

fn stream(g: &Graph, out: &str, block: usize, ctx: &EvalContext) -> StreamingEvaluator {
    let cfg = StreamConfig {
        block,
        ..StreamConfig::default()
    };
    StreamingEvaluator::with_context(kiln_audio::registry(), g, &[out], cfg, ctx)
        .unwrap_or_else(|e| panic!("building: {e}"))
}

/// Render `n` samples, applying each `(position, input, value)` change when the stream
/// reaches its position (positions are multiples of the block size).
fn render_with_changes(
    g: &Graph,
    out: &str,
    block: usize,
    n: u64,
    changes: &[(u64, &str, f64)],
) -> Vec<u64> {
    let mut s = stream(g, out, block, &EvalContext::new());
    let mut samples = vec![];
    let mut next = 0;
    while s.position() < n {
        while next < changes.len() && changes[next].0 == s.position() {
            let (_, name, v) = changes[next];
            s.set_input(name, v)
                .unwrap_or_else(|e| panic!("set_input: {e}"));
            next += 1;
        }
        s.process_block().unwrap();
        samples.extend(s.output(0).iter().map(|x| x.to_bits()));
    }
    assert_eq!(next, changes.len(), "every change was applied");
    samples
}

#[test]
fn changes_at_the_same_positions_give_the_same_bits_for_every_block_size() {
    let g = tone();
    let changes = [
        (64, "freq", 330.0),
        (128, "level", 0.25),
        (128, "freq", 110.0),
    ];
    let reference = render_with_changes(&g, "lp", 1, 256, &changes);
    for block in [16, 64] {
        assert_eq!(
            render_with_changes(&g, "lp", block, 256, &changes),
            reference,
            "block {block}"
        );
    }
    // The changes took effect at their positions: before 64 the stream matches an unchanged
    // one, after it it does not.
    let unchanged = render_with_changes(&g, "lp", 64, 256, &[]);
    assert_eq!(reference[..64], unchanged[..64]);
    assert_ne!(reference[64..128], unchanged[64..128]);
}

#[test]
fn a_stateless_chain_matches_a_stream_built_with_the_new_value() {
    let g = scaled_constant();
    let mut live = stream(&g, "out", 16, &EvalContext::new());
    let before = live.render(32).unwrap().remove(0);
    // 0.25 · 3 = 0.75, exactly.
    assert!(before.iter().all(|&x| x == 0.75));
    live.set_input("k", 5.0).unwrap();
    live.set_input("x", 0.5).unwrap();
    let after = live.render(32).unwrap().remove(0);
    let fresh_ctx = EvalContext::new().with_input("k", 5.0).with_input("x", 0.5);
    let fresh = stream(&g, "out", 16, &fresh_ctx)
        .render(32)
        .unwrap()
        .remove(0);
    assert_eq!(after, fresh);
    assert!(after.iter().all(|&x| x == 2.5));
}

#[test]
fn only_the_control_values_depending_on_the_input_run_again() {
    let g = tone();
    let mut s = stream(&g, "lp", 64, &EvalContext::new());
    let built = s.control_stats();
    // freq, twice and level ran once each.
    assert_eq!(built.executed, 3);
    s.set_input("freq", 440.0).unwrap();
    let after = s.control_stats();
    // freq and twice ran again; level came from the memo.
    assert_eq!(after.executed - built.executed, 2);
    assert!(after.cache_hits > built.cache_hits);
}

#[test]
fn a_refused_value_names_the_input_and_changes_nothing() {
    let g = tone();
    let unchanged = render_with_changes(&g, "lp", 64, 128, &[]);
    let mut s = stream(&g, "lp", 64, &EvalContext::new());
    s.process_block().unwrap();
    // A string where a float is expected: the graph input node fails.
    let e = s.set_input("freq", Value::str("loud")).unwrap_err();
    assert!(
        matches!(&e, StreamError::Input { input, .. } if input == "freq"),
        "{e}"
    );
    // A non-finite frequency: the oscillator refuses it, and the error names the node too.
    let e = s.set_input("freq", f64::INFINITY).unwrap_err();
    assert!(
        matches!(&e, StreamError::Input { input, .. } if input == "freq"),
        "{e}"
    );
    assert!(e.to_string().contains("osc"), "{e}");
    s.process_block().unwrap();
    let second: Vec<u64> = s.output(0).iter().map(|x| x.to_bits()).collect();
    assert_eq!(second, unchanged[64..]);
}
