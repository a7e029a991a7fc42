//! `env.adsr`: a linear attack–decay–sustain–release envelope driven by a gate signal.

use crate::{input, sample_rate};
use kiln_core::op::port::SignalIn;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::signal::{SignalCall, SignalProc, Words};

/// The shape of an [`Adsr`] envelope.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdsrParams {
    /// Seconds to rise from 0 to 1 (a restart from a higher level takes proportionally less).
    pub attack: f64,
    /// Seconds to fall from 1 to `sustain`.
    pub decay: f64,
    /// The level held while the gate stays on, 0 to 1.
    pub sustain: f64,
    /// Seconds to fall to 0 from the level the gate turned off at.
    pub release: f64,
}

/// Envelope stages.
const IDLE: u64 = 0;
const ATTACK: u64 = 1;
const DECAY: u64 = 2;
const SUSTAIN: u64 = 3;
const RELEASE: u64 = 4;

/// How close to a segment's target counts as there (see [`Adsr::tick`]).
const ENDS: f64 = 1e-9;

/// The `env.adsr` processor. The gate is on while above 0.5. A rising gate edge (re)starts
/// the attack from the current level; a falling edge starts the release from the current
/// level. Segments are linear; each sample outputs the level after that sample's step.
#[derive(Clone, Debug)]
pub struct Adsr {
    attack_step: f64,
    decay_step: f64,
    sustain: f64,
    release_samples: f64,
    stage: u64,
    level: f64,
    gate: bool,
    release_step: f64,
}

/// The per-sample step covering `amount` in `samples` samples (a jump when no samples).
fn step(amount: f64, samples: f64) -> f64 {
    if samples > 0.0 {
        amount / samples
    } else {
        f64::INFINITY
    }
}

impl Adsr {
    /// An envelope of shape `p` (callers check times >= 0 and sustain in [0, 1]).
    pub fn new(p: AdsrParams, sample_rate: f64) -> Self {
        Adsr {
            attack_step: step(1.0, p.attack * sample_rate),
            decay_step: step(1.0 - p.sustain, p.decay * sample_rate),
            sustain: p.sustain,
            release_samples: p.release * sample_rate,
            stage: IDLE,
            level: 0.0,
            gate: false,
            release_step: 0.0,
        }
    }

    #[inline]
    fn tick(&mut self, gate: f64) -> f64 {
        let on = gate > 0.5;
        if on != self.gate {
            self.gate = on;
            if on {
                self.stage = ATTACK;
            } else {
                self.stage = RELEASE;
                self.release_step = step(self.level, self.release_samples);
            }
        }
        match self.stage {
            // A segment ends on the sample whose level is within rounding of its target: n
            // steps of 1/n add up to 1 only up to rounding (about n ulps), and comparing
            // exactly would hold the level one sample too long. `ENDS` is far above that
            // error and far below a step (a jump of it is inaudible).
            ATTACK => {
                self.level += self.attack_step;
                if self.level >= 1.0 - ENDS {
                    self.level = 1.0;
                    self.stage = DECAY;
                }
            }
            DECAY => {
                self.level -= self.decay_step;
                if self.level <= self.sustain + ENDS {
                    self.level = self.sustain;
                    self.stage = SUSTAIN;
                }
            }
            SUSTAIN => self.level = self.sustain,
            RELEASE => {
                self.level -= self.release_step;
                if self.level <= ENDS {
                    self.level = 0.0;
                    self.stage = IDLE;
                }
            }
            _ => self.level = 0.0,
        }
        self.level
    }
}

impl SignalProc for Adsr {
    fn process(&mut self, inputs: &[&[f64]], out: &mut [f64]) {
        for (o, &g) in out.iter_mut().zip(input(inputs, 0)) {
            *o = self.tick(g);
        }
    }
    fn reset(&mut self) {
        self.stage = IDLE;
        self.level = 0.0;
        self.gate = false;
        self.release_step = 0.0;
    }
    fn save(&self, words: &mut Vec<u64>) {
        words.push(self.stage);
        words.push(self.level.to_bits());
        words.push(self.gate as u64);
        words.push(self.release_step.to_bits());
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        let mut w = Words::exact(words, 4)?;
        let stage = w.u64();
        if stage > RELEASE {
            return Err(format!("unknown envelope stage {stage}"));
        }
        self.stage = stage;
        self.level = w.f64();
        self.gate = w.u64() != 0;
        self.release_step = w.f64();
        Ok(())
    }
}

/// A linear ADSR envelope (level 0 to 1): a rising gate starts the attack from the current
/// level, up to 1, then the decay to `sustain`, held while the gate is on; a falling gate
/// starts the release from the current level to 0.
#[kiln_core::op("env.adsr", signal, out = "the envelope level, 0 to 1")]
fn adsr(
    #[input("on while above 0.5", default = 1.0)] gate: SignalIn,
    #[param("seconds to rise from 0 to 1", default = 0.01, rule = Rule::NON_NEGATIVE)] attack: f64,
    #[param(
        "seconds to fall from 1 to the sustain level",
        default = 0.1,
        rule = Rule::NON_NEGATIVE
    )]
    decay: f64,
    #[param(
        "level held while the gate is on (0 to 1)",
        default = 0.7,
        rule = Rule::between(0.0, 1.0)
    )]
    sustain: f64,
    #[param(
        "seconds to fall to 0 once the gate turns off",
        default = 0.2,
        rule = Rule::NON_NEGATIVE
    )]
    release: f64,
    call: &SignalCall<'_>,
) -> Result<Adsr, OpError> {
    let params = AdsrParams {
        attack,
        decay,
        sustain,
        release,
    };
    Ok(Adsr::new(params, sample_rate(call)?))
}

/// Register `env.adsr`.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register_signal(AdsrOp::new())
}

#[cfg(test)]
mod tests {
    use crate::testkit::{Setup, check_contract, run};
    use kiln_core::op::PortIndex;

    /// On for `on` samples, off for `off`, repeated.
    fn gate(on: usize, off: usize, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| if i % (on + off) < on { 1.0 } else { 0.0 })
            .collect()
    }

    #[test]
    fn adsr_keeps_the_contract() {
        check_contract(&Setup::new("env.adsr"), 6000);
        for (g, [attack, decay, release], n) in [
            (gate(700, 300, 5000), [0.005, 0.01, 0.01], 5000),
            (gate(3, 2, 100), [0.0; 3], 500),
        ] {
            check_contract(
                &Setup::new("env.adsr")
                    .live("gate", g)
                    .param("attack", attack)
                    .param("decay", decay)
                    .param("release", release),
                n,
            );
        }
    }

    #[test]
    fn adsr_reaches_sustain_and_releases() {
        // On for 0.5 s, then off: attack 480 samples, decay 4800, release 9600 at 48 kHz.
        let g = gate(24_000, 1_000_000, 40_000);
        let out = run(&Setup::new("env.adsr").live("gate", g), 40_000, 64);
        assert!((out[0] - 1.0 / 480.0).abs() < 1e-12);
        assert!((out[239] - 0.5).abs() < 1e-9);
        let peak = out.iter().cloned().fold(0.0, f64::max);
        assert_eq!(peak, 1.0);
        assert!((out[479] - 1.0).abs() < 1e-9);
        assert!((out[480 + 2400] - 0.85).abs() < 1e-3);
        assert_eq!(out[6_000], 0.7);
        assert_eq!(out[23_999], 0.7);
        // Release: 0.7 to 0 over 9600 samples, monotonically.
        assert!((out[24_000 + 4_799] - 0.35).abs() < 1e-3);
        for n in 24_000..33_599 {
            assert!(out[n + 1] <= out[n]);
        }
        assert!(out[33_600 + 5..].iter().all(|&x| x == 0.0));
        assert!(out.iter().all(|&x| (0.0..=1.0).contains(&x)));
    }

    #[test]
    fn each_segment_ends_on_the_sample_its_time_says() {
        // At 48 kHz, an attack of n samples reaches 1.0 on sample n - 1 (the level after each
        // sample's step is k/n on sample k - 1) and the decay starts on sample n; the decay to
        // sustain 0.5 over m samples reaches it on sample n + m - 1.
        for n in [2usize, 5, 10, 50, 96, 480, 2400] {
            let m = 7 * n;
            let attack = n as f64 / 48_000.0;
            let decay = m as f64 / 48_000.0;
            let g = gate(10 * n + 100, 1_000_000, 10 * n + 100);
            let out = run(
                &Setup::new("env.adsr")
                    .live("gate", g)
                    .param("attack", attack)
                    .param("decay", decay)
                    .param("sustain", 0.5),
                10 * n + 100,
                64,
            );
            assert!(out[n - 2] < 1.0, "n = {n}: {}", out[n - 2]);
            assert_eq!(out[n - 1], 1.0, "n = {n}");
            assert!(out[n] < 1.0, "n = {n}: the decay starts on sample n");
            assert!(out[n + m - 2] > 0.5, "n = {n}");
            assert_eq!(out[n + m - 1], 0.5, "n = {n}");
        }
    }

    #[test]
    fn adsr_restarts_from_the_current_level() {
        // Gate off during decay, back on during release: no jumps, level stays continuous.
        let mut g = vec![1.0; 1000];
        g.extend(vec![0.0; 300]);
        g.extend(vec![1.0; 2000]);
        let out = run(
            &Setup::new("env.adsr")
                .live("gate", g)
                .param("attack", 0.01)
                .param("decay", 0.05)
                .param("release", 0.02),
            3300,
            7,
        );
        let max_step = 1.0 / 480.0 + 1e-12;
        for w in out.windows(2) {
            assert!((w[1] - w[0]).abs() <= max_step, "jump {} -> {}", w[0], w[1]);
        }
        // Released from the decay level, not from sustain; then rising again.
        assert!(out[1000] < out[999] && out[1300] > out[1299]);
        assert!(out[1299] > 0.0);
    }

    #[test]
    fn bad_params_are_named() {
        let adsr = || Setup::new("env.adsr");
        adsr().param("sustain", 1.5).refused_at(PortIndex::Param(2));
        let e = adsr().param("attack", -0.1).refused_at(PortIndex::Param(0));
        assert!(e.message.contains("at least 0"), "{}", e.message);
        adsr()
            .param("release", f64::NAN)
            .refused_at(PortIndex::Param(3));
    }
}
