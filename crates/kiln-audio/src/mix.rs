//! `gain` (a product of two signals) and `mix` (a sum of up to eight).

use crate::{constant, input};
use kiln_core::op::Rule;
use kiln_core::op::port::SignalIn;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::signal::SignalProc;

/// The `gain` processor: `in · gain`, sample by sample.
#[derive(Clone, Debug)]
pub struct Gain {
    gain_live: bool,
}

impl Gain {
    /// A gain; `gain_live`: whether the `gain` input is a wired signal (else a constant, read
    /// once per block).
    pub fn new(gain_live: bool) -> Self {
        Gain { gain_live }
    }
}

impl SignalProc for Gain {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        let x = input(inputs, 0);
        if self.gain_live {
            for ((o, &a), &g) in out.iter_mut().zip(x).zip(input(inputs, 1)) {
                *o = a * g;
            }
        } else {
            let g = constant(inputs, 1, 1.0);
            for (o, &a) in out.iter_mut().zip(x) {
                *o = a * g;
            }
        }
    }
}

/// The names of `mix`'s inputs, in summing order.
pub const MIX_INPUTS: [&str; 8] = ["a", "b", "c", "d", "e", "f", "g", "h"];

/// The `mix` processor: the sum of its inputs in port order, `((a + b) + c) + ...`.
///
/// A constant +0.0 input is skipped when some input is live; one `+ 0.0` at the end then
/// keeps the bits of the full sum (skipping a zero can only change the sign of a zero
/// result, and the full sum, having a +0.0 term, is never -0.0).
#[derive(Clone, Debug)]
pub struct Mix {
    live: [bool; 8],
    any_live: bool,
}

impl Mix {
    /// A mix; `live[i]`: whether input `i` is a wired signal (else a constant, read once per
    /// block).
    pub fn new(live: [bool; 8]) -> Self {
        Mix {
            live,
            any_live: live.iter().any(|&l| l),
        }
    }
}

/// `out = ((t0 + t1) + t2) + t3` over up to four terms (`INIT`), or
/// `out = (((out + t0) + t1) + t2) + t3` (not `INIT`): one pass for up to four inputs. Every
/// term is at least as long as `out`. `INIT` is a const, so no loop branches on it.
#[inline(always)]
fn fused<const INIT: bool>(out: &mut [f64], t: &[&[f64]]) {
    // The first term, added to what `out` holds unless `INIT`.
    let first = |o: f64, a: f64| if INIT { a } else { o + a };
    match t {
        [a] => {
            for (o, &a) in out.iter_mut().zip(*a) {
                *o = first(*o, a);
            }
        }
        [a, b] => {
            for (o, (&a, &b)) in out.iter_mut().zip(a.iter().zip(*b)) {
                *o = first(*o, a) + b;
            }
        }
        [a, b, c] => {
            for (o, ((&a, &b), &c)) in out.iter_mut().zip(a.iter().zip(*b).zip(*c)) {
                *o = (first(*o, a) + b) + c;
            }
        }
        [a, b, c, d] => {
            for (o, (((&a, &b), &c), &d)) in out.iter_mut().zip(a.iter().zip(*b).zip(*c).zip(*d)) {
                *o = ((first(*o, a) + b) + c) + d;
            }
        }
        _ => {}
    }
}

impl Mix {
    /// The common case: every input live, or live and constant +0.0. Sums the live inputs
    /// four at a time; returns false (having written nothing) for any other case.
    #[inline]
    fn process_live(&self, inputs: &[&[f64]], out: &mut [f64]) -> bool {
        let mut terms: [&[f64]; 8] = [&[]; 8];
        let mut k = 0;
        let mut skipped_zero = false;
        for (i, &live) in self.live.iter().enumerate() {
            let x = input(inputs, i);
            if live {
                if x.len() < out.len() {
                    return false;
                }
                terms[k] = x;
                k += 1;
            } else if constant(inputs, i, 0.0).to_bits() == 0 {
                skipped_zero = true;
            } else {
                return false;
            }
        }
        if k == 0 {
            return false;
        }
        let (head, rest) = terms[..k].split_at(k.min(4));
        fused::<true>(out, head);
        for group in rest.chunks(4) {
            fused::<false>(out, group);
        }
        if skipped_zero {
            for o in out.iter_mut() {
                *o += 0.0;
            }
        }
        true
    }
}

impl SignalProc for Mix {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        if self.any_live && self.process_live(inputs, out) {
            return;
        }
        let mut started = false;
        let mut skipped_zero = false;
        for (i, &live) in self.live.iter().enumerate() {
            let x = input(inputs, i);
            if live {
                if started {
                    for (o, &v) in out.iter_mut().zip(x) {
                        *o += v;
                    }
                } else {
                    let n = out.len().min(x.len());
                    out[..n].copy_from_slice(&x[..n]);
                    started = true;
                }
            } else {
                let c = constant(inputs, i, 0.0);
                if self.any_live && c.to_bits() == 0 {
                    skipped_zero = true;
                } else if started {
                    for o in out.iter_mut() {
                        *o += c;
                    }
                } else {
                    out.fill(c);
                    started = true;
                }
            }
        }
        if !started {
            out.fill(0.0);
        } else if skipped_zero {
            for o in out.iter_mut() {
                *o += 0.0;
            }
        }
    }
}

/// Multiplies a signal by a gain (a constant or another signal).
#[kiln_core::op("gain", signal, out = "in · gain")]
fn gain(
    #[input("the signal to scale")] r#in: SignalIn,
    #[input(
        "the factor, per sample",
        default = 1.0,
        rule = Rule::Finite
    )]
    gain: SignalIn,
) -> Gain {
    Gain::new(gain.0.is_none())
}

/// Sums up to eight signals in port order (a + b + c + ...); unwired inputs are 0.
#[kiln_core::op("mix", signal, out = "the sum of the inputs")]
#[allow(clippy::too_many_arguments)] // one per port: `a` to `h`
fn mix(
    #[input("first signal", default = 0.0)] a: SignalIn,
    #[input("second signal", default = 0.0)] b: SignalIn,
    #[input("third signal", default = 0.0)] c: SignalIn,
    #[input("fourth signal", default = 0.0)] d: SignalIn,
    #[input("fifth signal", default = 0.0)] e: SignalIn,
    #[input("sixth signal", default = 0.0)] f: SignalIn,
    #[input("seventh signal", default = 0.0)] g: SignalIn,
    #[input("eighth signal", default = 0.0)] h: SignalIn,
) -> Mix {
    Mix::new([a, b, c, d, e, f, g, h].map(|x| x.0.is_none()))
}

/// Register `gain` and `mix`.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register_signal(GainOp::new())?;
    reg.register_signal(MixOp::new())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{Setup, bits, check_contract, run};

    fn wave(n: usize, k: f64) -> Vec<f64> {
        (0..n).map(|i| ((i as f64) * k).sin() * 0.7).collect()
    }

    #[test]
    fn mix_inputs_are_its_ports() {
        let spec = MixOp::new().spec;
        let names: Vec<String> = spec.inputs.iter().map(|p| p.name.to_string()).collect();
        assert_eq!(names, MIX_INPUTS);
    }

    #[test]
    fn gain_multiplies() {
        let x = wave(500, 0.01);
        let out = check_contract(
            &Setup::new("gain")
                .live("in", x.clone())
                .constant("gain", 0.6),
            500,
        );
        for (o, v) in out.iter().zip(&x) {
            assert_eq!(o.to_bits(), (v * 0.6).to_bits());
        }
        let g = wave(500, 0.003);
        let out = check_contract(
            &Setup::new("gain")
                .live("in", x.clone())
                .live("gain", g.clone()),
            500,
        );
        for ((o, v), w) in out.iter().zip(&x).zip(&g) {
            assert_eq!(o.to_bits(), (v * w).to_bits());
        }
    }

    #[test]
    fn mix_sums_in_port_order() {
        let (a, c, e) = (wave(400, 0.01), wave(400, 0.023), wave(400, 0.051));
        let s = Setup::new("mix")
            .live("a", a.clone())
            .constant("b", 0.125)
            .live("c", c.clone())
            .live("e", e.clone());
        let out = check_contract(&s, 400);
        for i in 0..400 {
            let want = a[i] + 0.125 + c[i] + 0.0 + e[i] + 0.0 + 0.0 + 0.0;
            assert_eq!(out[i].to_bits(), want.to_bits(), "sample {i}");
        }
    }

    #[test]
    fn mix_skipping_zeros_keeps_the_bits_of_negative_zero() {
        // -0.0 + 0.0 = +0.0: the full sum never gives -0.0 when a +0.0 term is present.
        let s = Setup::new("mix").live("c", vec![-0.0, 1.0, -0.0]);
        let out = run(&s, 3, 3);
        assert_eq!(bits(&out), bits(&[0.0, 1.0, 0.0]));
        // Only live inputs, all -0.0: the sum is -0.0.
        let mut s = Setup::new("mix");
        for n in MIX_INPUTS {
            s = s.live(n, vec![-0.0]);
        }
        assert_eq!(bits(&run(&s, 2, 2)), bits(&[-0.0, -0.0]));
        // All constant: the plain sum.
        let s = Setup::new("mix").constant("a", 1.5).constant("h", -0.25);
        assert_eq!(run(&s, 3, 2), vec![1.25; 3]);
        assert_eq!(bits(&run(&Setup::new("mix"), 2, 1)), bits(&[0.0, 0.0]));
    }

    #[test]
    fn mix_of_all_eight_live() {
        let mut s = Setup::new("mix");
        let ws: Vec<Vec<f64>> = (0..8).map(|k| wave(300, 0.01 * (k + 1) as f64)).collect();
        for (n, w) in MIX_INPUTS.iter().zip(&ws) {
            s = s.live(n, w.clone());
        }
        let out = check_contract(&s, 300);
        for i in 0..300 {
            let mut want = ws[0][i];
            for w in &ws[1..] {
                want += w[i];
            }
            assert_eq!(out[i].to_bits(), want.to_bits());
        }
    }

    #[test]
    fn mix_of_every_live_count_sums_in_order() {
        let ws: Vec<Vec<f64>> = (0..8).map(|k| wave(200, 0.013 * (k + 1) as f64)).collect();
        for count in 1..=8 {
            // `count` live inputs spread over the ports, the rest unwired (constant 0).
            let ports: Vec<usize> = (0..8).filter(|p| (p * 5 + count) % 8 < count).collect();
            assert_eq!(ports.len(), count);
            let mut s = Setup::new("mix");
            for &p in &ports {
                s = s.live(MIX_INPUTS[p], ws[p].clone());
            }
            let out = check_contract(&s, 200);
            for i in 0..200 {
                let mut want = 0.0;
                for (p, w) in ws.iter().enumerate() {
                    want += if ports.contains(&p) { w[i] } else { 0.0 };
                }
                assert_eq!(out[i].to_bits(), want.to_bits(), "{count} live, sample {i}");
            }
        }
    }

    #[test]
    fn gain_refuses_a_non_finite_constant() {
        let e = Setup::new("gain")
            .live("in", vec![1.0])
            .constant("gain", f64::NAN)
            .try_build()
            .err()
            .expect("NaN gain refused");
        assert_eq!(e.port, Some(kiln_core::op::PortIndex::Input(1)));
    }
}
