//! The oscillators against their definitions: phase arithmetic, the sine polynomial, bounds,
//! duty and wrap of saw and square, band limiting, noise, bad params and the processor contract.

use super::*;
use crate::testkit::{SR, Setup, bits, check_contract, run};
use kiln_core::op::PortIndex;

fn tone(n: usize) -> Vec<f64> {
    // A slowly swept frequency, some negative, to exercise the live-freq path.
    (0..n)
        .map(|i| 300.0 + 2000.0 * ((i as f64) * 0.001).sin() - 100.0 * (i % 3) as f64)
        .collect()
}

#[test]
fn phase_increment_matches_the_formula() {
    let reference =
        |f: f64, sr: f64| ((f / sr).rem_euclid(1.0) * 4294967296.0).round() as u64 as u32;
    for &f in &[
        0.0,
        -0.0,
        1.0,
        440.0,
        1e-9,
        -1e-9,
        -440.0,
        24_000.0,
        47_999.99,
        48_000.0,
        96_000.5,
        -123_456.7,
        1e12,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.5 / 4294967296.0,
    ] {
        assert_eq!(phase_increment(f, SR), reference(f, SR), "freq {f}");
    }
    for k in 0..10_000u32 {
        let f = k as f64 * 3.7 - 1000.0;
        assert_eq!(phase_increment(f, SR), reference(f, SR), "freq {f}");
    }
    assert_eq!(phase_start(0.25), 1 << 30);
    assert_eq!(phase_start(1.0), 0);
}

#[test]
fn sine_is_within_1e9_of_std() {
    let mut worst = 0.0f64;
    let mut p: u32 = 0;
    for _ in 0..2_000_000 {
        let x = std::f64::consts::TAU * p as f64 / TWO32;
        worst = worst.max((sine(p) - x.sin()).abs());
        p = p.wrapping_add(2_147_483_647 / 999_983);
    }
    for p in [
        0u32,
        1,
        1 << 30,
        1 << 31,
        3 << 30,
        u32::MAX,
        (1 << 30) - 1,
        (1 << 30) + 1,
    ] {
        let x = std::f64::consts::TAU * p as f64 / TWO32;
        worst = worst.max((sine(p) - x.sin()).abs());
    }
    assert!(worst < 1e-9, "worst error {worst}");
    assert!(sine(1 << 30) <= 1.0 + 1e-10 && sine(1 << 30) > 1.0 - 1e-10);
}

#[test]
fn sine_osc_matches_phase_formula() {
    let s = Setup::new("osc.sine")
        .constant("freq", 440.0)
        .param("phase", 0.125);
    let out = run(&s, 4800, 64);
    let inc = phase_increment(440.0, SR);
    let mut p = phase_start(0.125);
    for (n, &y) in out.iter().enumerate() {
        assert_eq!(y.to_bits(), sine(p).to_bits(), "sample {n}");
        let exact = (std::f64::consts::TAU * p as f64 / TWO32).sin();
        assert!((y - exact).abs() < 1e-9, "sample {n}");
        // The rounded increment drifts from 440 Hz by under 2^-33 cycle per sample.
        let t = 0.125 + 440.0 * n as f64 / SR;
        assert!(
            (y - (std::f64::consts::TAU * t).sin()).abs() < 1e-5,
            "sample {n}"
        );
        p = p.wrapping_add(inc);
    }
}

#[test]
fn sine_live_freq_equals_constant_freq() {
    let c = Setup::new("osc.sine")
        .constant("freq", 1234.5)
        .constant("amp", 0.5);
    let l = Setup::new("osc.sine")
        .live("freq", vec![1234.5])
        .live("amp", vec![0.5]);
    assert_eq!(bits(&run(&c, 1000, 64)), bits(&run(&l, 1000, 64)));
}

#[test]
fn oscillators_keep_the_contract() {
    for op in ["osc.sine", "osc.saw", "osc.square"] {
        check_contract(&Setup::new(op).constant("freq", 997.0), 3000);
        check_contract(
            &Setup::new(op)
                .live("freq", tone(3000))
                .live("amp", vec![0.5, -1.0, 0.25])
                .param("phase", 0.3),
            3000,
        );
    }
    check_contract(&Setup::new("osc.noise"), 3000);
    check_contract(&Setup::new("osc.noise").live("amp", tone(50)), 3000);
}

#[test]
fn saw_and_square_are_bounded() {
    for op in ["osc.saw", "osc.square"] {
        for f in [
            1.0, 55.0, 440.0, 3000.0, 11_025.0, 20_000.0, 23_999.0, -700.0,
        ] {
            for duty in [0.5, 0.1, 0.9, 0.01] {
                let mut s = Setup::new(op).constant("freq", f);
                if op == "osc.square" {
                    s = s.param("duty", duty);
                }
                for (n, y) in run(&s, 5000, 64).into_iter().enumerate() {
                    assert!(y.abs() <= 1.0 + 1e-12, "{op} f={f} duty={duty} [{n}] = {y}");
                }
            }
        }
    }
}

#[test]
fn square_duty_sets_the_mean() {
    for duty in [0.25, 0.5, 0.8] {
        // 100 Hz at 48 kHz: exactly 480 samples per cycle, 10 cycles.
        let s = Setup::new("osc.square")
            .constant("freq", 100.0)
            .param("duty", duty);
        let out = run(&s, 4800, 64);
        let mean = out.iter().sum::<f64>() / out.len() as f64;
        assert!(
            (mean - (2.0 * duty - 1.0)).abs() < 1e-3,
            "duty {duty}: {mean}"
        );
        let high = out.iter().filter(|&&y| y > 0.99).count() as f64 / 4800.0;
        assert!((high - duty).abs() < 0.01, "duty {duty}: high {high}");
    }
}

#[test]
fn saw_rises_and_wraps() {
    let out = run(&Setup::new("osc.saw").constant("freq", 100.0), 480, 480);
    // Mid-cycle the saw is 2t - 1 (no BLEP correction there); the rounded increment puts
    // the phase within 1e-7 cycle of n / 480.
    assert!(out[240].abs() < 1e-6);
    assert!((out[120] + 0.5).abs() < 1e-6);
    assert!(out[100] < out[200] && out[200] < out[300]);
}

/// Energy of `x` at frequency `f` (a single DFT bin).
fn bin_power(x: &[f64], f: f64) -> f64 {
    let (mut re, mut im) = (0.0, 0.0);
    for (n, &v) in x.iter().enumerate() {
        let w = std::f64::consts::TAU * f * n as f64 / SR;
        re += v * w.cos();
        im += v * w.sin();
    }
    (re * re + im * im) / (x.len() as f64).powi(2)
}

#[test]
fn polyblep_reduces_aliasing() {
    // A 3100 Hz saw at 48 kHz: its 8th harmonic (24.8 kHz) folds back to 23.2 kHz, which
    // is no harmonic. Compare the power there with a naive (aliasing) saw.
    let f = 3100.0;
    let n = 48_000;
    let blep = run(&Setup::new("osc.saw").constant("freq", f), n, 256);
    let inc = phase_increment(f, SR);
    let mut p = 0u32;
    let naive: Vec<f64> = (0..n)
        .map(|_| {
            let t = p as f64 / TWO32;
            p = p.wrapping_add(inc);
            2.0 * t - 1.0
        })
        .collect();
    let alias = 48_000.0 - 8.0 * f;
    let (a_blep, a_naive) = (bin_power(&blep, alias), bin_power(&naive, alias));
    assert!(
        a_blep < a_naive / 4.0,
        "alias power {a_blep} vs naive {a_naive}"
    );
    // The fundamental is kept.
    let (f_blep, f_naive) = (bin_power(&blep, f), bin_power(&naive, f));
    assert!((f_blep / f_naive - 1.0).abs() < 0.1);
}

#[test]
fn noise_is_deterministic_per_seed_and_node() {
    let a = run(&Setup::new("osc.noise").node("n1").seed(7), 4000, 64);
    let b = run(&Setup::new("osc.noise").node("n1").seed(7), 4000, 1);
    let c = run(&Setup::new("osc.noise").node("n2").seed(7), 4000, 64);
    let d = run(&Setup::new("osc.noise").node("n1").seed(8), 4000, 64);
    assert_eq!(bits(&a), bits(&b));
    assert_ne!(bits(&a), bits(&c));
    assert_ne!(bits(&a), bits(&d));
    assert!(a.iter().all(|&x| (-1.0..1.0).contains(&x)));
    let mean = a.iter().sum::<f64>() / a.len() as f64;
    let var = a.iter().map(|x| x * x).sum::<f64>() / a.len() as f64;
    assert!(mean.abs() < 0.05, "mean {mean}");
    assert!((var - 1.0 / 3.0).abs() < 0.03, "variance {var}");
}

#[test]
fn bad_params_are_named() {
    let e = Setup::new("osc.sine")
        .param("phase", f64::NAN)
        .refused_at(PortIndex::Param(0));
    assert!(e.message.contains("finite"), "{}", e.message);
    let e = Setup::new("osc.square")
        .param("duty", 1.5)
        .refused_at(PortIndex::Param(1));
    assert!(e.message.contains("from 0 to 1"), "{}", e.message);
    Setup::new("osc.saw")
        .constant("freq", f64::INFINITY)
        .refused_at(PortIndex::Input(0));
    Setup::new("osc.sine").sr(0.0).refused();
}
