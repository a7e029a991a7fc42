//! # kiln-audio
//!
//! Kiln's audio domain: the audio-rate signal nodes run by the streaming evaluator
//! (oscillators, noise, gain and mixing, filters, a delay line, an envelope and a sample
//! sequence, playing an audio buffer) and the audio buffer heavy type ([`AudioBuffer`]).
//!
//! Every node here but `input.audio` is a *signal op* (see [`kiln_core::signal`]): its output `out` has type
//! [`ValueType::Signal`](kiln_core::value::ValueType::Signal), it runs only in the streaming
//! evaluator (a tick evaluator gets
//! [`streaming_only`](kiln_core::signal::streaming_only)), and
//! [`SignalOp::build`](kiln_core::signal::SignalOp::build) makes the per-sample processor
//! that evaluator owns. Frequencies are in Hz, times in seconds.
//!
//! | op | inputs | params |
//! |----|--------|--------|
//! | `osc.sine`, `osc.saw` | `freq` (440), `amp` (1) | `phase` (0) |
//! | `osc.square` | `freq` (440), `amp` (1) | `phase` (0), `duty` (0.5) |
//! | `osc.noise` | `amp` (1) | |
//! | `gain` | `in`, `gain` (1) | |
//! | `mix` | `a` .. `h` (0) | |
//! | `filter.onepole` | `in` | `cutoff` (1000), `mode` (`lowpass`) |
//! | `filter.biquad` | `in` | `mode` (`lowpass`), `cutoff` (1000), `q` (0.7071) |
//! | `delay` | `in` (feedback) | `time` (0.1), `samples` (0), `feedback` (0) |
//! | `env.adsr` | `gate` (1) | `attack` (0.01), `decay` (0.1), `sustain` (0.7), `release` (0.2) |
//! | `signal.sequence` | | `values` (`[]`), `loop` (false) |
//! | `resample` | `in` (signal at another rate) | (see [`ResampleOp`]) |
//! | `vocoder` | `carrier`, `modulator` | `bands` (16), `low` (100), `high` (3500), `q` (6), `attack` (0.005), `release` (0.05), `gain` (4) |
//! | `audio.play` | `buffer` (an [`AudioBuffer`], a control value) | `channel` (0), `loop` (false) |
//!
//! One op here is not a signal op: `input.audio`, a named graph input holding an
//! [`AudioBuffer`] (no default; `kiln render --set NAME=@file.wav` gives it a WAV file), which
//! `audio.play` reads. A buffer whose rate is not its node's is refused (play it into a
//! `resample` node).
//!
//! Every processor honours the block-size contract of
//! [`SignalProc`](kiln_core::signal::SignalProc): processing `n` samples in one call gives the
//! same bits as `n` calls of one sample each. A constant arriving at a signal input is read
//! once per block (its slice holds that constant throughout).
//!
//! [`register`] adds this crate's ops to a registry; [`registry`] is the standard library of
//! `kiln-std` with them.
//!
//! ```
//! use kiln_core::eval::{StreamConfig, StreamingEvaluator};
//! use kiln_core::graph::Graph;
//!
//! let mut g = Graph::new();
//! g.add_node("tone", "osc.sine").unwrap();
//! let mut s = StreamingEvaluator::new(kiln_audio::registry(), &g, &["tone"], StreamConfig::default()).unwrap();
//! let samples = s.render(4).unwrap();
//! assert_eq!(samples[0].len(), 4);
//! assert_eq!(samples[0][0], 0.0); // a sine starts at phase 0
//! ```
#![deny(missing_docs)]

// The buffer, and what signal ops share.
pub mod buffer;
mod ports;
#[cfg(test)]
mod testkit;

// Signal ops: oscillators, filters, delay, envelope, mixing, sequencing, playback.
mod delay;
mod env;
mod filters;
mod mix;
mod osc;
mod play;
mod sequence;
mod vocoder;

// Clock domains.
mod resample;

pub use buffer::{AUDIO, AUDIO_TYPE, AudioBuffer, AudioCodec};
pub use delay::{DelayLine, MAX_DELAY_SECONDS};
pub use env::{Adsr, AdsrParams};
pub use filters::{Biquad, BiquadMode, OnePole, OnePoleMode};
pub use mix::{Gain, MIX_INPUTS, Mix};
pub use osc::{
    Noise, PhaseOsc, PolyBlepSaw, PolyBlepSquare, SawWave, SineOsc, SineWave, SquareWave,
    phase_increment, phase_start, sine,
};
pub use play::{INPUT_AUDIO_OP, Play};
pub use resample::{Interpolation, ResampleOp, Resampler};
pub use sequence::Sequence;
pub use vocoder::{MAX_BANDS, Vocoder, VocoderSettings};

pub(crate) use ports::{apply_amp, constant, input, sample_rate};

use kiln_core::registry::{Registry, RegistryError};

/// A value below the normal range of `f64` (a subnormal, or a zero of either sign) as `+0.0`,
/// anything else unchanged. Filters and delay lines store their state through it, so a
/// decaying loop or filter tail reaches exact zero instead of crawling through subnormal
/// numbers, which are many times slower to compute with on common CPUs. Applied per sample,
/// it keeps the block-size contract.
#[inline(always)]
pub(crate) fn flush_subnormal(x: f64) -> f64 {
    if x.abs() < f64::MIN_POSITIVE { 0.0 } else { x }
}

/// Register every audio op into `reg`, with the core's `resample` op (the clock-domain
/// boundary of signal graphs) and the codec of audio buffers ([`AudioCodec`]).
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    osc::register(reg)?;
    mix::register(reg)?;
    filters::register(reg)?;
    delay::register(reg)?;
    env::register(reg)?;
    sequence::register(reg)?;
    play::register(reg)?;
    vocoder::register(reg)?;
    reg.register_signal(ResampleOp::new())?;
    reg.register_codec(AudioCodec)?;
    Ok(())
}

/// The standard library ([`kiln_std::registry`]) with every audio op and codec.
pub fn registry() -> Registry {
    let mut reg = kiln_std::registry();
    // The audio ids are distinct from the standard ones by construction (a unit test checks
    // it).
    if let Err(e) = register(&mut reg) {
        unreachable!("audio ops collide with the standard library: {e}");
    }
    reg
}

#[cfg(test)]
mod tests {
    #[test]
    fn audio_ids_are_distinct_documented_and_signal_ops() {
        let mut reg = kiln_std::registry();
        let before = reg.len();
        super::register(&mut reg).expect("no id taken twice");
        let ids = [
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
            "resample",
            "audio.play",
            "vocoder",
            super::INPUT_AUDIO_OP,
        ];
        assert_eq!(reg.len(), before + ids.len());
        for id in ids {
            assert!(reg.get(id).is_some(), "{id} is not registered");
        }
        for op in reg.iter() {
            let s = op.spec();
            assert!(!s.doc.is_empty(), "{} has no doc", s.id);
            for p in &s.inputs {
                assert!(!p.doc.is_empty(), "{}.{} has no doc", s.id, p.name);
            }
        }
        let std_ids: Vec<String> = kiln_std::registry()
            .iter()
            .map(|op| op.spec().id.to_string())
            .collect();
        for op in reg
            .iter()
            .filter(|op| !std_ids.contains(&op.spec().id.to_string()))
            .filter(|op| op.spec().id != super::INPUT_AUDIO_OP)
        {
            let signal = kiln_core::value::ValueType::Signal;
            assert!(
                op.spec().outputs.iter().any(|o| o.ty == signal),
                "{} is in kiln-audio but has no signal output",
                op.spec().id
            );
        }
        // Registering twice is an error.
        assert!(super::register(&mut reg).is_err());
    }
}
