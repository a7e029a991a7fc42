//! Streaming audio: Kiln's `StreamingEvaluator` beside a hand-written loop and `fundsp`.
//!
//! The workload ([`kiln_bench::audio`]): 16 sines (111.1 Hz to 1777.6 Hz, amplitude 1/16)
//! summed → RBJ biquad lowpass (2 kHz, Q 0.7071) → feedback comb `y[n] = x[n] + 0.6·y[n−600]`
//! (12.5 ms), at 48 kHz. One run renders one second (48,000 samples) into a buffer the
//! variant owns, continuing from where the last run stopped (a stream in its steady state).
//! Each runs at block 64 and at block 1:
//!
//! * `limit`: [`Limit`], the hand-written block loop (same arithmetic as Kiln's nodes).
//! * `fundsp`: the same network in fundsp graph notation
//!   ([`kiln_bench::audio::fundsp_network`]), rendered with
//!   `process` (block 64) or `tick` (block 1).
//! * `kiln`: [`kiln_bench::audio::kiln_graph`] in a `StreamingEvaluator` with that block size.
//!
//! Run: `cargo bench -p kiln-bench --bench audio`. Criterion groups (`audio_block64`,
//! `audio_block1`) come first, then a summary measured in the same process: for each variant
//! the median of 15 repetitions ([`PLAN`], [`kiln_bench::summary`]), every variant visited
//! once per repetition (interleaved), each repetition one untimed run and then enough timed
//! runs to fill about 20 ms.
//!
//! Checks, before timing, after the criterion groups and after the summary: each variant is
//! reset and renders one second from the start, compared with the limit's first second. Kiln
//! must agree within 1e-9 (the bench also reports whether it is bit-identical); fundsp
//! (f32 samples between nodes) within 1e-3 and in RMS within 10%.

use criterion::{Criterion, Throughput};
use fundsp::prelude64::{AudioNode, U0, U1};
use kiln_bench::audio::{
    BLOCKS, FundspPeer, Limit, SECOND, fundsp_peer, kiln_render, kiln_stream, rms,
};
use kiln_bench::summary::{Plan, bench_mode, loadavg, time_runs};
use kiln_core::eval::StreamingEvaluator;
use std::time::Duration;

/// How the summary measures: 15 repetitions of about 20 ms (a run takes milliseconds, so
/// two single runs estimate its time).
const PLAN: Plan = Plan {
    reps: 15,
    target: Duration::from_millis(20),
    max_runs: 1_000,
    probes: 2,
};

/// The limit's first second: what every check compares with.
struct Reference {
    samples: Vec<f64>,
    rms: f64,
}

impl Reference {
    fn new() -> Self {
        let mut samples = vec![0.0; SECOND];
        Limit::new().process(&mut samples);
        let rms = rms(&samples);
        Reference { samples, rms }
    }

    /// The largest absolute difference from the reference, and the number of samples equal
    /// to it bit for bit.
    fn compare(&self, got: &[f64]) -> (f64, usize) {
        let err = got
            .iter()
            .zip(&self.samples)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        let same = got
            .iter()
            .zip(&self.samples)
            .filter(|(a, b)| a.to_bits() == b.to_bits())
            .count();
        (err, same)
    }
}

/// One contender at one block size.
trait Render {
    /// Render the next second into the variant's buffer.
    fn second(&mut self);
    /// Back to the start.
    fn reset(&mut self);
    /// The last rendered second.
    fn out(&self) -> &[f64];
}

struct LimitRun {
    block: usize,
    limit: Limit,
    out: Vec<f64>,
}

impl Render for LimitRun {
    fn second(&mut self) {
        for chunk in self.out.chunks_mut(self.block) {
            self.limit.process(chunk);
        }
    }
    fn reset(&mut self) {
        self.limit = Limit::new();
    }
    fn out(&self) -> &[f64] {
        &self.out
    }
}

struct FundspRun<X: AudioNode<Inputs = U0, Outputs = U1>> {
    block: usize,
    peer: FundspPeer<X>,
    out: Vec<f64>,
}

impl<X: AudioNode<Inputs = U0, Outputs = U1>> Render for FundspRun<X> {
    fn second(&mut self) {
        if self.block == 1 {
            self.peer.tick(&mut self.out);
        } else {
            for chunk in self.out.chunks_mut(self.block) {
                self.peer.process(chunk);
            }
        }
    }
    fn reset(&mut self) {
        self.peer.reset();
    }
    fn out(&self) -> &[f64] {
        &self.out
    }
}

struct KilnRun {
    stream: StreamingEvaluator,
    out: Vec<f64>,
}

impl Render for KilnRun {
    fn second(&mut self) {
        kiln_render(&mut self.stream, &mut self.out).expect("the stream renders");
    }
    fn reset(&mut self) {
        self.stream.reset();
    }
    fn out(&self) -> &[f64] {
        &self.out
    }
}

/// What a contender's output must satisfy.
#[derive(Clone, Copy, PartialEq)]
enum Tolerance {
    /// Within 1e-9 of the limit (Kiln; bit-identical expected).
    Exact,
    /// Within 1e-3 of the limit and RMS within 10% (fundsp, f32 between nodes).
    F32,
}

/// A named variant.
struct Variant {
    contender: &'static str,
    block: usize,
    tol: Tolerance,
    r: Box<dyn Render>,
}

impl Variant {
    fn time(&mut self, n: u64) -> Duration {
        time_runs(n, || {
            self.r.second();
            self.r.out().last().copied()
        })
    }

    /// Reset, render the first second, compare with the reference; returns (max |diff|,
    /// samples bit-equal). The variant then goes on from one second in.
    fn check(&mut self, reference: &Reference, when: &str) -> (f64, usize) {
        self.r.reset();
        self.r.second();
        let out = self.r.out();
        let (err, same) = reference.compare(out);
        let name = format!("{}/block{} ({when})", self.contender, self.block);
        assert!(out.iter().all(|v| v.is_finite()), "{name}: not finite");
        match self.tol {
            Tolerance::Exact => assert!(err <= 1e-9, "{name}: max |diff| from the limit {err}"),
            Tolerance::F32 => {
                let r = rms(out);
                assert!(err < 1e-3, "{name}: max |diff| from the limit {err}");
                assert!(
                    (r / reference.rms - 1.0).abs() < 0.10,
                    "{name}: rms {r} vs the limit's {}",
                    reference.rms
                );
            }
        }
        (err, same)
    }
}

fn variants() -> Vec<Variant> {
    let mut v = vec![];
    for block in BLOCKS {
        v.push(Variant {
            contender: "kiln",
            block,
            tol: Tolerance::Exact,
            r: Box::new(KilnRun {
                stream: kiln_stream(block).unwrap_or_else(|e| panic!("kiln stream: {e}")),
                out: vec![0.0; SECOND],
            }),
        });
        v.push(Variant {
            contender: "fundsp",
            block,
            tol: Tolerance::F32,
            r: Box::new(FundspRun {
                block,
                peer: fundsp_peer(),
                out: vec![0.0; SECOND],
            }),
        });
        v.push(Variant {
            contender: "limit",
            block,
            tol: Tolerance::Exact,
            r: Box::new(LimitRun {
                block,
                limit: Limit::new(),
                out: vec![0.0; SECOND],
            }),
        });
    }
    v
}

fn check_all(vs: &mut [Variant], reference: &Reference, when: &str) -> Vec<(f64, usize)> {
    vs.iter_mut().map(|v| v.check(reference, when)).collect()
}

fn criterion_groups(c: &mut Criterion, vs: &mut [Variant]) {
    for block in BLOCKS {
        let mut g = c.benchmark_group(format!("audio_block{block}"));
        g.throughput(Throughput::Elements(SECOND as u64));
        for v in vs.iter_mut().filter(|v| v.block == block) {
            g.bench_function(v.contender, |b| b.iter_custom(|n| v.time(n)));
        }
        g.finish();
    }
}

fn summary(vs: &mut [Variant], reference: &Reference, checks: &[(f64, usize)]) {
    let load_start = loadavg();
    // The median ns per run of every variant, interleaved repetition by repetition.
    let m = PLAN.medians(vs.len(), |i, n| vs[i].time(n));
    let after = check_all(vs, reference, "after summary");
    PLAN.print_opening(
        &load_start,
        &format!("; one run renders 1 s = {SECOND} samples at 48 kHz"),
    );
    println!(
        "| block | Kiln ms | fundsp ms | limit ms | Kiln / fundsp | Kiln / limit | \
         Kiln × real time | fundsp × real time | limit × real time |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let at = |contender: &str, block: usize| {
        vs.iter()
            .position(|v| v.contender == contender && v.block == block)
            .unwrap_or_else(|| panic!("no variant {contender}/{block}"))
    };
    for block in BLOCKS {
        let (k, f, l) = (
            m[at("kiln", block)],
            m[at("fundsp", block)],
            m[at("limit", block)],
        );
        let rt = |ns: f64| 1e9 / ns;
        println!(
            "| {block} | {:.3} | {:.3} | {:.3} | {:.2} | {:.2} | {:.0} | {:.0} | {:.0} |",
            k / 1e6,
            f / 1e6,
            l / 1e6,
            k / f,
            k / l,
            rt(k),
            rt(f),
            rt(l)
        );
    }
    println!();
    println!("Agreement with the limit over the first second (max |diff|, samples bit-identical):");
    for ((v, (err, same)), (err2, same2)) in vs.iter().zip(checks).zip(&after) {
        println!(
            "  {}/block{}: {err:.3e}, {same}/{SECOND} (after the summary: {err2:.3e}, {same2})",
            v.contender, v.block
        );
    }
    println!();
}

fn main() {
    let reference = Reference::new();
    let mut vs = variants();
    let setup = check_all(&mut vs, &reference, "setup");
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    criterion_groups(&mut c, &mut vs);
    c.final_summary();
    check_all(&mut vs, &reference, "after criterion");
    // Only under `cargo bench` (see `bench_mode`): not as a smoke test, nor when profiling.
    if bench_mode() {
        summary(&mut vs, &reference, &setup);
    }
}
