//! A buffer given as a graph input (`input.audio`) played by `audio.play` in a stream: the
//! buffer's samples for every block size, a new buffer between blocks taking effect at the
//! same sample position, and the errors of a missing buffer or a buffer at another rate.

use kiln_audio::AudioBuffer;
use kiln_core::context::EvalContext;
use kiln_core::eval::{StreamConfig, StreamingEvaluator};
use kiln_core::graph::Graph;
use kiln_core::value::Value;

/// `input.audio` (named `voice`) → `audio.play` → `gain` 0.5.
fn player() -> Graph {
    let mut g = Graph::new();
    g.add_node("voice", "input.audio").unwrap();
    g.set_param("voice", "name", "voice").unwrap();
    g.add_node("play", "audio.play").unwrap();
    g.wire("voice", "play.buffer");
    g.add_node("half", "gain").unwrap();
    g.set_const("half", "gain", 0.5).unwrap();
    g.wire("play", "half.in");
    g
}

/// A mono buffer at `rate` whose frame k is `scale · k`.
fn ramp(frames: usize, scale: f32, rate: u32) -> Value {
    AudioBuffer {
        sample_rate: rate,
        channels: 1,
        samples: (0..frames).map(|k| k as f32 * scale).collect(),
    }
    .into_value()
}

fn build(ctx: &EvalContext, block: usize) -> Result<StreamingEvaluator, String> {
    let cfg = StreamConfig {
        block,
        ..StreamConfig::default()
    };
    StreamingEvaluator::with_context(kiln_audio::registry(), &player(), &["half"], cfg, ctx)
        .map_err(|e| e.to_string())
}

fn with_voice(v: Value) -> EvalContext {
    let mut ctx = EvalContext::new();
    ctx.inputs.insert("voice".into(), v);
    ctx
}

#[test]
fn a_buffer_input_plays_at_half_gain_for_every_block_size() {
    let rate = StreamConfig::default().sample_rate;
    let ctx = with_voice(ramp(100, 1.0 / 256.0, rate));
    // Frame k is k/256 (exact), halved: k/512; silence after the 100th frame.
    let want: Vec<u64> = (0..150)
        .map(|k| if k < 100 { k as f64 / 512.0 } else { 0.0 })
        .map(f64::to_bits)
        .collect();
    for block in [1, 16, 64] {
        let mut s = build(&ctx, block).unwrap();
        let out = s.render(150).unwrap();
        let got: Vec<u64> = out[0].iter().map(|x| x.to_bits()).collect();
        assert_eq!(got, want, "block {block}");
    }
}

#[test]
fn a_new_buffer_goes_on_at_the_same_sample() {
    let rate = StreamConfig::default().sample_rate;
    let mut s = build(&with_voice(ramp(100, 1.0 / 256.0, rate)), 16).unwrap();
    let head = s.render(32).unwrap();
    assert_eq!(head[0][31], 31.0 / 512.0);
    s.set_input("voice", ramp(100, -1.0 / 128.0, rate)).unwrap();
    let tail = s.render(16).unwrap();
    // Sample 32 of the stream is frame 32 of the new buffer, halved.
    assert_eq!(tail[0][0], -32.0 / 256.0);
}

#[test]
fn a_missing_buffer_or_one_at_another_rate_is_an_error_naming_it() {
    let refused = |ctx: &EvalContext| match build(ctx, 64) {
        Ok(_) => panic!("the stream was built"),
        Err(e) => e,
    };
    let e = refused(&EvalContext::new());
    assert!(e.contains("voice"), "{e}");
    let e = refused(&with_voice(ramp(10, 0.1, 22_050)));
    let rate = StreamConfig::default().sample_rate;
    assert!(
        e.contains("22050 Hz") && e.contains(&format!("{rate} Hz")) && e.contains("resample"),
        "{e}"
    );
}
