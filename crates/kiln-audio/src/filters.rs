//! Filters: `filter.onepole` (a one-pole low/high-pass) and `filter.biquad` (the RBJ cookbook
//! biquads in transposed direct form II).

use crate::{input, sample_rate};
use kiln_core::op::port::SignalIn;
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::signal::{SignalCall, SignalProc, Words};
use kiln_core::value::Value;
use std::f64::consts::TAU;

/// What `filter.onepole` outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnePoleMode {
    /// The smoothed signal `y`.
    Lowpass,
    /// What the smoothing removed: `x - y`.
    Highpass,
}

/// The `filter.onepole` processor: `y += a · (x - y)` with `a = 1 - exp(-2π · cutoff / sr)`.
#[derive(Clone, Debug)]
pub struct OnePole {
    mode: OnePoleMode,
    a: f64,
    y: f64,
}

impl OnePole {
    /// A one-pole filter at `cutoff` Hz (callers check 0 <= cutoff < sr / 2).
    pub fn new(mode: OnePoleMode, cutoff: f64, sample_rate: f64) -> Self {
        OnePole {
            mode,
            a: 1.0 - (-TAU * cutoff / sample_rate).exp(),
            y: 0.0,
        }
    }
}

impl SignalProc for OnePole {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        let a = self.a;
        let mut y = self.y;
        let x = input(inputs, 0);
        match self.mode {
            OnePoleMode::Lowpass => {
                for (o, &v) in out.iter_mut().zip(x) {
                    y = crate::flush_subnormal(y + a * (v - y));
                    *o = y;
                }
            }
            OnePoleMode::Highpass => {
                for (o, &v) in out.iter_mut().zip(x) {
                    y = crate::flush_subnormal(y + a * (v - y));
                    *o = v - y;
                }
            }
        }
        self.y = y;
    }
    fn reset(&mut self) {
        self.y = 0.0;
    }
    fn save(&self, words: &mut Vec<u64>) {
        words.push(self.y.to_bits());
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        self.y = Words::exact(words, 1)?.f64();
        Ok(())
    }
}

/// The response of `filter.biquad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BiquadMode {
    /// Second-order low-pass (unit gain at DC).
    Lowpass,
    /// Second-order high-pass (unit gain at Nyquist).
    Highpass,
    /// Band-pass with unit gain at the centre frequency.
    Bandpass,
    /// Band-stop: zero gain at the centre frequency.
    Notch,
}

impl BiquadMode {
    /// Parse `lowpass`, `highpass`, `bandpass` or `notch`.
    pub fn parse(s: &str) -> Option<BiquadMode> {
        Some(match s {
            "lowpass" => BiquadMode::Lowpass,
            "highpass" => BiquadMode::Highpass,
            "bandpass" => BiquadMode::Bandpass,
            "notch" => BiquadMode::Notch,
            _ => return None,
        })
    }
}

/// The `filter.biquad` processor: RBJ cookbook coefficients (normalised by `a0`), run in
/// transposed direct form II in f64.
#[derive(Clone, Debug)]
pub struct Biquad {
    b0: f64,
    b1: f64,
    b2: f64,
    a1: f64,
    a2: f64,
    s1: f64,
    s2: f64,
}

impl Biquad {
    /// A biquad at `cutoff` Hz with quality `q` (callers check 0 < cutoff < sr / 2, q > 0).
    pub fn new(mode: BiquadMode, cutoff: f64, q: f64, sample_rate: f64) -> Self {
        let w0 = TAU * cutoff / sample_rate;
        let (sin, cos) = w0.sin_cos();
        let alpha = sin / (2.0 * q);
        let (b0, b1, b2) = match mode {
            BiquadMode::Lowpass => ((1.0 - cos) / 2.0, 1.0 - cos, (1.0 - cos) / 2.0),
            BiquadMode::Highpass => ((1.0 + cos) / 2.0, -(1.0 + cos), (1.0 + cos) / 2.0),
            BiquadMode::Bandpass => (alpha, 0.0, -alpha),
            BiquadMode::Notch => (1.0, -2.0 * cos, 1.0),
        };
        let a0 = 1.0 + alpha;
        Biquad {
            b0: b0 / a0,
            b1: b1 / a0,
            b2: b2 / a0,
            a1: -2.0 * cos / a0,
            a2: (1.0 - alpha) / a0,
            s1: 0.0,
            s2: 0.0,
        }
    }
}

impl SignalProc for Biquad {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        let (b0, b1, b2, a1, a2) = (self.b0, self.b1, self.b2, self.a1, self.a2);
        let (mut s1, mut s2) = (self.s1, self.s2);
        for (o, &x) in out.iter_mut().zip(input(inputs, 0)) {
            let y = b0 * x + s1;
            s1 = crate::flush_subnormal(b1 * x - a1 * y + s2);
            s2 = crate::flush_subnormal(b2 * x - a2 * y);
            *o = y;
        }
        self.s1 = s1;
        self.s2 = s2;
    }
    fn reset(&mut self) {
        self.s1 = 0.0;
        self.s2 = 0.0;
    }
    fn save(&self, words: &mut Vec<u64>) {
        words.push(self.s1.to_bits());
        words.push(self.s2.to_bits());
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        let mut w = Words::exact(words, 2)?;
        self.s1 = w.f64();
        self.s2 = w.f64();
        Ok(())
    }
}

/// The rule of a cutoff param: a finite number of at least 0 (above 0 when `positive`),
/// below the Nyquist frequency of the node's rate when it is known.
fn cutoff_rule(v: &Value, env: &RuleEnv, positive: bool) -> Result<(), Violation> {
    let expected = if positive {
        "a finite cutoff above 0 Hz"
    } else {
        "a finite cutoff of at least 0 Hz"
    };
    match v.as_f64() {
        Some(c) if c.is_finite() && (c > 0.0 || (c == 0.0 && !positive)) => {}
        Some(c) => return Err(Violation::new(expected, c.to_string())),
        None => return Err(Violation::new(expected, v.type_name())),
    }
    match (env.sample_rate, v.as_f64()) {
        (Some(sr), Some(c)) if c >= sr / 2.0 => Err(Violation::new(
            format!(
                "a cutoff below the Nyquist frequency ({} Hz at {sr} Hz)",
                sr / 2.0
            ),
            c.to_string(),
        )),
        _ => Ok(()),
    }
}

/// The `filter.onepole` cutoff: at least 0 and below Nyquist.
fn onepole_cutoff(v: &Value, env: &RuleEnv) -> Result<(), Violation> {
    cutoff_rule(v, env, false)
}

/// The `filter.biquad` cutoff: above 0 and below Nyquist.
fn biquad_cutoff(v: &Value, env: &RuleEnv) -> Result<(), Violation> {
    cutoff_rule(v, env, true)
}

/// A one-pole filter: y += a · (x - y) with a = 1 - exp(-2π · cutoff / sample rate);
/// `highpass` outputs x - y.
#[kiln_core::op("filter.onepole", signal, out = "the filtered signal")]
fn onepole(
    #[input("the signal to filter")] r#in: SignalIn,
    #[param(
        "cutoff frequency in Hz (0 to below Nyquist)",
        default = 1000.0,
        rule = Rule::Check(onepole_cutoff)
    )]
    cutoff: f64,
    #[param(
        "`lowpass` or `highpass`",
        default = "lowpass",
        rule = Rule::OneOf(&["lowpass", "highpass"])
    )]
    mode: &str,
    call: &SignalCall<'_>,
) -> Result<OnePole, OpError> {
    let mode = match mode {
        "highpass" => OnePoleMode::Highpass,
        _ => OnePoleMode::Lowpass,
    };
    Ok(OnePole::new(mode, cutoff, sample_rate(call)?))
}

/// The default `q` of `filter.biquad`: the documented 0.7071 (maximally flat), not
/// `FRAC_1_SQRT_2`, which would change the default's bits and every key made with it.
#[allow(clippy::approx_constant)]
const BIQUAD_Q: f64 = 0.7071;

/// A second-order filter with the RBJ cookbook coefficients, in transposed direct form II.
#[kiln_core::op("filter.biquad", signal, out = "the filtered signal")]
fn biquad(
    #[input("the signal to filter")] r#in: SignalIn,
    #[param(
        "`lowpass`, `highpass`, `bandpass` or `notch`",
        default = "lowpass",
        rule = Rule::OneOf(&["lowpass", "highpass", "bandpass", "notch"])
    )]
    mode: &str,
    #[param(
        "cutoff (or centre) frequency in Hz, above 0 and below Nyquist",
        default = 1000.0,
        rule = Rule::Check(biquad_cutoff)
    )]
    cutoff: f64,
    #[param(
        "quality factor, above 0 (0.7071: maximally flat)",
        default = BIQUAD_Q,
        rule = Rule::POSITIVE
    )]
    q: f64,
    call: &SignalCall<'_>,
) -> Result<Biquad, OpError> {
    let mode = BiquadMode::parse(mode)
        .ok_or_else(|| OpError::param(0, format!("unknown mode `{mode}`")))?;
    Ok(Biquad::new(mode, cutoff, q, sample_rate(call)?))
}

/// Register the filters.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register_signal(OnepoleOp::new())?;
    reg.register_signal(BiquadOp::new())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{SR, Setup, check_contract, run};
    use kiln_core::op::PortIndex;

    fn sine(n: usize, f: f64) -> Vec<f64> {
        (0..n).map(|i| (TAU * f * i as f64 / SR).sin()).collect()
    }

    fn rms(x: &[f64]) -> f64 {
        (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt()
    }

    fn noise(n: usize) -> Vec<f64> {
        let mut s = 0x1234_5678u64;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            })
            .collect()
    }

    /// `op` (in its default mode, lowpass) at `cutoff` settles to unit gain at DC.
    fn assert_passes_dc(op: &str, cutoff: f64) {
        let s = Setup::new(op).constant("in", 1.0).param("cutoff", cutoff);
        let out = run(&s, 20_000, 64);
        assert!(
            (out[19_999] - 1.0).abs() < 1e-9,
            "{op} DC gain {}",
            out[19_999]
        );
    }

    #[test]
    fn filters_keep_the_contract() {
        let x = noise(3000);
        for mode in ["lowpass", "highpass"] {
            check_contract(
                &Setup::new("filter.onepole")
                    .live("in", x.clone())
                    .param("mode", mode),
                3000,
            );
        }
        for mode in ["lowpass", "highpass", "bandpass", "notch"] {
            check_contract(
                &Setup::new("filter.biquad")
                    .live("in", x.clone())
                    .param("mode", mode)
                    .param("cutoff", 2500.0)
                    .param("q", 2.0),
                3000,
            );
        }
    }

    #[test]
    fn biquad_lowpass_passes_dc_and_cuts_highs() {
        assert_passes_dc("filter.biquad", 500.0);
        let s = Setup::new("filter.biquad")
            .live("in", sine(20_000, 12_000.0))
            .param("cutoff", 500.0);
        let out = run(&s, 20_000, 64);
        let gain = rms(&out[10_000..]) / rms(&sine(10_000, 12_000.0));
        // Two poles: about -12 dB per octave, so 4.6 octaves above cutoff is below -50 dB.
        assert!(gain < 0.005, "gain at 12 kHz {gain}");
        // At the cutoff a Butterworth lowpass is at -3 dB.
        let s = Setup::new("filter.biquad")
            .live("in", sine(40_000, 500.0))
            .param("cutoff", 500.0);
        let out = run(&s, 40_000, 64);
        let gain = rms(&out[20_000..]) / rms(&sine(20_000, 500.0));
        assert!(
            (gain - std::f64::consts::FRAC_1_SQRT_2).abs() < 0.01,
            "{gain}"
        );
    }

    #[test]
    fn biquad_modes_shape_as_named() {
        let gain = |mode: &str, f: f64| {
            let s = Setup::new("filter.biquad")
                .live("in", sine(40_000, f))
                .param("mode", mode)
                .param("cutoff", 1000.0)
                .param("q", 4.0);
            rms(&run(&s, 40_000, 64)[20_000..]) / rms(&sine(20_000, f))
        };
        assert!(gain("highpass", 50.0) < 0.01);
        assert!((gain("highpass", 15_000.0) - 1.0).abs() < 0.02);
        assert!((gain("bandpass", 1000.0) - 1.0).abs() < 0.02);
        assert!(gain("bandpass", 100.0) < 0.05);
        assert!(gain("notch", 1000.0) < 0.02);
        assert!((gain("notch", 100.0) - 1.0).abs() < 0.02);
    }

    #[test]
    fn onepole_lowpass_passes_dc_and_cuts_highs() {
        assert_passes_dc("filter.onepole", 200.0);
        let x = sine(20_000, 15_000.0);
        let s = Setup::new("filter.onepole")
            .live("in", x.clone())
            .param("cutoff", 200.0);
        let out = run(&s, 20_000, 64);
        let gain = rms(&out[10_000..]) / rms(&x[10_000..]);
        assert!(gain < 0.02, "gain at 15 kHz {gain}");
        // The highpass is the complement, sample by sample.
        let h = Setup::new("filter.onepole")
            .live("in", x.clone())
            .param("cutoff", 200.0)
            .param("mode", "highpass");
        for ((hv, lv), xv) in run(&h, 20_000, 64).iter().zip(&out).zip(&x) {
            assert_eq!(hv.to_bits(), (xv - lv).to_bits());
        }
    }

    #[test]
    fn biquad_lowpass_reduces_noise_energy() {
        let x = noise(48_000);
        let s = Setup::new("filter.biquad")
            .live("in", x.clone())
            .param("cutoff", 1000.0);
        let ratio = rms(&run(&s, 48_000, 256)) / rms(&x);
        // A Butterworth lowpass passes white noise over about 1.11 · cutoff of the 24 kHz band:
        // sqrt(1110 / 24000), about 0.22 of the rms.
        assert!(ratio < 0.4 && ratio > 0.1, "{ratio}");
    }

    #[test]
    fn bad_params_are_named() {
        let onepole = || Setup::new("filter.onepole").live("in", vec![0.0]);
        let biquad = || Setup::new("filter.biquad").live("in", vec![0.0]);
        let e = onepole()
            .param("cutoff", -1.0)
            .refused_at(PortIndex::Param(0));
        assert!(e.message.contains("cutoff"));
        let e = onepole().param("cutoff", 24_000.0).refused();
        assert!(e.message.contains("Nyquist"), "{}", e.message);
        onepole()
            .param("mode", "bandpass")
            .refused_at(PortIndex::Param(1));
        let e = biquad().param("q", 0.0).refused_at(PortIndex::Param(2));
        assert!(e.message.contains("above 0"), "{}", e.message);
        biquad()
            .param("mode", "shelf")
            .refused_at(PortIndex::Param(0));
        biquad()
            .param("cutoff", 0.0)
            .refused_at(PortIndex::Param(1));
        let e = biquad().param("cutoff", f64::NAN).refused();
        assert!(e.message.contains("finite"));
        biquad()
            .param("cutoff", 30_000.0)
            .refused_at(PortIndex::Param(1));
    }
}
