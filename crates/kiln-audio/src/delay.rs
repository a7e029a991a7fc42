//! `delay`: a delay line of a whole number of samples, with optional feedback, through which a
//! graph loop may close.

use crate::{input, sample_rate};
use kiln_core::memory::MemoryError;
use kiln_core::op::port::SignalIn;
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::signal::{SignalCall, SignalProc, Words};
use kiln_core::value::Value;

/// The longest delay a `delay` node accepts, in seconds (of the node's sample rate).
pub const MAX_DELAY_SECONDS: f64 = 600.0;

/// The `delay` processor: a ring buffer of `D` samples of
/// `w[n] = in[n] + feedback · w[n - D]`, outputting `w[n - D]` (zeros before the start).
///
/// With feedback 0 the line is a pure delay: `w[n] = in[n]` (no `+ 0 · w[n - D]`, which
/// would only differ for a non-finite `w`). `w` is stored with subnormals and -0.0 flushed
/// to +0.0, so a decaying loop ends in exact silence at full speed.
///
/// Its output depends on `in` only `D` samples later, so [`latency`](SignalProc::latency) is
/// `D` and [`emit`](SignalProc::emit) / [`absorb`](SignalProc::absorb) split
/// [`process`](SignalProc::process) in two.
#[derive(Clone, Debug)]
pub struct DelayLine {
    buf: Vec<f64>,
    pos: usize,
    feedback: f64,
}

impl DelayLine {
    /// A line of `samples` samples (at least 1) with `feedback`.
    pub fn new(samples: usize, feedback: f64) -> Self {
        DelayLine {
            buf: vec![0.0; samples.max(1)],
            pos: 0,
            feedback,
        }
    }

    /// [`DelayLine::new`], with the line reserved through [`kiln_core::memory`]: a line over
    /// the memory budget, or one the allocator cannot give, is an error.
    pub fn try_new(samples: usize, feedback: f64) -> Result<Self, MemoryError> {
        let n = samples.max(1);
        Ok(DelayLine {
            buf: kiln_core::memory::try_filled(n, 0.0, || format!("a delay line of {n} samples"))?,
            pos: 0,
            feedback,
        })
    }

    /// The delay in samples.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Always false: a line holds at least one sample.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Write `x` into the line, one segment up to the ring's end at a time; `out`, when
    /// given, receives the samples `x` replaces (`w[n - D]`).
    #[inline]
    fn run(&mut self, x: &[f64], mut out: Option<&mut [f64]>) {
        let d = self.buf.len();
        let fb = self.feedback;
        let mut done = 0;
        while done < x.len() {
            let len = (x.len() - done).min(d - self.pos);
            let seg = &mut self.buf[self.pos..self.pos + len];
            let xs = &x[done..done + len];
            if let Some(o) = out.as_deref_mut() {
                o[done..done + len].copy_from_slice(seg);
            }
            // Values below the normal range are stored as zero (see `flush_subnormal`).
            if fb == 0.0 {
                for (s, &v) in seg.iter_mut().zip(xs) {
                    *s = crate::flush_subnormal(v);
                }
            } else {
                for (s, &v) in seg.iter_mut().zip(xs) {
                    *s = crate::flush_subnormal(v + fb * *s);
                }
            }
            self.pos += len;
            if self.pos == d {
                self.pos = 0;
            }
            done += len;
        }
    }
}

impl SignalProc for DelayLine {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        let x = input(inputs, 0);
        let n = x.len().min(out.len());
        self.run(&x[..n], Some(&mut out[..n]));
    }
    fn latency(&self) -> usize {
        self.buf.len()
    }
    fn emit(&mut self, out: &mut [f64]) {
        let d = self.buf.len();
        let k = out.len().min(d);
        let first = k.min(d - self.pos);
        out[..first].copy_from_slice(&self.buf[self.pos..self.pos + first]);
        out[first..k].copy_from_slice(&self.buf[..k - first]);
        // More than the latency breaks the contract; give zeros rather than panic.
        out[k..].fill(0.0);
    }
    fn absorb(&mut self, inputs: &[&[f64]]) {
        let x = input(inputs, 0);
        let k = x.len().min(self.buf.len());
        self.run(&x[..k], None);
    }
    fn reset(&mut self) {
        self.buf.fill(0.0);
        self.pos = 0;
    }
    fn save(&self, words: &mut Vec<u64>) {
        words.reserve(self.buf.len() + 1);
        words.push(self.pos as u64);
        words.extend(self.buf.iter().map(|x| x.to_bits()));
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        let d = self.buf.len();
        let mut w = Words::exact(words, d + 1)?;
        let pos = w.u64();
        if pos >= d as u64 {
            return Err(format!("delay position {pos} is outside the line of {d}"));
        }
        self.pos = pos as usize;
        for (b, &v) in self.buf.iter_mut().zip(w.rest()) {
            *b = f64::from_bits(v);
        }
        Ok(())
    }
}

/// The rule of the `samples` param: at least 0, and at the node's rate (when known) at most
/// [`MAX_DELAY_SECONDS`] of samples.
fn samples_rule(v: &Value, env: &RuleEnv) -> Result<(), Violation> {
    Rule::at_least(0).check(v, env)?;
    let samples = v.as_i64().unwrap_or(0);
    match env.sample_rate {
        Some(sr) if samples as f64 > (MAX_DELAY_SECONDS * sr).floor() => Err(Violation::new(
            format!(
                "at most {} samples ({MAX_DELAY_SECONDS} s at {sr} Hz)",
                (MAX_DELAY_SECONDS * sr).floor()
            ),
            samples.to_string(),
        )),
        _ => Ok(()),
    }
}

/// Delays a signal by D samples (`samples`, or `time` rounded to samples; at least 1), with
/// optional feedback: w[n] = in[n] + feedback · w[n - D], out[n] = w[n - D]. A graph loop
/// may close through its input.
#[kiln_core::op("delay", signal, out = "the delayed signal")]
fn delay(
    #[input("the signal to delay (may close a loop)", feedback)] r#in: SignalIn,
    #[param(
        "delay in seconds (rounded to whole samples; up to 600 s)",
        default = 0.1,
        rule = Rule::between(0.0, MAX_DELAY_SECONDS)
    )]
    time: f64,
    #[param(
        "delay in samples; when above 0 it overrides `time`",
        default = 0,
        rule = Rule::Check(samples_rule),
        plan_time
    )]
    samples: i64,
    #[param(
        "gain of the line's output fed back into it (|feedback| < 1 decays)",
        default = 0.0,
        rule = Rule::Finite
    )]
    feedback: f64,
    call: &SignalCall<'_>,
) -> Result<DelayLine, OpError> {
    let sr = sample_rate(call)?;
    // The rules hold: 0 <= time <= MAX_DELAY_SECONDS, 0 <= samples <= that many samples.
    let d = if samples > 0 {
        samples as usize
    } else {
        ((time * sr).round() as usize).max(1)
    };
    DelayLine::try_new(d, feedback).map_err(|e| OpError::new(e.to_string()))
}

/// Register `delay`.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register_signal(DelayOp::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{SR, Setup, bits, check_contract, run};
    use kiln_core::op::PortIndex;

    fn signal(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| ((i * 7919) % 1000) as f64 / 500.0 - 1.0)
            .collect()
    }

    #[test]
    fn delay_keeps_the_contract() {
        for (d, fb) in [
            (1i64, 0.0),
            (7, 0.0),
            (7, 0.6),
            (64, -0.5),
            (100, 0.9),
            (1000, 0.3),
        ] {
            check_contract(
                &Setup::new("delay")
                    .live("in", signal(3000))
                    .param("samples", d)
                    .param("feedback", fb),
                3000,
            );
        }
    }

    #[test]
    fn delay_shifts_and_feeds_back() {
        let x = signal(500);
        let out = run(
            &Setup::new("delay")
                .live("in", x.clone())
                .param("samples", 7i64),
            500,
            64,
        );
        for n in 0..500 {
            let want = if n >= 7 { x[n - 7] } else { 0.0 };
            assert_eq!(out[n].to_bits(), want.to_bits(), "sample {n}");
        }
        let out = run(
            &Setup::new("delay")
                .live("in", x.clone())
                .param("samples", 5i64)
                .param("feedback", 0.5),
            500,
            3,
        );
        let mut w = vec![0.0; 500];
        for n in 0..500 {
            let past = if n >= 5 { w[n - 5] } else { 0.0 };
            w[n] = x[n] + 0.5 * past;
            assert_eq!(out[n].to_bits(), past.to_bits(), "sample {n}");
        }
        // `time` rounds to samples: 1 ms at 48 kHz is 48 samples.
        let out = run(
            &Setup::new("delay")
                .live("in", x.clone())
                .param("time", 0.001),
            500,
            64,
        );
        assert_eq!(out[48], x[0]);
        assert_eq!(out[47], 0.0);
        // time 0 still delays by one sample.
        let out = run(
            &Setup::new("delay").live("in", x.clone()).param("time", 0.0),
            10,
            4,
        );
        assert_eq!(out[1], x[0]);
    }

    #[test]
    fn emit_absorb_equals_process() {
        for (d, fb) in [(1usize, 0.0), (5, 0.7), (64, 0.0), (64, -0.3), (37, 0.2)] {
            let s = Setup::new("delay")
                .live("in", signal(2000))
                .param("samples", d as i64)
                .param("feedback", fb);
            let want = run(&s, 2000, 64);
            let x = s.buffers(0, 2000).remove(0);
            let mut p = s.build();
            assert_eq!(p.latency(), d);
            let mut got = vec![f64::NAN; 2000];
            let mut at = 0;
            let mut k = 1;
            while at < 2000 {
                // Steps of varying size up to the latency.
                let len = (k % d + 1).min(2000 - at);
                p.emit(&mut got[at..at + len]);
                p.absorb(&[&x[at..at + len]]);
                at += len;
                k += 3;
            }
            assert_eq!(bits(&got), bits(&want), "D = {d}, feedback {fb}");
        }
    }

    #[test]
    fn bad_params_are_named() {
        let delay = || Setup::new("delay").live("in", vec![0.0]);
        delay()
            .param("samples", -3i64)
            .refused_at(PortIndex::Param(1));
        let e = delay()
            .param("samples", (MAX_DELAY_SECONDS * SR) as i64 + 1)
            .refused_at(PortIndex::Param(1));
        assert!(e.message.contains("samples"));
        delay().param("time", 601.0).refused_at(PortIndex::Param(0));
        delay().param("time", -0.5).refused_at(PortIndex::Param(0));
        let e = delay()
            .param("feedback", f64::INFINITY)
            .refused_at(PortIndex::Param(2));
        assert!(e.message.contains("finite"), "{}", e.message);
    }
}

#[cfg(test)]
mod flush_tests {
    use super::*;

    #[test]
    fn a_decaying_loop_reaches_exact_zero_not_subnormals() {
        // A one-sample line feeding back at 0.5 halves each sample: without flushing it
        // would spend about 50 samples in the subnormal range before reaching zero.
        let mut d = DelayLine::new(1, 0.5);
        let mut out = vec![0.0; 1200];
        let mut x = vec![0.0; 1200];
        x[0] = 1.0;
        d.process(&[&x], &mut out);
        assert!(out.iter().all(|v| *v == 0.0 || v.is_normal()));
        assert_eq!(out[1199], 0.0);
        assert!(out[1] == 1.0 && out[1000] > 0.0 && out[1030] == 0.0);
    }
}
