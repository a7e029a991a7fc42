//! Oscillators: `osc.sine`, `osc.saw`, `osc.square` and `osc.noise`.
//!
//! The periodic oscillators keep their phase in a `u32` fixed-point accumulator (one cycle is
//! 2^32), so the phase is exact and wraps for free: the increment per sample is
//! [`phase_increment`], the start phase [`phase_start`], and each output sample uses the phase
//! before that sample's increment. The output is `amp · wave`.

use crate::{apply_amp, constant, input, sample_rate};
use kiln_core::op::port::SignalIn;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::signal::{SignalCall, SignalProc, Words};

/// 2^32: one cycle of the phase accumulator.
const TWO32: f64 = 4_294_967_296.0;
/// 2^-32.
const INV_TWO32: f64 = 1.0 / TWO32;

/// `v.round()` for `v >= 0` (or NaN, giving 0) without a library call: truncate, then add
/// one when the (exact) fraction is at least a half.
#[inline(always)]
fn round_non_negative(v: f64) -> u64 {
    let t = v as u64;
    t + ((v - t as f64) >= 0.5) as u64
}

/// The phase increment per sample of an oscillator at `freq` Hz: `freq / sample_rate` cycles,
/// wrapped into [0, 1), in units of 2^-32 cycle, rounded — that is
/// `((freq / sample_rate).rem_euclid(1.0) * 2^32).round() as u64 as u32`. A negative
/// frequency runs the phase backwards; a non-finite one gives 0 (the phase stands still).
#[inline(always)]
pub fn phase_increment(freq: f64, sample_rate: f64) -> u32 {
    let x = freq / sample_rate;
    // `rem_euclid(1.0)` is the identity on [0, 1): skip its library call there.
    let y = if (0.0..1.0).contains(&x) {
        x
    } else {
        x.rem_euclid(1.0)
    };
    round_non_negative(y * TWO32) as u32
}

/// The accumulator value of a start phase given in cycles: `phase` wrapped into [0, 1), times
/// 2^32, rounded (wrapping, so a phase that rounds up to 1 starts at 0).
pub fn phase_start(phase: f64) -> u32 {
    phase_increment(phase, 1.0)
}

/// Odd polynomial coefficients: `sin(2π r) ≈ r · P(r²)` for `r` in [-1/4, 1/4] (Chebyshev
/// fit of degree 11; absolute error below 3e-11).
const SIN_C: [f64; 6] = [
    6.283_185_307_072_264,
    -41.341_702_116_744,
    81.605_226_174_029_67,
    -76.704_279_876_042_62,
    42.009_779_303_153_906,
    -14.393_966_295_455_941,
];

/// The signed position in the cycle of an accumulator value, in cycles: [-1/2, 1/2).
#[inline(always)]
fn cycles(phase: u32) -> f64 {
    (phase as i32) as f64 * INV_TWO32
}

/// `sin(2π x)` for `x` in [-1/2, 1/2): quarter-wave reduction, then the odd polynomial. Only
/// plain arithmetic, `abs` and `copysign`, so a loop over it vectorises.
#[inline(always)]
fn sine_cycles(x: f64) -> f64 {
    // Fold onto [-1/4, 1/4] using sin(2π(±1/2 − x)) = sin(2π x); every step is exact, since
    // `x` is a multiple of 2^-32 of magnitude at most 1/2.
    let r = (0.25 - (x.abs() - 0.25).abs()).copysign(x);
    let u = r * r;
    r * (SIN_C[0]
        + u * (SIN_C[1] + u * (SIN_C[2] + u * (SIN_C[3] + u * (SIN_C[4] + u * SIN_C[5])))))
}

/// `sin(2π · phase / 2^32)`, within 1e-10 of `f64::sin`: the waveform of `osc.sine`.
#[inline(always)]
pub fn sine(phase: u32) -> f64 {
    sine_cycles(cycles(phase))
}

/// The phase state shared by the periodic oscillators.
#[derive(Clone, Debug)]
struct Phase {
    phase: u32,
    start: u32,
    sample_rate: f64,
    freq_live: bool,
    amp_live: bool,
    /// The last constant frequency's bits and its increment (a cache, not state: it spares
    /// a division per block, which matters at small blocks).
    cached_freq: u64,
    cached_inc: u32,
}

impl Phase {
    /// The state of an oscillator node: its rate, start `phase` (in cycles), and whether
    /// `freq` and `amp` are wired signals (a constant `freq` primes the increment cache).
    fn of(
        call: &SignalCall<'_>,
        phase: f64,
        freq: SignalIn,
        amp: SignalIn,
    ) -> Result<Self, OpError> {
        Ok(Phase::new(
            sample_rate(call)?,
            phase_start(phase),
            freq.0.is_none(),
            amp.0.is_none(),
            freq.0.unwrap_or(440.0),
        ))
    }
    fn new(sample_rate: f64, start: u32, freq_live: bool, amp_live: bool, freq: f64) -> Self {
        Phase {
            phase: start,
            start,
            sample_rate,
            freq_live,
            amp_live,
            cached_freq: freq.to_bits(),
            cached_inc: phase_increment(freq, sample_rate),
        }
    }
    /// The increment of the constant frequency `freq`.
    #[inline(always)]
    fn constant_inc(&mut self, freq: f64) -> u32 {
        if freq.to_bits() != self.cached_freq {
            self.cached_freq = freq.to_bits();
            self.cached_inc = phase_increment(freq, self.sample_rate);
        }
        self.cached_inc
    }
    fn save(&self, words: &mut Vec<u64>) {
        words.push(self.phase as u64);
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        let mut w = Words::exact(words, 1)?;
        let p = w.u64();
        self.phase = u32::try_from(p).map_err(|_| format!("phase {p} is not a u32"))?;
        Ok(())
    }
}

/// A periodic oscillator: the phase state shared by `osc.sine`, `osc.saw` and `osc.square`,
/// and its waveform `W` ([`SineWave`], [`SawWave`] or [`SquareWave`]). The processor is
/// monomorphised per waveform, so its loops carry no dispatch.
#[derive(Clone, Debug)]
pub struct PhaseOsc<W> {
    state: Phase,
    wave: W,
}

/// The `osc.sine` processor: `amp · sin(2π · phase)`.
pub type SineOsc = PhaseOsc<SineWave>;

/// The `osc.saw` processor: a rising sawtooth from -1 to 1, band-limited by PolyBLEP.
pub type PolyBlepSaw = PhaseOsc<SawWave>;

/// The `osc.square` processor: 1 for the first `duty` of each cycle, then -1, band-limited
/// by PolyBLEP at both edges.
pub type PolyBlepSquare = PhaseOsc<SquareWave>;

/// The waveform of [`SineOsc`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SineWave;

/// The waveform of [`PolyBlepSaw`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SawWave;

/// The waveform of [`PolyBlepSquare`].
#[derive(Clone, Copy, Debug)]
pub struct SquareWave {
    /// The falling edge in accumulator units, in [0, 2^32].
    duty: u64,
}

/// How a waveform fills a block: from the phase `s.phase`, which it advances, amplitude
/// included.
trait Waveform: Send {
    fn render(&self, s: &mut Phase, inputs: &[&[f64]], out: &mut [f64]);
}

impl<W: Waveform> SignalProc for PhaseOsc<W> {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        self.wave.render(&mut self.state, inputs, out);
    }
    fn reset(&mut self) {
        self.state.phase = self.state.start;
    }
    fn save(&self, words: &mut Vec<u64>) {
        self.state.save(words)
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        self.state.load(words)
    }
}

impl SineOsc {
    /// A sine starting at `phase` cycles; `freq_live` / `amp_live`: whether those inputs are
    /// wired signals (else constants, read once per block).
    pub fn new(sample_rate: f64, phase: f64, freq_live: bool, amp_live: bool) -> Self {
        PhaseOsc {
            state: Phase::new(sample_rate, phase_start(phase), freq_live, amp_live, 440.0),
            wave: SineWave,
        }
    }
}

impl Waveform for SineWave {
    #[inline]
    fn render(&self, s: &mut Phase, inputs: &[&[f64]], out: &mut [f64]) {
        let mut p = s.phase;
        if s.freq_live {
            // Phases first (a sequential sum), then the polynomial over the block.
            for (o, &f) in out.iter_mut().zip(input(inputs, 0)) {
                *o = cycles(p);
                p = p.wrapping_add(phase_increment(f, s.sample_rate));
            }
            for o in out.iter_mut() {
                *o = sine_cycles(*o);
            }
            apply_amp(out, input(inputs, 1), s.amp_live);
        } else {
            let inc = s.constant_inc(constant(inputs, 0, 440.0));
            if s.amp_live {
                for o in out.iter_mut() {
                    *o = sine(p);
                    p = p.wrapping_add(inc);
                }
                apply_amp(out, input(inputs, 1), true);
            } else {
                // The common case, in one vectorisable pass (`sine` is never NaN, so `· 1.0`
                // changes no bits).
                let a = constant(inputs, 1, 1.0);
                for o in out.iter_mut() {
                    *o = sine(p) * a;
                    p = p.wrapping_add(inc);
                }
            }
        }
        s.phase = p;
    }
}

/// The PolyBLEP residual of a unit step at phase 0 (two-sample polynomial), for phase `t` in
/// [0, 1) and phase step `dt` in [0, 1/2].
#[inline(always)]
fn poly_blep(t: f64, dt: f64) -> f64 {
    if t < dt {
        let x = t / dt;
        x + x - x * x - 1.0
    } else if t > 1.0 - dt {
        let x = (t - 1.0) / dt;
        x * x + x + x + 1.0
    } else {
        0.0
    }
}

/// The phase step in cycles, in [0, 1/2] (a backwards phase counts its distance).
#[inline(always)]
fn step_of(inc: u32) -> f64 {
    inc.min(inc.wrapping_neg()) as f64 * INV_TWO32
}

/// The PolyBLEP oscillator's block: `wave(phase, step)` per sample (`step` from
/// [`step_of`]), then the amplitude. `wave` is inlined into each loop.
#[inline(always)]
fn render_blep(s: &mut Phase, inputs: &[&[f64]], out: &mut [f64], wave: impl Fn(u32, f64) -> f64) {
    let mut p = s.phase;
    if s.freq_live {
        for (o, &f) in out.iter_mut().zip(input(inputs, 0)) {
            let inc = phase_increment(f, s.sample_rate);
            *o = wave(p, step_of(inc));
            p = p.wrapping_add(inc);
        }
    } else {
        let inc = s.constant_inc(constant(inputs, 0, 440.0));
        let dt = step_of(inc);
        for o in out.iter_mut() {
            *o = wave(p, dt);
            p = p.wrapping_add(inc);
        }
    }
    s.phase = p;
    apply_amp(out, input(inputs, 1), s.amp_live);
}

impl Waveform for SawWave {
    #[inline]
    fn render(&self, s: &mut Phase, inputs: &[&[f64]], out: &mut [f64]) {
        render_blep(s, inputs, out, |p, dt| {
            let t = p as f64 * INV_TWO32;
            (t + t - 1.0) - poly_blep(t, dt)
        });
    }
}

impl Waveform for SquareWave {
    #[inline]
    fn render(&self, s: &mut Phase, inputs: &[&[f64]], out: &mut [f64]) {
        let duty = self.duty;
        render_blep(s, inputs, out, |p, dt| {
            let naive = if (p as u64) < duty { 1.0 } else { -1.0 };
            let t = p as f64 * INV_TWO32;
            let t2 = p.wrapping_sub(duty as u32) as f64 * INV_TWO32;
            naive + poly_blep(t, dt) - poly_blep(t2, dt)
        });
    }
}

/// The `osc.noise` processor: white noise, uniform in [-1, 1), from a SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct Noise {
    state: u64,
    seed: u64,
    amp_live: bool,
}

impl Noise {
    /// Noise from `seed`; `amp_live`: whether `amp` is a wired signal.
    pub fn new(seed: u64, amp_live: bool) -> Self {
        Noise {
            state: seed,
            seed,
            amp_live,
        }
    }
}

/// SplitMix64's output function for the counter value `z`.
#[inline(always)]
fn splitmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64's counter step.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

impl SignalProc for Noise {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        let mut s = self.state;
        for o in out.iter_mut() {
            s = s.wrapping_add(GAMMA);
            // 53 random bits as k · 2^-52 in [0, 2), minus 1: exact, in [-1, 1).
            *o = (splitmix(s) >> 11) as f64 * (1.0 / 4_503_599_627_370_496.0) - 1.0;
        }
        self.state = s;
        apply_amp(out, input(inputs, 0), self.amp_live);
    }
    fn reset(&mut self) {
        self.state = self.seed;
    }
    fn save(&self, words: &mut Vec<u64>) {
        words.push(self.state);
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        self.state = Words::exact(words, 1)?.u64();
        Ok(())
    }
}

/// The doc of an oscillator's `freq` input.
const FREQ_DOC: &str = "frequency in Hz (negative runs backwards)";
/// The doc of an oscillator's `amp` input.
const AMP_DOC: &str = "amplitude: the wave is multiplied by it";

/// A sine oscillator: amp · sin(2π · phase), the phase advancing by freq / sample rate per
/// sample in exact 32-bit fixed point.
#[kiln_core::op("osc.sine", signal, out = "the oscillator's signal")]
fn osc_sine(
    #[input(FREQ_DOC, default = 440.0, rule = Rule::Finite)] freq: SignalIn,
    #[input(AMP_DOC, default = 1.0, rule = Rule::Finite)] amp: SignalIn,
    #[param("start phase in cycles (0 to 1)", default = 0.0, rule = Rule::Finite)] phase: f64,
    call: &SignalCall<'_>,
) -> Result<SineOsc, OpError> {
    Ok(PhaseOsc {
        state: Phase::of(call, phase, freq, amp)?,
        wave: SineWave,
    })
}

/// A sawtooth oscillator rising from -1 to 1 each cycle, band-limited with PolyBLEP.
#[kiln_core::op("osc.saw", signal, out = "the oscillator's signal")]
fn osc_saw(
    #[input(FREQ_DOC, default = 440.0, rule = Rule::Finite)] freq: SignalIn,
    #[input(AMP_DOC, default = 1.0, rule = Rule::Finite)] amp: SignalIn,
    #[param("start phase in cycles (0 to 1)", default = 0.0, rule = Rule::Finite)] phase: f64,
    call: &SignalCall<'_>,
) -> Result<PolyBlepSaw, OpError> {
    Ok(PhaseOsc {
        state: Phase::of(call, phase, freq, amp)?,
        wave: SawWave,
    })
}

/// A square oscillator: 1 for the first `duty` of each cycle, then -1, band-limited with
/// PolyBLEP.
#[kiln_core::op("osc.square", signal, out = "the oscillator's signal")]
fn osc_square(
    #[input(FREQ_DOC, default = 440.0, rule = Rule::Finite)] freq: SignalIn,
    #[input(AMP_DOC, default = 1.0, rule = Rule::Finite)] amp: SignalIn,
    #[param("start phase in cycles (0 to 1)", default = 0.0, rule = Rule::Finite)] phase: f64,
    #[param(
        "fraction of each cycle spent high (0 to 1)",
        default = 0.5,
        rule = Rule::between(0.0, 1.0)
    )]
    duty: f64,
    call: &SignalCall<'_>,
) -> Result<PolyBlepSquare, OpError> {
    Ok(PhaseOsc {
        state: Phase::of(call, phase, freq, amp)?,
        wave: SquareWave {
            duty: round_non_negative(duty * TWO32),
        },
    })
}

/// White noise, uniform in [-1, 1), times amp. Seeded by the run's seed and the node id: the
/// same in every run, different for each node.
#[kiln_core::op("osc.noise", signal, reads = "seed", out = "the noise")]
fn osc_noise(
    #[input(
        "amplitude: the noise is multiplied by it",
        default = 1.0,
        rule = Rule::Finite
    )]
    amp: SignalIn,
    call: &SignalCall<'_>,
) -> Noise {
    Noise::new(call.node_seed(), amp.0.is_none())
}

/// Register the oscillators.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register_signal(OscSineOp::new())?;
    reg.register_signal(OscSawOp::new())?;
    reg.register_signal(OscSquareOp::new())?;
    reg.register_signal(OscNoiseOp::new())?;
    Ok(())
}

#[cfg(test)]
mod tests;
