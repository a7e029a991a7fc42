//! Colour ramps.
//!
//! * `image.ramp` — maps each pixel's luminance through a ramp.
//! * `color.ramp` — maps one float through a ramp.
//!
//! Both take a `stops` input (wireable; graph files that set it as a param still load): a
//! list of `[position, colour]` pairs, the colour anything [`Value::as_color`] reads (a colour, vec3, vec4 or `"#rrggbb"` string). Stops are sorted by
//! position (stably, so equal positions keep their order and make a hard edge). Between two
//! stops the colour is interpolated linearly; before the first and after the last it is the
//! end colour.

use crate::field::{Binary, Px, Reg, Step, Tape};
use kiln_core::op::{OpError, Rule, RuleEnv, Violation};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;

/// A parsed, sorted colour ramp.
#[derive(Clone, Debug, PartialEq)]
pub struct Ramp {
    /// `(position, colour)` pairs sorted by position; never empty.
    stops: Vec<(f64, [f32; 4])>,
}

impl Ramp {
    /// Parse a `stops` value. Errors name the offending stop (`stop #2`, counting from 0)
    /// and are reported against param `param`.
    pub fn parse(v: &Value, param: usize) -> Result<Ramp, OpError> {
        parse_stops(v).map_err(|e| OpError::param(param, e.to_string()))
    }

    /// Parse a `stops` value arriving at input `input`; errors name the input and the stop.
    pub fn parse_input(v: &Value, input: usize) -> Result<Ramp, OpError> {
        parse_stops(v).map_err(|e| OpError::input(input, format!("input `stops`: {e}")))
    }

    /// The sorted stops.
    pub fn stops(&self) -> &[(f64, [f32; 4])] {
        &self.stops
    }

    /// The colour at `t`: linear between the stops around it, the end colours outside them.
    /// NaN maps to the first colour.
    pub fn eval(&self, t: f64) -> [f32; 4] {
        let s = &self.stops;
        let first = s[0];
        let last = s[s.len() - 1];
        if t.is_nan() || t <= first.0 {
            return first.1;
        }
        if t >= last.0 {
            return last.1;
        }
        // First stop strictly after t: 1..len, since first.0 < t < last.0.
        let j = s.partition_point(|st| st.0 <= t);
        let (p0, c0) = s[j - 1];
        let (p1, c1) = s[j];
        let f = ((t - p0) / (p1 - p0)) as f32;
        std::array::from_fn(|c| c0[c] + (c1[c] - c0[c]) * f)
    }
}

/// What a `stops` input accepts (see [`stops_rule`]).
pub const STOPS_RULE: Rule = Rule::Check(stops_rule);

/// The rule of the `stops` input: what [`Ramp::parse`] accepts.
pub fn stops_rule(v: &Value, _env: &RuleEnv) -> Result<(), Violation> {
    parse_stops(v).map(drop)
}

/// Parse and sort a `stops` value, or say which stop is wrong and how.
fn parse_stops(v: &Value) -> Result<Ramp, Violation> {
    let list = v
        .as_list()
        .ok_or_else(|| Violation::new("a list of [position, colour] stops", v.type_name()))?;
    if list.is_empty() {
        return Err(Violation::new("at least one stop", "an empty list"));
    }
    let mut stops = Vec::with_capacity(list.len());
    for (i, s) in list.iter().enumerate() {
        let pair = match s.as_list() {
            Some(p) if p.len() == 2 => p,
            Some(p) => {
                return Err(Violation::new(
                    format!("stop #{i} to be [position, colour]"),
                    format!("a list of {} values", p.len()),
                ));
            }
            None => {
                return Err(Violation::new(
                    format!("stop #{i} to be [position, colour]"),
                    s.type_name(),
                ));
            }
        };
        let pos = pair[0].as_f64().ok_or_else(|| {
            Violation::new(
                format!("a number as the position of stop #{i}"),
                pair[0].type_name(),
            )
        })?;
        if !pos.is_finite() {
            return Err(Violation::new(
                format!("a finite position for stop #{i}"),
                pos.to_string(),
            ));
        }
        let color = pair[1].as_color().ok_or_else(|| {
            Violation::new(
                format!("a color, vec3, vec4 or \"#rrggbb\" string as the colour of stop #{i}"),
                match &pair[1] {
                    Value::Str(s) => format!("\"{s}\""),
                    other => other.type_name().to_string(),
                },
            )
        })?;
        stops.push((pos, color));
    }
    // Stable: stops at equal positions keep their order.
    stops.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(Ramp { stops })
}

/// The steps of [`luminance`] on a tape, in the same order of operations (so the same bits).
pub fn luminance_steps(t: &mut Tape<'_>, p: Px) -> Result<Reg, OpError> {
    let mut sum = None;
    for (c, w) in [0.2126, 0.7152, 0.0722].into_iter().enumerate() {
        let k = t.constant(w)?;
        let term = t.binary(Binary::Mul, k, p[c])?;
        sum = Some(match sum {
            None => term,
            Some(s) => t.binary(Binary::Add, s, term)?,
        });
    }
    sum.ok_or_else(|| OpError::new("no channels"))
}

/// Rec. 709 luminance of a pixel's colour channels.
pub fn luminance(p: [f32; 4]) -> f64 {
    0.2126 * p[0] as f64 + 0.7152 * p[1] as f64 + 0.0722 * p[2] as f64
}

/// The default stops: black at 0 to white at 1.
pub fn default_stops() -> Value {
    let stop =
        |pos: f64, c: [f32; 4]| Value::List(Arc::from(vec![Value::Float(pos), Value::Color(c)]));
    Value::List(Arc::from(vec![
        stop(0.0, [0.0, 0.0, 0.0, 1.0]),
        stop(1.0, [1.0, 1.0, 1.0, 1.0]),
    ]))
}

/// Colour ramp: maps each pixel's luminance (0.2126 r + 0.7152 g + 0.0722 b) through the
/// `stops`, interpolating linearly and clamping at the ends; alpha comes from the ramp.
#[kiln_core::op("image.ramp", per_pixel, out = "the coloured image")]
pub fn image_ramp(
    tape: &mut Tape<'_>,
    #[input("the source image")] image: Px,
    #[input(
        "list of [position, colour] stops, e.g. [[0.0, \"#000000\"], [1.0, \"#ffffff\"]]",
        ty = ValueType::List,
        default = default_stops(),
        rule = STOPS_RULE,
        was_param
    )]
    stops: &Value,
) -> Result<Px, OpError> {
    let t = tape;
    let ramp = Ramp::parse_input(stops, 1)?;
    let id = t.add_ramp(ramp)?;
    let lum = luminance_steps(t, image)?;
    let mut px = [0; 4];
    for (c, r) in px.iter_mut().enumerate() {
        *r = t.push(Step::Ramp {
            ramp: id,
            t: lum,
            channel: c as u8,
        })?;
    }
    Ok(px)
}

/// Colour ramp: the colour of `t` in the `stops`, interpolating linearly and clamping at the
/// ends.
#[kiln_core::op("color.ramp", out = "the ramp's colour at t")]
pub fn color_ramp(
    #[input("position looked up in the ramp")] t: f64,
    #[input(
        "list of [position, colour] stops, e.g. [[0.0, \"#000000\"], [1.0, \"#ffffff\"]]",
        ty = ValueType::List,
        default = default_stops(),
        rule = STOPS_RULE,
        was_param
    )]
    stops: &Value,
) -> Result<[f32; 4], OpError> {
    Ok(Ramp::parse_input(stops, 1)?.eval(t))
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(ImageRampOp::new())?;
    reg.register(ColorRampOp::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stops(v: Vec<(f64, &str)>) -> Value {
        Value::List(Arc::from(
            v.into_iter()
                .map(|(p, c)| Value::List(Arc::from(vec![Value::Float(p), Value::str(c)])))
                .collect::<Vec<_>>(),
        ))
    }

    #[test]
    fn interpolates_sorts_and_clamps() {
        let r = Ramp::parse(&stops(vec![(1.0, "#ffffff"), (0.0, "#000000")]), 0).unwrap();
        assert_eq!(r.eval(-1.0), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(r.eval(0.0), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(r.eval(1.0), [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(r.eval(2.0), [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(r.eval(0.25), [0.25, 0.25, 0.25, 1.0]);
        assert_eq!(r.eval(f64::NAN), [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn hard_edge_keeps_order() {
        let r = Ramp::parse(
            &stops(vec![(0.5, "#ff0000"), (0.5, "#0000ff"), (0.0, "#000000")]),
            0,
        )
        .unwrap();
        assert_eq!(r.stops()[1].1, [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(r.stops()[2].1, [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(r.eval(0.5), [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(r.eval(0.25), [0.5, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn single_stop_is_constant() {
        let r = Ramp::parse(&stops(vec![(0.3, "#ff0000")]), 0).unwrap();
        for t in [-1.0, 0.3, 0.5, 9.0] {
            assert_eq!(r.eval(t), [1.0, 0.0, 0.0, 1.0]);
        }
    }

    #[test]
    fn malformed_stops_name_the_stop() {
        let empty = Value::List(Arc::from(Vec::<Value>::new()));
        assert!(Ramp::parse(&empty, 0).is_err());
        let bad_colour = stops(vec![(0.0, "#000000"), (1.0, "red")]);
        let e = Ramp::parse(&bad_colour, 0).unwrap_err();
        assert!(e.message.contains("stop #1"), "{}", e.message);
        let three = Value::List(Arc::from(vec![Value::List(Arc::from(vec![
            Value::Float(0.0),
            Value::str("#000000"),
            Value::Float(1.0),
        ]))]));
        let e = Ramp::parse(&three, 0).unwrap_err();
        assert!(e.message.contains("stop #0"), "{}", e.message);
    }
}
