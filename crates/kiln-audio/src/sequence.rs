//! `signal.sequence`: a fixed list of samples, played once (then silence) or looped.

use kiln_core::op::{Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::signal::{SignalProc, Words};
use kiln_core::value::Value;

/// The `signal.sequence` processor: outputs its values one per sample, then 0.0 (or starts
/// over, when looping).
#[derive(Clone, Debug)]
pub struct Sequence {
    values: Vec<f64>,
    looping: bool,
    /// Samples output so far (modulo the length when looping).
    pos: u64,
}

impl Sequence {
    /// A sequence of `values`; `looping`: repeat them forever.
    pub fn new(values: Vec<f64>, looping: bool) -> Self {
        Sequence {
            values,
            looping,
            pos: 0,
        }
    }
}

impl SignalProc for Sequence {
    fn process(&mut self, _inputs: &[&[f64]], out: &mut [f64]) {
        let len = self.values.len();
        let mut done = 0;
        while done < out.len() {
            let rest = &mut out[done..];
            if (self.pos as usize) < len {
                let start = self.pos as usize;
                let n = rest.len().min(len - start);
                rest[..n].copy_from_slice(&self.values[start..start + n]);
                done += n;
                self.pos += n as u64;
                if self.looping && self.pos as usize == len {
                    self.pos = 0;
                }
            } else {
                // Past the end (or empty): silence.
                rest.fill(0.0);
                self.pos = self.pos.saturating_add(rest.len() as u64);
                done = out.len();
            }
        }
    }
    fn reset(&mut self) {
        self.pos = 0;
    }
    fn save(&self, words: &mut Vec<u64>) {
        words.push(self.pos);
    }
    fn load(&mut self, words: &[u64]) -> Result<(), String> {
        let pos = Words::exact(words, 1)?.u64();
        if self.looping && !self.values.is_empty() && pos >= self.values.len() as u64 {
            return Err(format!(
                "sequence position {pos} is outside the loop of {}",
                self.values.len()
            ));
        }
        self.pos = pos;
        Ok(())
    }
}

/// The rule of the `values` param: a list of finite numbers.
fn values_rule(v: &Value, _env: &RuleEnv) -> Result<(), Violation> {
    let expected = "a list of finite numbers";
    let Some(list) = v.as_list() else {
        return Err(Violation::new(expected, v.type_name()));
    };
    for (k, v) in list.iter().enumerate() {
        match v.as_f64() {
            Some(x) if x.is_finite() => {}
            Some(x) => return Err(Violation::new(expected, format!("{x} at index {k}"))),
            None => {
                return Err(Violation::new(
                    expected,
                    format!("a {} at index {k}", v.type_name()),
                ));
            }
        }
    }
    Ok(())
}

/// Outputs a list of values, one per sample, then 0.0 (or the list again, when `loop` is
/// set): excitations, test signals, fixtures.
#[kiln_core::op("signal.sequence", signal, out = "the values, one per sample")]
fn sequence(
    #[param(
        "the samples (finite numbers)",
        default = Vec::<Value>::new(),
        rule = Rule::Check(values_rule)
    )]
    values: &[Value],
    #[param("repeat the values forever instead of falling silent", default = false)] r#loop: bool,
) -> Sequence {
    // The rule holds: a list of finite numbers.
    Sequence::new(values.iter().filter_map(Value::as_f64).collect(), r#loop)
}

/// Register `signal.sequence`.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register_signal(SequenceOp::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{Setup, check_contract, run};
    use kiln_core::op::PortIndex;

    fn list(v: &[f64]) -> Value {
        Value::List(
            v.iter()
                .map(|&x| Value::Float(x))
                .collect::<Vec<_>>()
                .into(),
        )
    }

    #[test]
    fn sequence_plays_then_falls_silent() {
        let s = Setup::new("signal.sequence").param("values", list(&[1.0, 2.0, 3.0]));
        let out = check_contract(&s, 10);
        assert_eq!(out, vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let v: Vec<f64> = (0..100).map(|i| i as f64 * 0.5).collect();
        check_contract(
            &Setup::new("signal.sequence").param("values", list(&v)),
            300,
        );
        assert_eq!(run(&Setup::new("signal.sequence"), 5, 2), vec![0.0; 5]);
    }

    #[test]
    fn sequence_loops() {
        let s = Setup::new("signal.sequence")
            .param("values", list(&[1.0, 2.0, 3.0]))
            .param("loop", true);
        let out = check_contract(&s, 200);
        for (n, &y) in out.iter().enumerate() {
            assert_eq!(y, (n % 3 + 1) as f64);
        }
        let s = Setup::new("signal.sequence").param("loop", true);
        assert_eq!(run(&s, 5, 2), vec![0.0; 5]);
        // Ints are numbers too.
        let s = Setup::new("signal.sequence").param(
            "values",
            Value::List(vec![Value::Int(2), Value::Float(-1.0)].into()),
        );
        assert_eq!(run(&s, 3, 1), vec![2.0, -1.0, 0.0]);
    }

    #[test]
    fn bad_values_are_named() {
        let values = |v: Value| Setup::new("signal.sequence").param("values", v);
        let e = values(list(&[1.0, f64::NAN])).refused_at(PortIndex::Param(0));
        assert!(e.message.contains("index 1"), "{}", e.message);
        // A string in the list; a float, not a list.
        values(Value::List(vec![Value::str("x")].into())).refused_at(PortIndex::Param(0));
        values(Value::Float(3.0)).refused_at(PortIndex::Param(0));
    }
}
