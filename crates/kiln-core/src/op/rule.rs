//! Rules: the values a param or input accepts beyond its type (a range, a list of choices,
//! a check of its own), declared on its [`ParamSpec`](super::ParamSpec) or
//! [`InputSpec`](super::InputSpec), and an op-wide rule over all its params together
//! ([`OpSpec::params_rule`](super::OpSpec::params_rule)).
//!
//! One function applies them: [`check_params`] and [`check_inputs`]. Validation calls it on
//! the params and inline constants of a graph, and the evaluators call it before a node runs
//! (params once per plan, wired input values at every run; a signal op's processor is not
//! built when they fail), so `kiln validate` and `kiln run` refuse the same values with the
//! same message: ``expected an int from 1 to 16384, found 0``.

use super::{OpError, OpSpec};
use crate::value::Value;
use std::fmt;
use std::ops::Bound;

/// Why a value breaks a rule: what was expected and what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// What the rule accepts, e.g. `an int from 1 to 16384`.
    pub expected: String,
    /// What the value is, e.g. `0`.
    pub found: String,
}

impl Violation {
    /// A violation: `expected`, `found`.
    pub fn new(expected: impl Into<String>, found: impl Into<String>) -> Self {
        Violation {
            expected: expected.into(),
            found: found.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, found {}", self.expected, self.found)
    }
}

/// What a rule may know of the run besides the value: the sample rate of the node's clock
/// domain, for rules of signal ops that depend on it (a cutoff below Nyquist). Without one,
/// such a rule checks only what does not depend on it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RuleEnv {
    /// Samples per second of the node's clock domain, when known.
    pub sample_rate: Option<f64>,
}

impl RuleEnv {
    /// An environment that knows the sample rate.
    pub fn at_rate(sample_rate: f64) -> Self {
        RuleEnv {
            sample_rate: Some(sample_rate),
        }
    }
}

/// A rule's own check: `Ok` or why the value breaks it.
pub type CheckFn = fn(&Value, &RuleEnv) -> Result<(), Violation>;

/// A check over all of an op's params (in declared order, each already past its own rule):
/// `Err((param index, violation))` names the param it blames.
pub type ParamsCheck = fn(&[Value], &RuleEnv) -> Result<(), (usize, Violation)>;

/// What values a param or input accepts beyond its type.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// An int from `min` to `max` (both included).
    Ints {
        /// Smallest accepted.
        min: i64,
        /// Largest accepted.
        max: i64,
    },
    /// A finite number (int or float) within the bounds.
    Number {
        /// Lower bound.
        min: Bound<f64>,
        /// Upper bound.
        max: Bound<f64>,
    },
    /// A number, vector or colour whose every component is finite.
    Finite,
    /// A string or list that is not empty.
    NotEmpty,
    /// A string among these.
    OneOf(&'static [&'static str]),
    /// A check of the op's own (the colour stops of a ramp, say).
    Check(CheckFn),
}

impl Rule {
    /// An int of at least `min`.
    pub const fn at_least(min: i64) -> Rule {
        Rule::Ints { min, max: i64::MAX }
    }
    /// A finite number from `min` to `max`, both included.
    pub const fn between(min: f64, max: f64) -> Rule {
        Rule::Number {
            min: Bound::Included(min),
            max: Bound::Included(max),
        }
    }
    /// A finite number of at least 0.
    pub const NON_NEGATIVE: Rule = Rule::Number {
        min: Bound::Included(0.0),
        max: Bound::Unbounded,
    };
    /// A finite number above 0.
    pub const POSITIVE: Rule = Rule::Number {
        min: Bound::Excluded(0.0),
        max: Bound::Unbounded,
    };

    /// What the rule accepts, as a listing shows it (`an int from 1 to 64`); `None` for an
    /// op's own check, which says what it wants only of a value it refuses.
    pub fn describe(&self) -> Option<String> {
        match *self {
            Rule::Ints { min, max } => Some(int_range(min, max)),
            Rule::Number { min, max } => Some(number_range(min, max)),
            Rule::Finite => Some("finite components".into()),
            Rule::NotEmpty => Some("not empty".into()),
            Rule::OneOf(choices) => {
                let list: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
                Some(format!("one of {}", list.join(", ")))
            }
            Rule::Check(_) => None,
        }
    }

    /// Whether `v` follows the rule, or why not.
    pub fn check(&self, v: &Value, env: &RuleEnv) -> Result<(), Violation> {
        match *self {
            Rule::Ints { min, max } => match v.as_i64() {
                Some(i) if (min..=max).contains(&i) => Ok(()),
                Some(i) => Err(Violation::new(int_range(min, max), i.to_string())),
                None => Err(Violation::new(int_range(min, max), v.type_name())),
            },
            Rule::Number { min, max } => {
                let expected = || number_range(min, max);
                let Some(x) = v.as_f64() else {
                    return Err(Violation::new(expected(), v.type_name()));
                };
                let above = match min {
                    Bound::Included(m) => x >= m,
                    Bound::Excluded(m) => x > m,
                    Bound::Unbounded => true,
                };
                let below = match max {
                    Bound::Included(m) => x <= m,
                    Bound::Excluded(m) => x < m,
                    Bound::Unbounded => true,
                };
                if x.is_finite() && above && below {
                    Ok(())
                } else {
                    Err(Violation::new(expected(), number(x)))
                }
            }
            Rule::Finite => finite(v),
            Rule::NotEmpty => {
                let empty = match v {
                    Value::Str(s) => s.is_empty(),
                    Value::List(l) => l.is_empty(),
                    _ => false,
                };
                if empty {
                    Err(Violation::new(
                        format!("a {} that is not empty", v.type_name()),
                        "an empty one",
                    ))
                } else {
                    Ok(())
                }
            }
            Rule::OneOf(choices) => match v.as_str() {
                Some(s) if choices.contains(&s) => Ok(()),
                other => {
                    let list: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
                    Err(Violation::new(
                        format!("one of {}", list.join(", ")),
                        other.map_or(v.type_name().to_string(), |s| format!("`{s}`")),
                    ))
                }
            },
            Rule::Check(f) => f(v, env),
        }
    }
}

/// How a range of ints reads in a message.
fn int_range(min: i64, max: i64) -> String {
    match (min, max) {
        (i64::MIN, i64::MAX) => "an int".into(),
        (min, i64::MAX) => format!("an int of at least {min}"),
        (i64::MIN, max) => format!("an int of at most {max}"),
        (min, max) => format!("an int from {min} to {max}"),
    }
}

/// How a range of numbers reads in a message.
fn number_range(min: Bound<f64>, max: Bound<f64>) -> String {
    let lo = match min {
        Bound::Included(m) => Some(format!("at least {}", number(m))),
        Bound::Excluded(m) => Some(format!("above {}", number(m))),
        Bound::Unbounded => None,
    };
    let hi = match max {
        Bound::Included(m) => Some(format!("at most {}", number(m))),
        Bound::Excluded(m) => Some(format!("below {}", number(m))),
        Bound::Unbounded => None,
    };
    match (min, max, lo, hi) {
        (Bound::Included(a), Bound::Included(b), _, _) => {
            format!("a finite number from {} to {}", number(a), number(b))
        }
        (_, _, Some(lo), Some(hi)) => format!("a finite number {lo} and {hi}"),
        (_, _, Some(one), None) | (_, _, None, Some(one)) => format!("a finite number {one}"),
        (_, _, None, None) => "a finite number".into(),
    }
}

/// A number as messages print it (`0.5`, `NaN`, `inf`).
pub fn number(x: f64) -> String {
    format!("{x}")
}

/// [`Rule::Finite`].
fn finite(v: &Value) -> Result<(), Violation> {
    let comps: &[f64] = match v {
        Value::Float(x) => std::slice::from_ref(x),
        Value::Int(_) => return Ok(()),
        Value::Vec2(c) => c,
        Value::Vec3(c) => c,
        Value::Vec4(c) => c,
        Value::Color(c) => {
            return match c.iter().find(|x| !x.is_finite()) {
                None => Ok(()),
                Some(_) => Err(Violation::new(
                    "a colour of finite channels",
                    format!("{c:?}"),
                )),
            };
        }
        other => {
            return Err(Violation::new("a finite number", other.type_name()));
        }
    };
    match comps {
        [x] if !x.is_finite() => Err(Violation::new("a finite number", number(*x))),
        [_] => Ok(()),
        many if many.iter().all(|x| x.is_finite()) => Ok(()),
        many => {
            let shown: Vec<String> = many.iter().map(|x| number(*x)).collect();
            Err(Violation::new(
                format!("a {} of finite components", v.type_name()),
                format!("[{}]", shown.join(", ")),
            ))
        }
    }
}

/// Check `params` (one per param of `spec`, in order, defaults filled in) against their
/// rules and then the op's params rule: the first violation as an error naming its param.
pub fn check_params(spec: &OpSpec, params: &[Value], env: &RuleEnv) -> Result<(), OpError> {
    for (i, (p, v)) in spec.params.iter().zip(params).enumerate() {
        if let Some(rule) = &p.rule {
            rule.check(v, env)
                .map_err(|e| OpError::param(i, e.to_string()))?;
        }
    }
    if let Some(f) = spec.params_rule {
        f(params, env).map_err(|(i, e)| OpError::param(i, e.to_string()))?;
    }
    Ok(())
}

/// Check input values (one per input of `spec`, in order) against their rules: the first
/// violation as an error naming its input. Nothing ([`Value::Empty`]: an unpulled lazy
/// input, a signal wired from another signal op) and error values are not checked.
pub fn check_inputs(spec: &OpSpec, inputs: &[Value], env: &RuleEnv) -> Result<(), OpError> {
    for (i, (p, v)) in spec.inputs.iter().zip(inputs).enumerate() {
        if let Some(rule) = &p.rule
            && !matches!(v, Value::Empty | Value::Error(_))
        {
            rule.check(v, env)
                .map_err(|e| OpError::input(i, e.to_string()))?;
        }
    }
    Ok(())
}

/// Whether any param or input of `spec` has a rule, or the op a params rule.
pub fn has_rules(spec: &OpSpec) -> bool {
    spec.params_rule.is_some()
        || spec.params.iter().any(|p| p.rule.is_some())
        || spec.inputs.iter().any(|p| p.rule.is_some())
}

/// Whether any input of `spec` has a rule (checked at every run).
pub fn has_input_rules(spec: &OpSpec) -> bool {
    spec.inputs.iter().any(|p| p.rule.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: Rule, v: Value) -> String {
        r.check(&v, &RuleEnv::default()).unwrap_err().to_string()
    }

    #[test]
    fn messages_say_what_was_expected_and_found() {
        let side = Rule::Ints { min: 1, max: 16 };
        assert!(side.check(&Value::Int(16), &RuleEnv::default()).is_ok());
        assert_eq!(
            msg(side, Value::Int(0)),
            "expected an int from 1 to 16, found 0"
        );
        assert_eq!(
            msg(Rule::at_least(1), Value::Int(-2)),
            "expected an int of at least 1, found -2"
        );
        assert_eq!(
            msg(Rule::POSITIVE, Value::Float(0.0)),
            "expected a finite number above 0, found 0"
        );
        assert_eq!(
            msg(Rule::between(0.0, 1.0), Value::Float(f64::NAN)),
            "expected a finite number from 0 to 1, found NaN"
        );
        assert_eq!(
            msg(Rule::Finite, Value::Vec2([0.0, f64::INFINITY])),
            "expected a vec2 of finite components, found [0, inf]"
        );
        assert_eq!(
            msg(Rule::OneOf(&["a", "b"]), Value::str("c")),
            "expected one of `a`, `b`, found `c`"
        );
        assert_eq!(
            msg(Rule::NotEmpty, Value::str("")),
            "expected a string that is not empty, found an empty one"
        );
        let mixed = Rule::Number {
            min: Bound::Included(0.0),
            max: Bound::Excluded(1.0),
        };
        assert_eq!(
            msg(mixed, Value::Float(1.0)),
            "expected a finite number at least 0 and below 1, found 1"
        );
    }
}
