//! Clock domains: the [`Resampler`] and the `resample` op ([`ResampleOp`]), which joins a
//! signal from another clock domain. The streaming evaluator (`kiln-core`) knows only the
//! clock-domain rule and the [`RateConverter`] face this DSP offers it.

use kiln_core::op::port::SignalIn;
use kiln_core::op::{Rule, RuleEnv, Violation};
use kiln_core::signal::{MAX_FROM_RATE, RateConverter, SignalCall, SignalProc, Words};
use kiln_core::value::Value;

/// Interpolation used by [`Resampler`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Straight line between the two neighbouring source samples.
    Linear,
    /// Blackman-windowed sinc over `2 · half_width` source samples, low-passed at the lower
    /// of the two Nyquist frequencies and normalised to unit gain at DC.
    Sinc {
        /// Source samples on each side of the output position.
        half_width: usize,
    },
}

/// Converts a signal from a source clock domain (`from` Hz) to the node's domain (`to` Hz).
///
/// Output sample `j` sits at source position `j · from / to`, computed in integers so no
/// error accumulates; samples before the source's start are zero. The streaming evaluator
/// runs the source domain far enough ahead ([`Resampler::need`]) and hands its samples over
/// ([`Resampler::push`]); processing then produces output from what it holds.
#[derive(Clone, Debug)]
pub struct Resampler {
    from: u64,
    to: u64,
    method: Interpolation,
    /// Source samples from index `base` on.
    history: Vec<f64>,
    base: u64,
    /// Source samples received so far.
    received: u64,
    /// Output samples produced so far.
    produced: u64,
    /// Kernel rows by output phase, when the phases are few enough to tabulate.
    table: Vec<f64>,
    phases: u64,
    cutoff: f64,
}

impl Resampler {
    /// A resampler from `from` Hz to `to` Hz.
    pub fn new(from: u64, to: u64, method: Interpolation) -> Resampler {
        let from = from.max(1);
        let to = to.max(1);
        let g = gcd(from, to);
        let phases = to / g;
        let cutoff = (to as f64 / from as f64).min(1.0);
        let mut r = Resampler {
            from,
            to,
            method,
            history: vec![],
            base: 0,
            received: 0,
            produced: 0,
            table: vec![],
            phases,
            cutoff,
        };
        if let Interpolation::Sinc { half_width } = method
            && phases <= 4096
        {
            let w = 2 * half_width;
            let mut table = vec![0.0; phases as usize * w];
            for p in 0..phases {
                let frac = (p * g) as f64 / to as f64;
                r.kernel_row(frac, &mut table[p as usize * w..(p as usize + 1) * w]);
            }
            r.table = table;
        }
        r
    }

    /// The source rate in Hz.
    pub fn source_rate(&self) -> u64 {
        self.from
    }

    /// The output rate in Hz.
    pub fn output_rate(&self) -> u64 {
        self.to
    }

    /// Source samples needed to produce the first `out_end` output samples.
    pub fn need(&self, out_end: u64) -> u64 {
        if out_end == 0 {
            return 0;
        }
        let i = ((out_end - 1) as u128 * self.from as u128 / self.to as u128) as u64;
        match self.method {
            Interpolation::Linear => i + 2,
            Interpolation::Sinc { half_width } => i + half_width as u64 + 1,
        }
    }

    /// Source samples received so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Hand over the next source samples.
    pub fn push(&mut self, samples: &[f64]) {
        self.history.extend_from_slice(samples);
        self.received += samples.len() as u64;
    }

    fn kernel_row(&self, frac: f64, row: &mut [f64]) {
        let Interpolation::Sinc { half_width } = self.method else {
            return;
        };
        let w = half_width as f64;
        let fc = self.cutoff;
        let mut sum = 0.0;
        for (k, slot) in row.iter_mut().enumerate() {
            // Tap k reads source index i + k - half_width + 1, at distance t from the output.
            let t = (k as f64 - w + 1.0) - frac;
            let u = t / w;
            let window = if u.abs() >= 1.0 {
                0.0
            } else {
                0.42 + 0.5 * (std::f64::consts::PI * u).cos()
                    + 0.08 * (2.0 * std::f64::consts::PI * u).cos()
            };
            let x = std::f64::consts::PI * fc * t;
            let sinc = if x == 0.0 { 1.0 } else { x.sin() / x };
            *slot = fc * sinc * window;
            sum += *slot;
        }
        if sum != 0.0 {
            for s in row.iter_mut() {
                *s /= sum;
            }
        }
    }

    #[inline]
    fn sample(&self, idx: i64) -> f64 {
        if idx < self.base as i64 {
            return 0.0;
        }
        self.history
            .get((idx - self.base as i64) as usize)
            .copied()
            .unwrap_or(0.0)
    }

    /// Produce the next `out.len()` output samples from the source samples held.
    pub fn produce(&mut self, out: &mut [f64]) {
        let g = self.to / self.phases;
        let mut row = vec![];
        for o in out.iter_mut() {
            let num = self.produced as u128 * self.from as u128;
            let i = (num / self.to as u128) as i64;
            let rem = (num % self.to as u128) as u64;
            *o = match self.method {
                Interpolation::Linear => {
                    let frac = rem as f64 / self.to as f64;
                    let a = self.sample(i);
                    let b = self.sample(i + 1);
                    a + (b - a) * frac
                }
                Interpolation::Sinc { half_width } => {
                    let w = 2 * half_width;
                    let start = i - half_width as i64 + 1;
                    let taps: &[f64] = if self.table.is_empty() {
                        row.resize(w, 0.0);
                        let frac = rem as f64 / self.to as f64;
                        let mut tmp = std::mem::take(&mut row);
                        self.kernel_row(frac, &mut tmp);
                        row = tmp;
                        &row
                    } else {
                        let p = (rem / g) as usize;
                        &self.table[p * w..(p + 1) * w]
                    };
                    let mut acc = 0.0;
                    for (k, &h) in taps.iter().enumerate() {
                        acc += self.sample(start + k as i64) * h;
                    }
                    acc
                }
            };
            self.produced += 1;
        }
        // Drop source samples no later output can read.
        let next_i = (self.produced as u128 * self.from as u128 / self.to as u128) as u64;
        let keep_from = match self.method {
            Interpolation::Linear => next_i,
            Interpolation::Sinc { half_width } => (next_i + 1).saturating_sub(half_width as u64),
        };
        if keep_from > self.base + 4096 {
            let drop = (keep_from - self.base) as usize;
            let drop = drop.min(self.history.len());
            self.history.drain(..drop);
            self.base += drop as u64;
        }
    }
}

impl SignalProc for Resampler {
    fn process(&mut self, _inputs: &[&[f64]], out: &mut [f64]) {
        self.produce(out);
    }
    fn reset(&mut self) {
        self.history.clear();
        self.base = 0;
        self.received = 0;
        self.produced = 0;
    }
    fn save(&self, words: &mut Vec<u64>) {
        words.push(self.base);
        words.push(self.received);
        words.push(self.produced);
        words.extend(self.history.iter().map(|x| x.to_bits()));
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        let mut w = Words::at_least(words, 3)?;
        let base = w.u64();
        let received = w.u64();
        let produced = w.u64();
        let rest = w.rest();
        if base + rest.len() as u64 != received {
            return Err("resampler state: history does not match the samples received".into());
        }
        self.base = base;
        self.received = received;
        self.produced = produced;
        self.history = rest.iter().map(|&b| f64::from_bits(b)).collect();
        Ok(())
    }
    fn resampler(&mut self) -> Option<&mut dyn RateConverter> {
        Some(self)
    }
}

impl RateConverter for Resampler {
    fn source_rate(&self) -> u64 {
        Resampler::source_rate(self)
    }
    fn need(&self, out_end: u64) -> u64 {
        Resampler::need(self, out_end)
    }
    fn push(&mut self, samples: &[f64]) {
        Resampler::push(self, samples)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// The rule of `half_width`, which counts only for `sinc`: from 1 to 256.
fn half_width_rule(params: &[Value], env: &RuleEnv) -> Result<(), (usize, Violation)> {
    if params.get(1).and_then(Value::as_str) != Some("sinc") {
        return Ok(());
    }
    let hw = params.get(2).cloned().unwrap_or(Value::Empty);
    Rule::Ints { min: 1, max: 256 }
        .check(&hw, env)
        .map_err(|e| (2, e))
}

/// Brings a signal from another clock domain into this one: everything upstream of `in` runs
/// at `from` Hz, and is interpolated (linear or windowed sinc) at this node's rate.
// Its op, `ResampleOp`, is the core's `RESAMPLE_OP`: the streaming evaluator feeds the
// `Resampler` it builds from the source domain.
#[kiln_core::op(
    "resample",
    signal,
    out = "the signal at this domain's rate",
    params_rule = half_width_rule
)]
pub fn resample(
    #[input("the signal, in the `from` clock domain")] r#in: SignalIn,
    #[param(
        "the sample rate (Hz) of the input's clock domain",
        rule = Rule::Ints {
            min: 1,
            max: MAX_FROM_RATE,
        }
    )]
    from: i64,
    #[param(
        "`linear` or `sinc`",
        default = "sinc",
        rule = Rule::OneOf(&["linear", "sinc"])
    )]
    method: &str,
    #[param("for `sinc`: source samples on each side (1 to 256)", default = 16)] half_width: i64,
    call: &SignalCall<'_>,
) -> Resampler {
    // The rules hold: `from` in range, a known method, `half_width` in range for sinc.
    let method = match method {
        "linear" => Interpolation::Linear,
        _ => Interpolation::Sinc {
            half_width: half_width.clamp(1, 256) as usize,
        },
    };
    let to = call.sample_rate.round().max(1.0) as u64;
    Resampler::new(from as u64, to, method)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_op_is_the_cores_resample() {
        assert_eq!(ResampleOp::ID, kiln_core::signal::RESAMPLE_OP);
    }

    #[test]
    fn linear_identity_rate_copies() {
        let mut r = Resampler::new(48_000, 48_000, Interpolation::Linear);
        let src: Vec<f64> = (0..10).map(|i| i as f64).collect();
        r.push(&src);
        let mut out = vec![0.0; 8];
        r.produce(&mut out);
        assert_eq!(out, (0..8).map(|i| i as f64).collect::<Vec<_>>());
    }

    #[test]
    fn need_covers_the_taps() {
        let r = Resampler::new(44_100, 48_000, Interpolation::Sinc { half_width: 8 });
        // Output 47999 sits at source 44099.08...; sinc reads up to index 44099 + 8.
        assert_eq!(r.need(48_000), 44_099 + 9);
        assert_eq!(r.need(0), 0);
    }

    #[test]
    fn sinc_keeps_dc() {
        let mut r = Resampler::new(44_100, 48_000, Interpolation::Sinc { half_width: 16 });
        r.push(&vec![1.0; 2000]);
        let mut out = vec![0.0; 1000];
        r.produce(&mut out);
        for &x in &out[40..] {
            assert!((x - 1.0).abs() < 1e-12, "{x}");
        }
    }
}
