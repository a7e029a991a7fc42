//! The audio workload of the `audio` benchmark, in three forms.
//!
//! The network: [`VOICES`] sine oscillators (voice `k` at [`voice_freq`]`(k)`, amplitude
//! [`AMP`], start phase 0) summed, then an RBJ biquad lowpass ([`CUTOFF`] Hz, Q [`Q`]), then a
//! feedback comb `y[n] = x[n] + 0.6·y[n − 600]` (12.5 ms at 48 kHz), at [`SAMPLE_RATE`].
//!
//! * [`Limit`]: the hand-written block loop: plain arrays, 16 `u32` phase accumulators
//!   started and advanced by Kiln's own rule (`kiln_audio::phase_start`,
//!   `phase_increment`), Kiln's own polynomial sine (`kiln_audio::sine`, inlined into the
//!   loop), and the same biquad and comb arithmetic as Kiln's nodes, in the same operand
//!   order, so its samples equal Kiln's bit for bit. (Kiln's biquad and delay also flush
//!   subnormal state to zero on every sample; the limit does not: no subnormal arises in this
//!   workload, so the samples are the same, and the limit stays the fastest plain loop.)
//! * [`FundspPeer`]: the same network in `fundsp` (0.23) graph notation, run with its block
//!   `process` (≤ 64 samples) or its per-sample `tick`. fundsp passes `f32` samples between
//!   nodes (its oscillators compute `f32` sines; the biquad keeps `f64` state), so its output
//!   is close to, not equal to, the others'.
//! * [`kiln_graph`]: the network as a Kiln graph of `kiln_audio` nodes, run by
//!   `StreamingEvaluator`.

use fundsp::prelude64::{
    An, AudioNode, Biquad, BiquadCoefs, BufferArray, BufferRef, Frame, U0, U1, U16, delay,
    feedback2, pass, sine_hz, sumi,
};
use kiln_audio::{phase_increment, phase_start, sine};
use kiln_core::eval::{StreamConfig, StreamError, StreamingEvaluator};
use kiln_core::graph::Graph;
use kiln_core::value::Value;

/// Samples per second.
pub const SAMPLE_RATE: u32 = 48_000;
/// Samples in one second: one benchmark iteration renders this many.
pub const SECOND: usize = SAMPLE_RATE as usize;
/// Number of sine oscillators.
pub const VOICES: usize = 16;
/// Amplitude of each oscillator.
pub const AMP: f64 = 1.0 / VOICES as f64;
/// Lowpass cutoff, Hz.
pub const CUTOFF: f64 = 2000.0;
/// Lowpass Q: `filter.biquad`'s default, 0.7071 (written out, not `FRAC_1_SQRT_2`).
#[allow(clippy::approx_constant)]
pub const Q: f64 = 0.7071;
/// Comb delay in samples (12.5 ms at 48 kHz).
pub const COMB_DELAY: usize = 600;
/// Comb feedback gain.
pub const COMB_GAIN: f64 = 0.6;
/// The block sizes the benchmark runs.
pub const BLOCKS: [usize; 2] = [64, 1];
/// The largest block [`Limit`] and [`FundspPeer`] handle in one step (fundsp's
/// `MAX_BUFFER_SIZE`); longer requests are cut into such chunks.
pub const MAX_CHUNK: usize = 64;
/// The id of the Kiln graph's output node (the comb's `mix`).
pub const KILN_OUTPUT: &str = "comb";

/// Frequency of voice `k`, Hz: `110·(k+1)·1.01` (111.1 Hz to 1777.6 Hz, all below the cutoff).
pub fn voice_freq(k: usize) -> f64 {
    110.0 * (k + 1) as f64 * 1.01
}

/// Normalised biquad coefficients (`a0` = 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefs {
    /// Feed-forward 0.
    pub b0: f64,
    /// Feed-forward 1.
    pub b1: f64,
    /// Feed-forward 2.
    pub b2: f64,
    /// Feedback 1.
    pub a1: f64,
    /// Feedback 2.
    pub a2: f64,
}

impl Coefs {
    /// The RBJ cookbook lowpass.
    pub fn lowpass(sr: f64, cutoff: f64, q: f64) -> Self {
        let w0 = std::f64::consts::TAU * cutoff / sr;
        let (sin, cos) = w0.sin_cos();
        let alpha = sin / (2.0 * q);
        let a0 = 1.0 + alpha;
        Coefs {
            b0: (1.0 - cos) / 2.0 / a0,
            b1: (1.0 - cos) / a0,
            b2: (1.0 - cos) / 2.0 / a0,
            a1: -2.0 * cos / a0,
            a2: (1.0 - alpha) / a0,
        }
    }
}

/// The hand-written limit: the whole network as one block loop over plain arrays.
#[derive(Clone, Debug)]
pub struct Limit {
    phase: [u32; VOICES],
    inc: [u32; VOICES],
    c: Coefs,
    /// Transposed direct form II state.
    z1: f64,
    z2: f64,
    /// The comb's last [`COMB_DELAY`] outputs; `ring[pos]` is `y[n − COMB_DELAY]`.
    ring: Vec<f64>,
    pos: usize,
    /// Scratch: the two sums of eight voices, and one voice's phases (kept here, not zeroed
    /// on every call, so a 1-sample call costs no 1.5 KiB `memset`).
    sums: Box<[[f64; MAX_CHUNK]; 2]>,
    ph: [u32; MAX_CHUNK],
}

impl Default for Limit {
    fn default() -> Self {
        Self::new()
    }
}

impl Limit {
    /// The network at its start.
    pub fn new() -> Self {
        let sr = SAMPLE_RATE as f64;
        Limit {
            // Start phase 0 (`osc.sine`'s default), increments by `osc.sine`'s rule.
            phase: [phase_start(0.0); VOICES],
            inc: std::array::from_fn(|k| phase_increment(voice_freq(k), sr)),
            c: Coefs::lowpass(sr, CUTOFF, Q),
            z1: 0.0,
            z2: 0.0,
            ring: vec![0.0; COMB_DELAY],
            pos: 0,
            sums: Box::new([[0.0; MAX_CHUNK]; 2]),
            ph: [0; MAX_CHUNK],
        }
    }

    /// Render the next `out.len()` samples (any length; cut into [`MAX_CHUNK`] chunks).
    pub fn process(&mut self, out: &mut [f64]) {
        for chunk in out.chunks_mut(MAX_CHUNK) {
            self.chunk(chunk);
        }
    }

    #[inline]
    fn chunk(&mut self, out: &mut [f64]) {
        let n = out.len();
        // Two sums of eight voices each, in voice order (Kiln: two `mix` nodes).
        let (sums, ph) = (&mut *self.sums, &mut self.ph);
        for (half, sum) in sums.iter_mut().enumerate() {
            for j in 0..VOICES / 2 {
                let k = half * VOICES / 2 + j;
                let (mut p, inc) = (self.phase[k], self.inc[k]);
                for x in &mut ph[..n] {
                    *x = p;
                    p = p.wrapping_add(inc);
                }
                self.phase[k] = p;
                if j == 0 {
                    for (s, &p) in sum[..n].iter_mut().zip(&ph[..n]) {
                        *s = AMP * sine(p);
                    }
                } else {
                    for (s, &p) in sum[..n].iter_mut().zip(&ph[..n]) {
                        *s += AMP * sine(p);
                    }
                }
            }
        }
        let Coefs { b0, b1, b2, a1, a2 } = self.c;
        let (mut z1, mut z2) = (self.z1, self.z2);
        let mut pos = self.pos;
        for (i, o) in out.iter_mut().enumerate() {
            let x = sums[0][i] + sums[1][i];
            // Biquad, transposed direct form II.
            let y = b0 * x + z1;
            z1 = b1 * x - a1 * y + z2;
            z2 = b2 * x - a2 * y;
            // Comb: y + 0.6·w[n − D].
            let w = y + self.ring[pos] * COMB_GAIN;
            self.ring[pos] = w;
            pos += 1;
            if pos == COMB_DELAY {
                pos = 0;
            }
            *o = w;
        }
        (self.z1, self.z2, self.pos) = (z1, z2, pos);
    }
}

/// The fundsp network:
///
/// ```text
/// sumi::<U16>(|k| sine_hz(f_k).phase(0.0) * (1/16))
///   >> An(Biquad::with_coefs(BiquadCoefs::lowpass(48000, 2000, 0.7071)))
///   >> feedback2(pass(), delay(599 / 48000) * 0.6)
/// ```
///
/// `feedback2(x, y)` adds `y`'s previous output to its input and outputs `x` (here `pass()`)
/// of that: `u[n] = in[n] + v[n−1]` with `v = 0.6·u` delayed 599 samples, so
/// `u[n] = in[n] + 0.6·u[n − 600]`: the comb, exactly.
pub fn fundsp_network() -> An<impl AudioNode<Inputs = U0, Outputs = U1>> {
    let sr = SAMPLE_RATE as f64;
    let oscs =
        sumi::<U16, _, _>(|k| sine_hz(voice_freq(k as usize) as f32).phase(0.0) * AMP as f32);
    let lowpass = An(Biquad::with_coefs(BiquadCoefs::<f64>::lowpass(
        sr, CUTOFF, Q,
    )));
    let comb = feedback2(
        pass(),
        delay((COMB_DELAY - 1) as f32 / SAMPLE_RATE as f32) * COMB_GAIN as f32,
    );
    let mut net = oscs >> lowpass >> comb;
    net.set_sample_rate(sr);
    net.reset();
    net
}

/// The fundsp peer: [`fundsp_network`] and its output buffer.
pub struct FundspPeer<X: AudioNode<Inputs = U0, Outputs = U1>> {
    net: An<X>,
    buf: BufferArray<U1>,
}

/// The fundsp peer at its start.
pub fn fundsp_peer() -> FundspPeer<impl AudioNode<Inputs = U0, Outputs = U1>> {
    FundspPeer {
        net: fundsp_network(),
        buf: BufferArray::new(),
    }
}

impl<X: AudioNode<Inputs = U0, Outputs = U1>> FundspPeer<X> {
    /// Render the next `out.len()` samples with block `process` calls of at most [`MAX_CHUNK`]
    /// samples.
    pub fn process(&mut self, out: &mut [f64]) {
        let input = BufferRef::empty();
        for chunk in out.chunks_mut(MAX_CHUNK) {
            let n = chunk.len();
            self.net.process(n, &input, &mut self.buf.buffer_mut());
            for (o, &s) in chunk.iter_mut().zip(self.buf.channel_f32(0)) {
                *o = s as f64;
            }
        }
    }

    /// Render the next `out.len()` samples one `tick` each.
    pub fn tick(&mut self, out: &mut [f64]) {
        let input = Frame::default();
        for o in out {
            *o = self.net.tick(&input)[0] as f64;
        }
    }

    /// Back to the start.
    pub fn reset(&mut self) {
        self.net.reset();
    }
}

/// The network as a Kiln graph of `kiln_audio` nodes; its output is [`KILN_OUTPUT`].
///
/// ```text
/// osc0..osc15 (osc.sine: freq = f_k, amp = 1/16)
///   -> mix_lo (mix a..h = osc0..osc7), mix_hi (mix a..h = osc8..osc15)
///   -> mix_all (mix: a = mix_lo, b = mix_hi)
///   -> lowpass (filter.biquad: mode lowpass, cutoff 2000, q 0.7071)
///   -> comb (mix: a = lowpass, b = fb) -> dly (delay: samples 600) -> fb (gain 0.6) -> comb.b
/// ```
pub fn kiln_graph() -> Graph {
    let mut g = Graph::new();
    let ports = ["a", "b", "c", "d", "e", "f", "g", "h"];
    for k in 0..VOICES {
        let id = format!("osc{k}");
        g.add_node(id.as_str(), "osc.sine").expect("fresh id");
        g.set_const(&id, "freq", Value::Float(voice_freq(k)))
            .expect("node");
        g.set_const(&id, "amp", Value::Float(AMP)).expect("node");
    }
    for (half, mix) in ["mix_lo", "mix_hi"].into_iter().enumerate() {
        g.add_node(mix, "mix").expect("fresh id");
        for (j, port) in ports.iter().enumerate() {
            g.wire(
                &format!("osc{}.out", half * VOICES / 2 + j),
                &format!("{mix}.{port}"),
            );
        }
    }
    g.add_node("mix_all", "mix").expect("fresh id");
    g.wire("mix_lo.out", "mix_all.a");
    g.wire("mix_hi.out", "mix_all.b");
    g.add_node("lowpass", "filter.biquad").expect("fresh id");
    g.set_param("lowpass", "mode", Value::from("lowpass"))
        .expect("node");
    g.set_param("lowpass", "cutoff", Value::Float(CUTOFF))
        .expect("node");
    g.set_param("lowpass", "q", Value::Float(Q)).expect("node");
    g.wire("mix_all.out", "lowpass.in");
    g.add_node(KILN_OUTPUT, "mix").expect("fresh id");
    g.add_node("dly", "delay").expect("fresh id");
    g.set_param("dly", "samples", Value::Int(COMB_DELAY as i64))
        .expect("node");
    g.add_node("fb", "gain").expect("fresh id");
    g.set_const("fb", "gain", Value::Float(COMB_GAIN))
        .expect("node");
    g.wire("lowpass.out", &format!("{KILN_OUTPUT}.a"));
    g.wire(&format!("{KILN_OUTPUT}.out"), "dly.in");
    g.wire("dly.out", "fb.in");
    g.wire("fb.out", &format!("{KILN_OUTPUT}.b"));
    g
}

/// A `StreamingEvaluator` of [`kiln_graph`]'s output at [`SAMPLE_RATE`], `block` samples per
/// block, over `kiln_audio::registry()`.
pub fn kiln_stream(block: usize) -> Result<StreamingEvaluator, StreamError> {
    StreamingEvaluator::new(
        kiln_audio::registry(),
        &kiln_graph(),
        &[KILN_OUTPUT],
        StreamConfig {
            sample_rate: SAMPLE_RATE,
            block,
            seed: 0,
        },
    )
}

/// Render the next `out.len()` samples of `stream`'s first output, one block at a time (a
/// shorter last block when `out.len()` is not a multiple of the block size).
pub fn kiln_render(stream: &mut StreamingEvaluator, out: &mut [f64]) -> Result<(), StreamError> {
    let block = stream.config().block;
    for chunk in out.chunks_mut(block) {
        stream.process(chunk.len())?;
        let got = stream.output(0);
        if let ([o], [v]) = (&mut *chunk, got) {
            // One sample: a store, not a `memcpy` call (block 1 is timed per sample).
            *o = *v;
        } else {
            chunk.copy_from_slice(got);
        }
    }
    Ok(())
}

/// Root mean square of `x`.
pub fn rms(x: &[f64]) -> f64 {
    (x.iter().map(|v| v * v).sum::<f64>() / x.len().max(1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_is_the_same_for_every_block_size() {
        let mut whole = vec![0.0; 4_800];
        Limit::new().process(&mut whole);
        let mut l = Limit::new();
        let mut pieces = vec![0.0; 4_800];
        let mut at = 0;
        for (i, len) in [1usize, 7, 64, 65, 600, 13].iter().cycle().enumerate() {
            if at == pieces.len() {
                break;
            }
            let end = (at + len + i % 3).min(pieces.len());
            l.process(&mut pieces[at..end]);
            at = end;
        }
        assert!(
            whole
                .iter()
                .zip(&pieces)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
    }

    /// The fundsp comb alone, on an impulse: 1 at 0, 0.6 at 600, 0.36 at 1200, 0 elsewhere.
    #[test]
    fn fundsp_comb_is_x_plus_gain_times_y_600_back() {
        let mut comb = feedback2(
            pass(),
            delay((COMB_DELAY - 1) as f32 / SAMPLE_RATE as f32) * COMB_GAIN as f32,
        );
        comb.set_sample_rate(SAMPLE_RATE as f64);
        comb.reset();
        let y: Vec<f32> = (0..1_500)
            .map(|n| comb.filter_mono(if n == 0 { 1.0 } else { 0.0 }))
            .collect();
        for (n, v) in y.iter().enumerate() {
            let want = match n {
                0 => 1.0,
                600 => 0.6,
                1200 => 0.36,
                _ => 0.0,
            };
            assert!((v - want).abs() < 1e-6, "y[{n}] = {v}, want {want}");
        }
    }

    #[test]
    fn fundsp_block_and_tick_agree_and_match_the_limit_in_rms() {
        let n = 4_800;
        let (mut a, mut b, mut want) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        fundsp_peer().process(&mut a);
        fundsp_peer().tick(&mut b);
        Limit::new().process(&mut want);
        assert!(a.iter().chain(&b).all(|v| v.is_finite()));
        // Block and per-sample runs differ only in the f32 sine's SIMD vs scalar path.
        let diff = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(diff < 1e-4, "fundsp block vs tick: {diff}");
        let (ra, rl) = (rms(&a), rms(&want));
        assert!(rl > 0.05, "limit rms {rl}");
        assert!(
            (ra / rl - 1.0).abs() < 0.10,
            "fundsp rms {ra}, limit rms {rl}"
        );
        // Same phases, same network: the waveforms themselves agree to f32 precision.
        let err = a
            .iter()
            .zip(&want)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-3, "fundsp vs limit: max |diff| {err}");
    }

    #[test]
    fn kiln_matches_the_limit() {
        let n = 4_800;
        let mut want = vec![0.0; n];
        Limit::new().process(&mut want);
        for block in BLOCKS {
            let mut s = kiln_stream(block).expect("the audio graph streams");
            let mut got = vec![0.0; n];
            kiln_render(&mut s, &mut got).expect("renders");
            let err = got
                .iter()
                .zip(&want)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max);
            assert!(err <= 1e-9, "block {block}: max |kiln − limit| = {err}");
            // The same sine, phases, biquad and comb arithmetic: the same bits.
            let same = got
                .iter()
                .zip(&want)
                .filter(|(x, y)| x.to_bits() == y.to_bits())
                .count();
            assert_eq!(same, n, "block {block}: samples bit-identical to the limit");
        }
        // The fundsp output: finite, and of the same RMS within 10%.
        let mut f = vec![0.0; n];
        fundsp_peer().process(&mut f);
        assert!(f.iter().all(|v| v.is_finite()));
        let (rf, rl) = (rms(&f), rms(&want));
        assert!(
            (rf / rl - 1.0).abs() < 0.10,
            "fundsp rms {rf}, limit rms {rl}"
        );
    }
}
