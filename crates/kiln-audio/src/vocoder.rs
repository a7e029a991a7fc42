//! `vocoder`: a channel vocoder. The `modulator` (a voice) and the `carrier` (a rich tone)
//! each pass through a bank of `bands` band-pass biquads (RBJ, unit gain at the centre, quality
//! `q`), their centres spaced evenly in pitch from `low` to `high` Hz. An envelope follower
//! tracks each modulator band (`env += c · (|x| − env)`, `c = 1 − exp(−1 / (t · rate))` with
//! `t` = `attack` while the level rises, `release` while it falls), and the output is the sum
//! over bands of the carrier band times its envelope, times `gain`.
//!
//! Each band runs over the whole block before the next, and the output sums the bands in
//! order sample by sample, so a block gives the same bits as its samples one at a time.

use crate::filters::{Biquad, BiquadMode};
use crate::{input, sample_rate};
use kiln_core::op::port::SignalIn;
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::signal::{SignalCall, SignalProc, Words};
use kiln_core::value::Value;

/// The most bands a vocoder has.
pub const MAX_BANDS: usize = 64;

/// One band: the modulator's and the carrier's filters, and the envelope.
#[derive(Clone, Debug)]
struct Band {
    modulator: Biquad,
    carrier: Biquad,
    env: f64,
}

/// The settings of a vocoder (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VocoderSettings {
    /// Number of bands.
    pub bands: usize,
    /// Centre of the lowest band, Hz.
    pub low: f64,
    /// Centre of the highest band, Hz.
    pub high: f64,
    /// Quality of each band-pass filter.
    pub q: f64,
    /// Envelope rise time, seconds.
    pub attack: f64,
    /// Envelope fall time, seconds.
    pub release: f64,
    /// Output gain.
    pub gain: f64,
}

/// The `vocoder` processor (see the module docs).
#[derive(Clone, Debug)]
pub struct Vocoder {
    bands: Vec<Band>,
    attack: f64,
    release: f64,
    gain: f64,
    scratch_m: Vec<f64>,
    scratch_c: Vec<f64>,
}

impl Vocoder {
    /// The centre frequencies of `n` bands from `low` to `high` Hz, evenly spaced in pitch.
    pub fn centres(n: usize, low: f64, high: f64) -> Vec<f64> {
        (0..n)
            .map(|k| {
                let t = if n > 1 {
                    k as f64 / (n - 1) as f64
                } else {
                    0.0
                };
                low * (high / low).powf(t)
            })
            .collect()
    }

    /// A vocoder by `s` at `rate` Hz (callers check 0 < low < high < rate / 2, q > 0).
    pub fn new(s: &VocoderSettings, rate: f64) -> Self {
        let VocoderSettings {
            bands,
            low,
            high,
            q,
            attack,
            release,
            gain,
        } = *s;
        let coef = |t: f64| {
            if t > 0.0 {
                1.0 - (-1.0 / (t * rate)).exp()
            } else {
                1.0
            }
        };
        Vocoder {
            bands: Self::centres(bands, low, high)
                .into_iter()
                .map(|f| Band {
                    modulator: Biquad::new(BiquadMode::Bandpass, f, q, rate),
                    carrier: Biquad::new(BiquadMode::Bandpass, f, q, rate),
                    env: 0.0,
                })
                .collect(),
            attack: coef(attack),
            release: coef(release),
            gain,
            scratch_m: vec![],
            scratch_c: vec![],
        }
    }
}

impl SignalProc for Vocoder {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        let n = out.len();
        let (carrier, modulator) = (input(inputs, 0), input(inputs, 1));
        if carrier.len() < n || modulator.len() < n {
            return;
        }
        self.scratch_m.resize(n, 0.0);
        self.scratch_c.resize(n, 0.0);
        out.fill(0.0);
        let (attack, release, gain) = (self.attack, self.release, self.gain);
        for b in &mut self.bands {
            b.modulator.process(&[modulator], &mut self.scratch_m);
            b.carrier.process(&[carrier], &mut self.scratch_c);
            let mut env = b.env;
            for ((o, &m), &c) in out.iter_mut().zip(&self.scratch_m).zip(&self.scratch_c) {
                let level = m.abs();
                let k = if level > env { attack } else { release };
                env = crate::flush_subnormal(env + k * (level - env));
                *o += c * env * gain;
            }
            b.env = env;
        }
    }
    fn reset(&mut self) {
        for b in &mut self.bands {
            b.modulator.reset();
            b.carrier.reset();
            b.env = 0.0;
        }
    }
    fn save(&self, words: &mut Vec<u64>) {
        for b in &self.bands {
            b.modulator.save(words);
            b.carrier.save(words);
            words.push(b.env.to_bits());
        }
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        let mut w = Words::exact(words, self.bands.len() * 5)?;
        for b in &mut self.bands {
            let m = [w.u64(), w.u64()];
            let c = [w.u64(), w.u64()];
            b.modulator.load(&m)?;
            b.carrier.load(&c)?;
            b.env = w.f64();
        }
        Ok(())
    }
}

/// The rule of `high`: a finite frequency above 0, below the Nyquist frequency of the node's
/// rate when it is known.
fn high_rule(v: &Value, env: &RuleEnv) -> Result<(), Violation> {
    let expected = "a finite frequency above 0 Hz";
    match v.as_f64() {
        Some(f) if f.is_finite() && f > 0.0 => {}
        Some(f) => return Err(Violation::new(expected, f.to_string())),
        None => return Err(Violation::new(expected, v.type_name())),
    }
    match (env.sample_rate, v.as_f64()) {
        (Some(sr), Some(f)) if f >= sr / 2.0 => Err(Violation::new(
            format!(
                "a highest band below the Nyquist frequency ({} Hz at {sr} Hz)",
                sr / 2.0
            ),
            f.to_string(),
        )),
        _ => Ok(()),
    }
}

/// The rule over the params: the lowest band below the highest.
fn bands_rule(params: &[Value], _env: &RuleEnv) -> Result<(), (usize, Violation)> {
    match (
        params.get(1).and_then(Value::as_f64),
        params.get(2).and_then(Value::as_f64),
    ) {
        (Some(low), Some(high)) if low >= high => Err((
            1,
            Violation::new(
                format!("a lowest band below the highest ({high} Hz)"),
                low.to_string(),
            ),
        )),
        _ => Ok(()),
    }
}

/// A channel vocoder: the carrier through a band-pass filter bank, each band scaled by the
/// envelope of the same band of the modulator, summed.
#[kiln_core::op(
    "vocoder",
    signal,
    out = "the vocoded signal",
    params_rule = bands_rule
)]
#[allow(clippy::too_many_arguments)] // one per port
fn vocoder(
    #[input("the sound that is shaped (a rich tone)")] carrier: SignalIn,
    #[input("the sound whose spectrum shapes it (a voice)")] modulator: SignalIn,
    #[param(
        "number of bands",
        default = 16,
        rule = Rule::Ints {
            min: 1,
            max: MAX_BANDS as i64,
        }
    )]
    bands: i64,
    #[param(
        "centre of the lowest band in Hz",
        default = 100.0,
        rule = Rule::POSITIVE
    )]
    low: f64,
    #[param(
        "centre of the highest band in Hz (below Nyquist)",
        default = 3500.0,
        rule = Rule::Check(high_rule)
    )]
    high: f64,
    #[param(
        "quality of each band-pass filter",
        default = 6.0,
        rule = Rule::POSITIVE
    )]
    q: f64,
    #[param(
        "envelope rise time in seconds",
        default = 0.005,
        rule = Rule::NON_NEGATIVE
    )]
    attack: f64,
    #[param(
        "envelope fall time in seconds",
        default = 0.05,
        rule = Rule::NON_NEGATIVE
    )]
    release: f64,
    #[param("output gain", default = 4.0, rule = Rule::Finite)] gain: f64,
    call: &SignalCall<'_>,
) -> Result<Vocoder, OpError> {
    let sr = sample_rate(call)?;
    let settings = VocoderSettings {
        bands: bands.clamp(1, MAX_BANDS as i64) as usize,
        low,
        high,
        q,
        attack,
        release,
        gain,
    };
    Ok(Vocoder::new(&settings, sr))
}

/// Register `vocoder`.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register_signal(VocoderOp::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{SR, Setup, check_contract, run};

    fn sine(f: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| (std::f64::consts::TAU * f * i as f64 / SR).sin())
            .collect()
    }

    /// The magnitude of frequency `f` in `x` (Goertzel).
    fn level(x: &[f64], f: f64) -> f64 {
        let w = std::f64::consts::TAU * f / SR;
        let (mut s1, mut s2) = (0.0, 0.0);
        for &v in x {
            let s = v + 2.0 * w.cos() * s1 - s2;
            s2 = s1;
            s1 = s;
        }
        (s1 * s1 + s2 * s2 - 2.0 * w.cos() * s1 * s2).sqrt() / x.len() as f64
    }

    #[test]
    fn each_band_passes_the_carrier_where_the_modulator_has_energy() {
        let n = 9600;
        let centres = Vocoder::centres(16, 100.0, 3500.0);
        // A carrier with a partial at every band's centre.
        let carrier: Vec<f64> = (0..n)
            .map(|i| {
                centres
                    .iter()
                    .map(|&f| (std::f64::consts::TAU * f * i as f64 / SR).sin())
                    .sum::<f64>()
                    / 16.0
            })
            .collect();
        for band in [3usize, 11] {
            let setup = Setup::new("vocoder")
                .live("carrier", carrier.clone())
                .live("modulator", sine(centres[band], n));
            let out = run(&setup, n, 64);
            let tail = &out[n / 2..];
            let here = level(tail, centres[band]);
            let other = level(tail, centres[(band + 8) % 16]);
            assert!(here > 10.0 * other, "band {band}: {here} vs {other}");
        }
        // Silence in the modulator: silence out.
        let quiet = Setup::new("vocoder")
            .live("carrier", carrier)
            .constant("modulator", 0.0);
        assert!(run(&quiet, 2000, 64).iter().all(|&v| v == 0.0));
    }

    #[test]
    fn the_vocoder_keeps_the_block_contract_and_refuses_bands_past_nyquist() {
        let setup = Setup::new("vocoder")
            .live("carrier", sine(220.0, 500))
            .live("modulator", sine(330.0, 700))
            .param("bands", Value::Int(5));
        check_contract(&setup, 1500);
        let bad = Setup::new("vocoder")
            .param("high", Value::Float(30_000.0))
            .constant("carrier", 0.0)
            .constant("modulator", 0.0);
        assert!(bad.refused().message.contains("Nyquist"));
    }
}
