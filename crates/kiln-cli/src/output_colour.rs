//! The colour space each image output is written in (`--color [NAME=]SPACE` over the graph
//! file's `{"from": ..., "color": ...}` outputs): sRGB-encoded unless a data map asks for its
//! values as they are.

use crate::common::{CliError, project_error};
use kiln::OutColours;
use kiln_io::image_files::ColorSpace;
use std::collections::BTreeMap;

/// The colour space of each output.
#[derive(Debug, Default)]
pub(crate) struct OutputColours {
    /// `--color SPACE` (every image output not named) and `--color NAME=SPACE`, resolved by
    /// Kiln's one rule ([`kiln::OutColours`]).
    chosen: OutColours,
    /// The graph file's `color` of each output that states one.
    file: BTreeMap<String, ColorSpace>,
}

impl OutputColours {
    /// The colours asked by the `--color` arguments `args`, over those of the graph file
    /// (`file`).
    pub(crate) fn new(
        args: &[String],
        file: &BTreeMap<String, ColorSpace>,
    ) -> Result<OutputColours, CliError> {
        Ok(OutputColours {
            chosen: OutColours::parse(args).map_err(project_error)?,
            file: file.clone(),
        })
    }

    /// Refuse a `--color NAME=...` that names none of `outputs`.
    pub(crate) fn check(&self, outputs: &[String]) -> Result<(), CliError> {
        self.chosen.check(outputs).map_err(project_error)
    }

    /// The `--color` choices for Kiln Studio's output folder (which takes each output's
    /// colour from the file at each cook).
    pub(crate) fn for_studio(&self) -> OutColours {
        self.chosen.clone()
    }

    /// The colour space output `name` is written in: its `--color NAME=`, else `--color`,
    /// else the file's `color`, else sRGB.
    pub(crate) fn of(&self, name: &str) -> ColorSpace {
        self.chosen.of(name, &self.file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_colour_beats_the_general_one_which_beats_the_file() {
        let file = BTreeMap::from([("n".to_string(), ColorSpace::Data)]);
        let c = OutputColours::new(&[], &file).unwrap();
        assert_eq!((c.of("n"), c.of("x")), (ColorSpace::Data, ColorSpace::Srgb));
        let args = ["srgb".to_string(), "h=data".to_string()];
        let c = OutputColours::new(&args, &file).unwrap();
        assert_eq!(c.of("n"), ColorSpace::Srgb);
        assert_eq!(c.of("h"), ColorSpace::Data);
        assert!(c.check(&["h".into(), "n".into()]).is_ok());
        let e = c.check(&["n".into()]).unwrap_err();
        assert!(e.0.contains("`h` is not an output"), "{}", e.0);
        let e = OutputColours::new(&["h=linear".into()], &file).unwrap_err();
        assert!(e.0.contains("expected srgb or data"), "{}", e.0);
    }
}
