//! Sweeps (wedges): one graph cooked once per combination of knob values, each item's
//! outputs named from a template.
//!
//! A sweep is a list of axes, each a knob (a graph input, or `NODE.PORT`) and its values:
//! `seed=0..99` (an inclusive range, `:STEP` for another step, floats when a bound has a
//! point), `cells=4,6,8` (a list). Items are every combination of the axes (the first axis
//! varies slowest), or with `zip` the i-th value of every axis together. The values stay
//! text until an item sets them on a project, which parses each by the knob's type.

use std::fmt;

/// The most items a sweep may have (checked before any is made).
pub const MAX_SWEEP_ITEMS: usize = 1_000_000;

/// What is wrong with a sweep or a name template.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SweepError {
    /// An axis is not `NAME=VALUES`.
    #[error("sweep `{0}`: expected NAME=VALUES, like seed=0..99 or cells=4,6,8")]
    Syntax(String),
    /// A range is not `A..B` or `A..B:STEP` of numbers, or its step does not reach `B`.
    #[error("sweep `{name}`: {message}")]
    Range {
        /// The knob.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// One knob is swept twice.
    #[error("`{0}` is swept twice")]
    Twice(String),
    /// Zipped axes of different lengths.
    #[error("zipped sweeps must have as many values each: `{first}` has {n}, `{other}` has {m}")]
    ZipLengths {
        /// The first axis.
        first: String,
        /// Its length.
        n: usize,
        /// An axis of another length.
        other: String,
        /// Its length.
        m: usize,
    },
    /// Too many items.
    #[error("the sweep makes {items} items, more than the limit of {limit} (MAX_SWEEP_ITEMS)")]
    TooMany {
        /// Items the sweep would make (saturating).
        items: usize,
        /// The limit.
        limit: usize,
    },
    /// A name template is malformed or names something unknown.
    #[error("name template `{template}`: {message}")]
    Template {
        /// The template.
        template: String,
        /// What is wrong.
        message: String,
    },
}

/// One axis: a knob and its values, as text.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The knob: a graph input's name or `NODE.PORT`.
    pub name: String,
    /// Its values, in order.
    pub values: Vec<String>,
}

impl Axis {
    /// Parse `NAME=VALUES`.
    pub fn parse(text: &str) -> Result<Axis, SweepError> {
        let (name, values) = text
            .split_once('=')
            .ok_or_else(|| SweepError::Syntax(text.to_string()))?;
        let name = name.trim();
        if name.is_empty() || values.trim().is_empty() {
            return Err(SweepError::Syntax(text.to_string()));
        }
        let values = values.trim();
        let values = if values.contains("..") && !values.contains(',') {
            range(name, values)?
        } else {
            list(values)
        };
        Ok(Axis {
            name: name.to_string(),
            values,
        })
    }
}

/// `a,b,c`, split at the commas outside brackets (so `[1,2],[3,4]` is two values).
fn list(text: &str) -> Vec<String> {
    let mut out = vec![];
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim().to_string());
    out
}

/// `A..B` or `A..B:STEP`, inclusive: ints when every number is an int, else floats.
fn range(name: &str, text: &str) -> Result<Vec<String>, SweepError> {
    let bad = |m: String| SweepError::Range {
        name: name.to_string(),
        message: m,
    };
    let (span, step) = match text.split_once(':') {
        Some((s, st)) => (s, Some(st.trim())),
        None => (text, None),
    };
    let (a, b) = span
        .split_once("..")
        .ok_or_else(|| bad(format!("expected A..B or A..B:STEP, found `{text}`")))?;
    let (a, b) = (a.trim(), b.trim().trim_start_matches('='));
    let ints = [Some(a), Some(b), step]
        .iter()
        .flatten()
        .all(|t| t.parse::<i64>().is_ok());
    if ints {
        let (a, b) = (int(a, &bad)?, int(b, &bad)?);
        let step = match step {
            Some(s) => int(s, &bad)?,
            None if b >= a => 1,
            None => -1,
        };
        if step == 0 || (b - a).signum() * step.signum() < 0 {
            return Err(bad(format!("a step of {step} does not go from {a} to {b}")));
        }
        let n = ((b - a) / step) as u128 + 1;
        if n > MAX_SWEEP_ITEMS as u128 {
            return Err(bad(format!(
                "{n} values, more than the limit of {MAX_SWEEP_ITEMS} (MAX_SWEEP_ITEMS)"
            )));
        }
        return Ok((0..n as i64).map(|k| (a + k * step).to_string()).collect());
    }
    let (a_text, b_text, step_text) = (a, b, step.unwrap_or(""));
    let (a, b) = (float(a, &bad)?, float(b, &bad)?);
    let step = match step {
        Some(s) => float(s, &bad)?,
        None => {
            return Err(bad(format!(
                "a float range needs a step: `{text}:STEP`, like 0..1:0.25"
            )));
        }
    };
    if step == 0.0 || (b - a) * step < 0.0 || !step.is_finite() {
        return Err(bad(format!("a step of {step} does not go from {a} to {b}")));
    }
    // Values a + k·step (not a running sum, so no error builds up), up to b with a
    // tolerance of a millionth of a step for the last one, rounded to the decimals the
    // range is written with (0.1 + 2 × 0.1 is 0.3, not 0.30000000000000004).
    let n = ((b - a) / step + 1e-6).floor();
    let decimals = [a_text, b_text, step_text]
        .iter()
        .map(|t| decimals_of(t))
        .max()
        .unwrap_or(0);
    if !(0.0..MAX_SWEEP_ITEMS as f64).contains(&n) {
        return Err(bad(format!(
            "more than the limit of {MAX_SWEEP_ITEMS} values (MAX_SWEEP_ITEMS)"
        )));
    }
    Ok((0..=n as usize)
        .map(|k| {
            let v = a + k as f64 * step;
            let rounded: f64 = format!("{v:.decimals$}").parse().unwrap_or(v);
            format_float(rounded)
        })
        .collect())
}

/// The digits after the point of a number's text (none with an exponent: then as many as
/// a float holds).
fn decimals_of(t: &str) -> usize {
    if t.contains(['e', 'E']) {
        return 17;
    }
    t.split_once('.').map_or(0, |(_, f)| f.len()).min(17)
}

fn int(t: &str, bad: &impl Fn(String) -> SweepError) -> Result<i64, SweepError> {
    t.parse()
        .map_err(|_| bad(format!("expected an integer, found `{t}`")))
}

fn float(t: &str, bad: &impl Fn(String) -> SweepError) -> Result<f64, SweepError> {
    t.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| bad(format!("expected a number, found `{t}`")))
}

/// The shortest text that reads back as `x`, always with a point (`2` → `2.0`).
fn format_float(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains('.') || s.contains('e') || s.contains("inf") || s.contains("NaN") {
        s
    } else {
        format!("{s}.0")
    }
}

/// A sweep: axes crossed (every combination) or zipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sweep {
    /// The axes, in the order given.
    pub axes: Vec<Axis>,
    /// Whether item i takes value i of every axis (else every combination).
    pub zip: bool,
}

/// One item of a sweep: its index and the value of every swept knob.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepItem {
    /// From 0, in sweep order.
    pub index: usize,
    /// `(knob, value)` per axis, in the axes' order.
    pub settings: Vec<(String, String)>,
}

impl Sweep {
    /// The sweep of `axes` (each `NAME=VALUES`), crossed or zipped.
    pub fn parse(axes: &[String], zip: bool) -> Result<Sweep, SweepError> {
        let axes = axes
            .iter()
            .map(|a| Axis::parse(a))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, a) in axes.iter().enumerate() {
            if axes[..i].iter().any(|b| b.name == a.name) {
                return Err(SweepError::Twice(a.name.clone()));
            }
        }
        let sweep = Sweep { axes, zip };
        sweep.len()?;
        Ok(sweep)
    }

    /// How many items the sweep makes (0 without axes), or why it cannot be made.
    pub fn len(&self) -> Result<usize, SweepError> {
        let Some(first) = self.axes.first() else {
            return Ok(0);
        };
        let n = if self.zip {
            for a in &self.axes {
                if a.values.len() != first.values.len() {
                    return Err(SweepError::ZipLengths {
                        first: first.name.clone(),
                        n: first.values.len(),
                        other: a.name.clone(),
                        m: a.values.len(),
                    });
                }
            }
            first.values.len()
        } else {
            self.axes
                .iter()
                .fold(1usize, |n, a| n.saturating_mul(a.values.len()))
        };
        if n > MAX_SWEEP_ITEMS {
            return Err(SweepError::TooMany {
                items: n,
                limit: MAX_SWEEP_ITEMS,
            });
        }
        Ok(n)
    }

    /// Whether the sweep has no axes.
    pub fn is_empty(&self) -> bool {
        self.axes.is_empty()
    }

    /// Item `index` (below [`Sweep::len`]): the first axis varies slowest.
    pub fn item(&self, index: usize) -> SweepItem {
        let mut settings = Vec::with_capacity(self.axes.len());
        if self.zip {
            for a in &self.axes {
                settings.push((a.name.clone(), a.values[index].clone()));
            }
        } else {
            let mut rest = index;
            let mut picks = vec![0; self.axes.len()];
            for (k, a) in self.axes.iter().enumerate().rev() {
                picks[k] = rest % a.values.len();
                rest /= a.values.len();
            }
            for (a, &p) in self.axes.iter().zip(&picks) {
                settings.push((a.name.clone(), a.values[p].clone()));
            }
        }
        SweepItem { index, settings }
    }
}

/// Output file names from a template: `{output}` (the output's name), `{index}` (the item's)
/// and `{KNOB}` (a swept knob's value), each with an optional format: `{index:04}` pads an
/// int with zeros to 4 digits, `{scale:.2}` writes a number with 2 decimals. `{{` and `}}`
/// are braces. The name must stay one file name (no `/`).
#[derive(Clone, Debug, PartialEq)]
pub struct NameTemplate {
    text: String,
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Text(String),
    Field { name: String, format: Format },
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    Plain,
    /// Zero-padded to a width.
    Pad(usize),
    /// A number with this many decimals.
    Decimals(usize),
}

impl NameTemplate {
    /// The default: `{output}_{index:04}` when sweeping.
    pub fn default_for_sweep() -> NameTemplate {
        NameTemplate::parse("{output}_{index:04}", &[]).expect("the default template is valid")
    }

    /// Parse `text`, whose fields may name `output`, `index` and the knobs `knobs`.
    pub fn parse(text: &str, knobs: &[&str]) -> Result<NameTemplate, SweepError> {
        let bad = |m: &str| SweepError::Template {
            template: text.to_string(),
            message: m.to_string(),
        };
        let mut parts = vec![];
        let mut lit = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    lit.push('}');
                }
                '}' => return Err(bad("a `}` without its `{` (write `}}` for a brace)")),
                '{' => {
                    let mut field = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) => field.push(c),
                            None => return Err(bad("a `{` without its `}`")),
                        }
                    }
                    let (name, fmt) = match field.split_once(':') {
                        Some((n, f)) => (n.trim(), Some(f.trim())),
                        None => (field.trim(), None),
                    };
                    if name != "output" && name != "index" && !knobs.contains(&name) {
                        let mut known = vec!["output", "index"];
                        known.extend(knobs);
                        return Err(bad(&format!(
                            "`{{{name}}}` is neither the output, the index nor a swept knob ({})",
                            known.join(", ")
                        )));
                    }
                    let format = match fmt {
                        None | Some("") => Format::Plain,
                        Some(f) if f.starts_with('.') => Format::Decimals(
                            f[1..]
                                .parse()
                                .ok()
                                .filter(|d: &usize| *d <= 17)
                                .ok_or_else(|| {
                                    bad(&format!("`{f}`: expected .N decimals (0 to 17)"))
                                })?,
                        ),
                        Some(f) if f.starts_with('0') && f.len() > 1 => Format::Pad(
                            f[1..]
                                .parse()
                                .ok()
                                .filter(|w: &usize| *w <= 32)
                                .ok_or_else(|| {
                                    bad(&format!("`{f}`: expected 0N, a width up to 32"))
                                })?,
                        ),
                        Some(f) => {
                            return Err(bad(&format!(
                                "`{f}`: expected a format of 0N (zero-padded) or .N (decimals)"
                            )));
                        }
                    };
                    if !lit.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Field {
                        name: name.to_string(),
                        format,
                    });
                }
                c => lit.push(c),
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Text(lit));
        }
        if !parts
            .iter()
            .any(|p| matches!(p, Part::Field { name, .. } if name == "output"))
        {
            return Err(bad(
                "name the output with `{output}`, or the outputs overwrite each other",
            ));
        }
        if parts
            .iter()
            .any(|p| matches!(p, Part::Text(t) if t.contains(['/', '\\'])))
        {
            return Err(bad("a name is one file name: no `/`"));
        }
        Ok(NameTemplate {
            text: text.to_string(),
            parts,
        })
    }

    /// The name of `output` for `item`: a file name (a value's `/` and `\` become `_`).
    pub fn render(&self, output: &str, item: &SweepItem) -> String {
        let mut s = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => s.push_str(t),
                Part::Field { name, format } => {
                    let value = match name.as_str() {
                        "output" => output.to_string(),
                        "index" => item.index.to_string(),
                        knob => item
                            .settings
                            .iter()
                            .find(|(k, _)| k == knob)
                            .map(|(_, v)| v.clone())
                            .unwrap_or_default(),
                    };
                    s.push_str(&formatted(&value, *format).replace(['/', '\\'], "_"));
                }
            }
        }
        if s == "." || s == ".." || s.is_empty() {
            s = format!("{output}_{}", item.index);
        }
        s
    }
}

impl fmt::Display for NameTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `value` in `format` (a value that is no number is written as it is).
fn formatted(value: &str, format: Format) -> String {
    match format {
        Format::Plain => value.to_string(),
        Format::Pad(w) => match value.parse::<i64>() {
            Ok(i) if i < 0 => format!("-{:0w$}", i.unsigned_abs()),
            Ok(i) => format!("{i:0w$}"),
            Err(_) => value.to_string(),
        },
        Format::Decimals(d) => match value.parse::<f64>() {
            Ok(x) => format!("{x:.d$}"),
            Err(_) => value.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(axes: &[&str], zip: bool) -> Result<Sweep, SweepError> {
        Sweep::parse(&axes.iter().map(|s| s.to_string()).collect::<Vec<_>>(), zip)
    }

    #[test]
    fn ranges_are_inclusive_with_a_step_and_lists_split_outside_brackets() {
        let a = Axis::parse("seed=0..3").unwrap();
        assert_eq!(a.values, ["0", "1", "2", "3"]);
        assert_eq!(Axis::parse("n=10..0:-5").unwrap().values, ["10", "5", "0"]);
        assert_eq!(Axis::parse("n=1..6:2").unwrap().values, ["1", "3", "5"]);
        assert_eq!(
            Axis::parse("t=0..1:0.25").unwrap().values,
            ["0.0", "0.25", "0.5", "0.75", "1.0"]
        );
        // 0.1 steps end at 1.0 even though 10 × 0.1 is not exactly 1 in floats, and each
        // value is written as the range is (0.3, not 0.30000000000000004).
        let tenths = Axis::parse("t=0..1:0.1").unwrap().values;
        assert_eq!(tenths.len(), 11);
        assert_eq!(tenths[3], "0.3");
        assert_eq!(
            Axis::parse("at=[1,2],[3,4]").unwrap().values,
            ["[1,2]", "[3,4]"]
        );
        assert_eq!(Axis::parse("mode=a, b ,c").unwrap().values, ["a", "b", "c"]);
        assert!(matches!(Axis::parse("seed"), Err(SweepError::Syntax(_))));
        assert!(matches!(
            Axis::parse("n=0..3:-1"),
            Err(SweepError::Range { .. })
        ));
        assert!(matches!(
            Axis::parse("t=0.0..1"),
            Err(SweepError::Range { .. })
        ));
        assert!(matches!(
            Axis::parse("n=0..99999999999"),
            Err(SweepError::Range { .. })
        ));
    }

    #[test]
    fn items_cross_the_axes_first_slowest_or_zip_them() {
        let s = sweep(&["a=1,2", "b=x,y,z"], false).unwrap();
        assert_eq!(s.len(), Ok(6));
        let items: Vec<Vec<String>> = (0..6)
            .map(|i| s.item(i).settings.into_iter().map(|(_, v)| v).collect())
            .collect();
        assert_eq!(
            items,
            [
                ["1", "x"],
                ["1", "y"],
                ["1", "z"],
                ["2", "x"],
                ["2", "y"],
                ["2", "z"]
            ]
        );
        let z = sweep(&["a=1,2,3", "b=x,y,z"], true).unwrap();
        assert_eq!(z.len(), Ok(3));
        assert_eq!(
            z.item(2).settings,
            [("a".into(), "3".into()), ("b".into(), "z".into())]
        );
        assert!(matches!(
            sweep(&["a=1,2", "b=x,y,z"], true),
            Err(SweepError::ZipLengths { n: 2, m: 3, .. })
        ));
        assert!(matches!(
            sweep(&["a=1,2", "a=3"], false),
            Err(SweepError::Twice(_))
        ));
        assert!(matches!(
            sweep(&["a=0..999", "b=0..999", "c=0..9"], false),
            Err(SweepError::TooMany { .. })
        ));
    }

    #[test]
    fn templates_name_outputs_by_index_and_knob_with_formats() {
        let s = sweep(&["seed=3..4", "scale=0.5,2"], false).unwrap();
        let t = NameTemplate::parse(
            "{output}_{seed:03}_s{scale:.2}_{{{index}}}",
            &["seed", "scale"],
        )
        .unwrap();
        assert_eq!(t.render("stone", &s.item(1)), "stone_003_s2.00_{1}");
        assert_eq!(
            NameTemplate::default_for_sweep().render("out", &s.item(3)),
            "out_0003"
        );
        for bad in [
            "{output}_{nope}",
            "{output}_{seed:x}",
            "{seed}",
            "{output",
            "a/{output}",
        ] {
            assert!(
                NameTemplate::parse(bad, &["seed"]).is_err(),
                "{bad} should be refused"
            );
        }
        // A value cannot climb out of the folder.
        let item = SweepItem {
            index: 0,
            settings: vec![("p".into(), "../x".into())],
        };
        let t = NameTemplate::parse("{output}-{p}", &["p"]).unwrap();
        assert_eq!(t.render("o", &item), "o-.._x");
    }
}
