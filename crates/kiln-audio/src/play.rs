//! Audio buffers into streams: the graph input `input.audio` (an [`AudioBuffer`] supplied
//! from outside, such as a WAV file given to `kiln render --set voice=@take.wav`) and the
//! signal op `audio.play`, which plays one channel of a buffer, sample by sample.

use crate::{AUDIO_TYPE, AudioBuffer, sample_rate};
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::signal::{SignalCall, SignalProc, Words};
use kiln_core::value::{Heavy, Value};

/// The op id of audio graph inputs.
pub const INPUT_AUDIO_OP: &str = InputAudioOp::ID;

/// The `audio.play` processor: sample `n` of the stream is frame `n` of one channel of the
/// buffer; after the last frame, silence, or frame `n mod frames` when looping.
#[derive(Clone, Debug)]
pub struct Play {
    buffer: Heavy,
    channel: usize,
    looping: bool,
    /// Samples output so far.
    pos: u64,
}

impl Play {
    /// Play `channel` of `buffer` (a heavy value holding an [`AudioBuffer`]); `looping`:
    /// start over after the last frame.
    pub fn new(buffer: Heavy, channel: usize, looping: bool) -> Self {
        Play {
            buffer,
            channel,
            looping,
            pos: 0,
        }
    }
}

impl SignalProc for Play {
    fn process(&mut self, _inputs: &[&[f64]], out: &mut [f64]) {
        let Some(buf) = self.buffer.downcast::<AudioBuffer>() else {
            out.fill(0.0);
            return;
        };
        let stride = usize::from(buf.channels.max(1));
        let frames = buf.frames() as u64;
        let mut done = 0;
        while done < out.len() {
            let rest = &mut out[done..];
            let frame = if self.looping && frames > 0 {
                self.pos % frames
            } else {
                self.pos
            };
            if frame < frames {
                let start = frame as usize;
                let n = rest.len().min((frames - frame) as usize);
                let samples = buf.samples[start * stride..].iter().skip(self.channel);
                for (o, &s) in rest[..n].iter_mut().zip(samples.step_by(stride)) {
                    *o = f64::from(s);
                }
                done += n;
                self.pos = self.pos.saturating_add(n as u64);
            } else {
                rest.fill(0.0);
                self.pos = self.pos.saturating_add(rest.len() as u64);
                done = out.len();
            }
        }
    }
    fn reset(&mut self) {
        self.pos = 0;
    }
    fn save(&self, words: &mut Vec<u64>) {
        words.push(self.pos);
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        // The position counts stream samples, so it fits any buffer (a new one given between
        // blocks goes on at the same sample).
        self.pos = Words::exact(words, 1)?.u64();
        Ok(())
    }
}

/// Plays one channel of an audio buffer: sample n is frame n of the buffer, then silence (or
/// the buffer again, when `loop` is set). The buffer's rate must be the node's.
#[kiln_core::op("audio.play", signal, out = "the channel's samples")]
fn play(
    #[input("the buffer to play (a control value)", ty = AUDIO_TYPE)] buffer: &Value,
    #[param("the channel to play, from 0", default = 0, rule = Rule::at_least(0))] channel: i64,
    #[param(
        "start over after the last frame instead of falling silent",
        default = false
    )]
    r#loop: bool,
    call: &SignalCall<'_>,
) -> Result<Play, OpError> {
    let rate = sample_rate(call)?;
    let heavy = match buffer {
        Value::Heavy(h) if h.downcast::<AudioBuffer>().is_some() => h.clone(),
        other => {
            return Err(OpError::input(
                0,
                format!(
                    "`buffer` must be an audio buffer, found {}",
                    other.type_name()
                ),
            ));
        }
    };
    let Some(buf) = heavy.downcast::<AudioBuffer>() else {
        return Err(OpError::input(0, "`buffer` must be an audio buffer"));
    };
    if f64::from(buf.sample_rate) != rate {
        return Err(OpError::input(
            0,
            format!(
                "the buffer is at {} Hz but this node runs at {rate} Hz; play it into a \
                 `resample` node with `from` = {} (or render at --rate {})",
                buf.sample_rate, buf.sample_rate, buf.sample_rate
            ),
        ));
    }
    let channels = buf.channels;
    if channel < 0 || channel >= i64::from(channels) {
        return Err(OpError::param(
            0,
            format!(
                "`channel` {channel} is not a channel of the buffer, which has {channels} \
                 (0 to {})",
                i64::from(channels) - 1
            ),
        ));
    }
    Ok(Play::new(heavy, channel as usize, r#loop))
}

/// A named graph input holding an audio buffer (a WAV file given with `--set
/// NAME=@file.wav`); it has no default.
#[kiln_core::op(
    "input.audio",
    purity = "user-input",
    role = kiln_core::op::Role::GraphInput,
    hash_context = hash_audio_input,
    out_type = AUDIO_TYPE,
    out = "the input's value"
)]
fn input_audio(
    #[param("the input's name")] name: &str,
    ctx: &kiln_core::context::EvalContext,
) -> Result<Value, OpError> {
    kiln_std::graph_io::input_value(AUDIO_TYPE, name, None, ctx)
}

fn hash_audio_input(
    params: &[Value],
    ctx: &kiln_core::context::EvalContext,
    h: &mut kiln_core::key::KeyHasher,
) {
    kiln_std::graph_io::hash_input(AUDIO_TYPE, false, params, ctx, h)
}

/// Register `input.audio` and `audio.play`.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(InputAudioOp::new())?;
    reg.register_signal(PlayOp::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{SR, Setup, bits, check_contract, run};
    use kiln_core::op::PortIndex;

    /// A stereo buffer at the tests' rate: left frame k is k/64, right is -k/128 (exact in
    /// f32 and f64).
    fn stereo(frames: usize) -> Value {
        let mut samples = Vec::with_capacity(frames * 2);
        for k in 0..frames {
            samples.push(k as f32 / 64.0);
            samples.push(-(k as f32) / 128.0);
        }
        AudioBuffer {
            sample_rate: SR as u32,
            channels: 2,
            samples,
        }
        .into_value()
    }

    fn play(buffer: Value) -> Setup<'static> {
        Setup::new("audio.play").control("buffer", buffer)
    }

    #[test]
    fn plays_a_channel_then_falls_silent_for_every_block_size() {
        let n = 300;
        for (channel, scale) in [(0, 1.0 / 64.0), (1, -1.0 / 128.0)] {
            let s = play(stereo(200)).param("channel", Value::Int(channel));
            let want: Vec<f64> = (0..n)
                .map(|k| if k < 200 { k as f64 * scale } else { 0.0 })
                .collect();
            // The contract checks chunks of 1, 7 and 64, reset and save/load.
            assert_eq!(bits(&check_contract(&s, n)), bits(&want));
            for block in [1, 16, 64] {
                assert_eq!(bits(&run(&s, n, block)), bits(&want), "block {block}");
            }
        }
    }

    #[test]
    fn loops_from_the_first_frame() {
        let s = play(stereo(5)).param("loop", true);
        let want: Vec<f64> = (0..203).map(|k| (k % 5) as f64 / 64.0).collect();
        assert_eq!(bits(&check_contract(&s, 203)), bits(&want));
        for block in [1, 16, 64] {
            assert_eq!(bits(&run(&s, 203, block)), bits(&want), "block {block}");
        }
        // An empty buffer, looping or not, is silence.
        let s = play(stereo(0)).param("loop", true);
        assert_eq!(run(&s, 9, 4), vec![0.0; 9]);
    }

    #[test]
    fn a_buffer_at_another_rate_is_refused_naming_both_rates() {
        let s = play(stereo(10)).sr(44_100.0);
        let e = s.refused_at(PortIndex::Input(0));
        assert!(
            e.message.contains("48000 Hz")
                && e.message.contains("44100 Hz")
                && e.message.contains("resample"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_missing_channel_or_a_non_buffer_is_refused() {
        let e = play(stereo(10))
            .param("channel", Value::Int(2))
            .refused_at(PortIndex::Param(0));
        assert!(e.message.contains("has 2"), "{}", e.message);
        play(stereo(10))
            .param("channel", Value::Int(-1))
            .refused_at(PortIndex::Param(0));
        play(Value::Float(1.0)).refused_at(PortIndex::Input(0));
    }
}
