//! [`Curve`]: keys of (time, value) with an interpolation, sampled at any time.

use super::kind::{Components, CurveKind, read_value};
use super::segment::{HandlePair, Segment, bezier_segments};
use kiln_core::value::Value;

/// How a curve moves between two keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interp {
    /// Hold the previous key's value until the next key.
    Step,
    /// A straight line between the keys' values.
    Linear,
    /// A cubic Bézier between the keys, through their handles (see the [module
    /// docs](super) for the automatic handles).
    Bezier,
}

impl Interp {
    /// The name in the `interp` param: `step`, `linear` or `bezier`.
    pub fn name(self) -> &'static str {
        match self {
            Interp::Step => "step",
            Interp::Linear => "linear",
            Interp::Bezier => "bezier",
        }
    }
    /// Read a name written by [`Interp::name`].
    pub fn parse(s: &str) -> Option<Interp> {
        match s {
            "step" => Some(Interp::Step),
            "linear" => Some(Interp::Linear),
            "bezier" => Some(Interp::Bezier),
            _ => None,
        }
    }
}

/// A Bézier handle of a key, as an offset from the key: `dt` in time, `dv` in value (of
/// the curve's kind).
#[derive(Clone, Debug, PartialEq)]
pub struct Handle {
    /// Time offset: at most 0 for a left handle, at least 0 for a right one, and no further
    /// than the neighbouring key.
    pub dt: f64,
    /// Value offset, of the curve's kind.
    pub dv: Value,
}

/// One key of a curve.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveKey {
    /// Its time.
    pub time: f64,
    /// Its value: a float, vec2/3/4 or colour (once in a curve, an int reads as a float, a
    /// hex string as a colour and a list of 2 to 4 numbers as a vector).
    pub value: Value,
    /// Explicit Bézier handles (left, right); `None` takes the automatic ones. Only
    /// [`Interp::Bezier`] reads them.
    pub handles: Option<(Handle, Handle)>,
}

impl CurveKey {
    /// A key with automatic handles.
    pub fn new(time: f64, value: impl Into<Value>) -> Self {
        CurveKey {
            time,
            value: value.into(),
            handles: None,
        }
    }
    /// The same key with explicit Bézier handles.
    pub fn with_handles(mut self, left: Handle, right: Handle) -> Self {
        self.handles = Some((left, right));
        self
    }
}

/// Why a curve could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CurveError {
    /// No keys.
    #[error("a curve needs at least one key")]
    Empty,
    /// The `keys` param is not a list.
    #[error("`keys` must be a list of keys, found {0}")]
    NotAList(&'static str),
    /// A key is not of the shape `[t, v]` or `[t, v, left, right]`, or a part of it is not
    /// of a type a curve takes.
    #[error("key {index}: {problem}")]
    BadKey {
        /// The key's position.
        index: usize,
        /// What is wrong.
        problem: String,
    },
    /// A time, value or handle is NaN or infinite.
    #[error("key {index}: the {part} is not a finite number")]
    NotFinite {
        /// The key's position.
        index: usize,
        /// `time`, `value` or `handle`.
        part: &'static str,
    },
    /// A key's time is not after the previous key's.
    #[error(
        "key {index}: time {time} is not after the previous key's {previous} (times must \
         increase strictly)"
    )]
    Unsorted {
        /// The key's position.
        index: usize,
        /// Its time.
        time: f64,
        /// The previous key's time.
        previous: f64,
    },
    /// A key's value (or a handle's) is of another kind than the first key's.
    #[error("key {index}: a {found} in a curve of {expected} values")]
    MixedTypes {
        /// The key's position.
        index: usize,
        /// The first key's kind.
        expected: &'static str,
        /// What this key holds.
        found: &'static str,
    },
    /// A handle's time offset points the wrong way or past the neighbouring key.
    #[error("key {index}: the {side} handle's time offset {dt} must be within {min}..={max}")]
    HandleOutOfRange {
        /// The key's position.
        index: usize,
        /// `left` or `right`.
        side: &'static str,
        /// The offset given.
        dt: f64,
        /// The least allowed.
        min: f64,
        /// The most allowed.
        max: f64,
    },
    /// The `interp` param is not one of `step`, `linear`, `bezier`.
    #[error("unknown interpolation {0} (one of: step, linear, bezier)")]
    BadInterp(String),
}

/// Keys sorted by strictly increasing time, with an interpolation. Before the first key the
/// curve holds the first value, after the last key the last value, and at a key's time its
/// exact value.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    interp: Interp,
    kind: CurveKind,
    keys: Vec<CurveKey>,
    /// Each key's value as components.
    comps: Vec<Components>,
    /// The Bézier segments between keys (empty unless the interpolation is Bézier).
    segments: Vec<Segment>,
}

impl Curve {
    /// A curve through `keys` (checked; see [`CurveError`]).
    pub fn new(interp: Interp, keys: Vec<CurveKey>) -> Result<Curve, CurveError> {
        let first = keys.first().ok_or(CurveError::Empty)?;
        let kind = read_value(&first.value)
            .map(|(k, _)| k)
            .ok_or_else(|| bad_value(0, &first.value))?;
        let mut comps = Vec::with_capacity(keys.len());
        let mut handles = Vec::with_capacity(keys.len());
        let mut norm = Vec::with_capacity(keys.len());
        for (index, key) in keys.iter().enumerate() {
            if !key.time.is_finite() {
                return Err(CurveError::NotFinite {
                    index,
                    part: "time",
                });
            }
            if let Some(prev) = index.checked_sub(1).map(|p| keys[p].time)
                && key.time <= prev
            {
                return Err(CurveError::Unsorted {
                    index,
                    time: key.time,
                    previous: prev,
                });
            }
        }
        for (index, key) in keys.iter().enumerate() {
            let c = components(index, kind, &key.value, "value")?;
            comps.push(c);
            let pair = match &key.handles {
                None => None,
                Some((l, r)) => Some(handle_pair(index, kind, &keys, l, r)?),
            };
            handles.push(pair);
            norm.push(CurveKey {
                time: key.time,
                value: kind.value(c),
                handles: key.handles.as_ref().map(|(l, r)| {
                    let dv =
                        |h: &Handle| read_value(&h.dv).map_or(Value::Empty, |(_, c)| kind.value(c));
                    (
                        Handle {
                            dt: l.dt,
                            dv: dv(l),
                        },
                        Handle {
                            dt: r.dt,
                            dv: dv(r),
                        },
                    )
                }),
            });
        }
        let segments = match interp {
            Interp::Bezier => {
                let times: Vec<f64> = keys.iter().map(|k| k.time).collect();
                bezier_segments(&times, &comps, &handles, kind.width())
            }
            Interp::Step | Interp::Linear => vec![],
        };
        Ok(Curve {
            interp,
            kind,
            keys: norm,
            comps,
            segments,
        })
    }

    /// The interpolation.
    pub fn interp(&self) -> Interp {
        self.interp
    }
    /// The kind of the curve's values.
    pub fn kind(&self) -> CurveKind {
        self.kind
    }
    /// The keys, their values read as the curve's kind (ints as floats, hex strings as
    /// colours, lists of numbers as vectors).
    pub fn keys(&self) -> &[CurveKey] {
        &self.keys
    }

    /// The curve's value at time `t` (a NaN time gives the first value).
    pub fn sample(&self, t: f64) -> Value {
        let keys = &self.keys;
        let last = keys.len() - 1;
        if t.is_nan() || t <= keys[0].time {
            return keys[0].value.clone();
        }
        if t >= keys[last].time {
            return keys[last].value.clone();
        }
        // keys[k].time <= t < keys[k + 1].time, with k < last.
        let k = keys.partition_point(|key| key.time <= t) - 1;
        let (t0, t1) = (keys[k].time, keys[k + 1].time);
        if t == t0 {
            return keys[k].value.clone();
        }
        match self.interp {
            Interp::Step => keys[k].value.clone(),
            Interp::Linear => {
                let u = (t - t0) / (t1 - t0);
                let (a, b) = (self.comps[k], self.comps[k + 1]);
                self.kind
                    .value(std::array::from_fn(|i| a[i] + (b[i] - a[i]) * u))
            }
            Interp::Bezier => self
                .kind
                .value(self.segments[k].eval(t0, t1, t, self.kind.width())),
        }
    }
}

fn bad_value(index: usize, v: &Value) -> CurveError {
    CurveError::BadKey {
        index,
        problem: format!(
            "a value must be a float, a vec2/3/4 or a colour, found {}",
            v.type_name()
        ),
    }
}

/// `v` as components of `kind`, or why not.
fn components(
    index: usize,
    kind: CurveKind,
    v: &Value,
    part: &'static str,
) -> Result<Components, CurveError> {
    let (k, c) = read_value(v).ok_or_else(|| bad_value(index, v))?;
    if k != kind {
        return Err(CurveError::MixedTypes {
            index,
            expected: kind.value_type().name(),
            found: k.value_type().name(),
        });
    }
    if c.iter().any(|x| !x.is_finite()) {
        return Err(CurveError::NotFinite { index, part });
    }
    Ok(c)
}

/// Key `index`'s explicit handles as components, their time offsets checked.
fn handle_pair(
    index: usize,
    kind: CurveKind,
    keys: &[CurveKey],
    left: &Handle,
    right: &Handle,
) -> Result<HandlePair, CurveError> {
    let t = keys[index].time;
    let before = index
        .checked_sub(1)
        .map_or(f64::NEG_INFINITY, |p| keys[p].time - t);
    let after = keys.get(index + 1).map_or(f64::INFINITY, |n| n.time - t);
    let check = |h: &Handle, side: &'static str, min: f64, max: f64| {
        if !h.dt.is_finite() {
            return Err(CurveError::NotFinite {
                index,
                part: "handle",
            });
        }
        if !(min..=max).contains(&h.dt) {
            return Err(CurveError::HandleOutOfRange {
                index,
                side,
                dt: h.dt,
                min,
                max,
            });
        }
        Ok((h.dt, components(index, kind, &h.dv, "handle")?))
    };
    Ok((
        check(left, "left", before, 0.0)?,
        check(right, "right", 0.0, after)?,
    ))
}
