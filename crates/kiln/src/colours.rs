//! The one rule for the colour space an image output is written in as an 8 or 16-bit PNG:
//! a choice for that output by name, else a choice for every output, else the graph file's
//! `"color"` of the output, else sRGB. The CLI (`--color [NAME=]SPACE`), Kiln Studio's output
//! folder and library callers all resolve colours through [`OutColours`].

use crate::error::ProjectError;
use kiln_io::image_files::ColorSpace;
use std::collections::BTreeMap;

/// The colour spaces asked for the outputs written (over those the graph file gives).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutColours {
    /// The space of every image output not in `named` (`--color SPACE`).
    pub every: Option<ColorSpace>,
    /// The space of each named output (`--color NAME=SPACE`).
    pub named: BTreeMap<String, ColorSpace>,
}

impl OutColours {
    /// The choices of `--color` arguments: `SPACE` for every output, `NAME=SPACE` for one.
    pub fn parse(args: &[String]) -> Result<OutColours, ProjectError> {
        let space = |text: &str, arg: &str| {
            ColorSpace::parse(text).ok_or_else(|| ProjectError::ColourName {
                given: arg.to_string(),
                expected: ColorSpace::NAMES.join(" or "),
                found: text.to_string(),
            })
        };
        let mut c = OutColours::default();
        for a in args {
            match a.split_once('=') {
                Some((name, s)) => {
                    c.named.insert(name.to_string(), space(s, a)?);
                }
                None => c.every = Some(space(a, a)?),
            }
        }
        Ok(c)
    }

    /// Refuse a choice by name for an output that is not among `outputs`.
    pub fn check(&self, outputs: &[String]) -> Result<(), ProjectError> {
        match self.named.keys().find(|n| !outputs.contains(n)) {
            Some(n) => Err(ProjectError::ColourOfUnknownOutput {
                name: n.clone(),
                outputs: outputs.to_vec(),
            }),
            None => Ok(()),
        }
    }

    /// The space output `name` is written in, over `file`, the colours the graph file gives
    /// its outputs.
    pub fn of(&self, name: &str, file: &BTreeMap<String, ColorSpace>) -> ColorSpace {
        self.named
            .get(name)
            .copied()
            .or(self.every)
            .or_else(|| file.get(name).copied())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_beats_every_output_which_beats_the_file_which_beats_srgb() {
        let file = BTreeMap::from([("h".to_string(), ColorSpace::Data)]);
        let none = OutColours::default();
        assert_eq!(none.of("h", &file), ColorSpace::Data);
        assert_eq!(none.of("x", &file), ColorSpace::Srgb);
        let every = OutColours {
            every: Some(ColorSpace::Srgb),
            named: BTreeMap::from([("x".to_string(), ColorSpace::Data)]),
        };
        assert_eq!(every.of("h", &file), ColorSpace::Srgb);
        assert_eq!(every.of("x", &file), ColorSpace::Data);
    }

    #[test]
    fn arguments_parse_and_a_name_must_be_an_output() {
        let c = OutColours::parse(&["srgb".to_string(), "h=data".to_string()]).unwrap();
        assert_eq!(c.every, Some(ColorSpace::Srgb));
        assert_eq!(c.named["h"], ColorSpace::Data);
        assert!(c.check(&["h".into(), "n".into()]).is_ok());
        let e = c.check(&["n".into()]).unwrap_err();
        assert!(e.to_string().contains("`h` is not an output"), "{e}");
        let e = OutColours::parse(&["h=linear".into()]).unwrap_err();
        assert!(e.to_string().contains("expected srgb or data"), "{e}");
    }
}
