//! The colour space each image output is written in when the studio writes its outputs
//! into a folder (`StudioConfig::out`): a name's own choice, else the choice for every
//! output, else the graph file's `"color"` of the output, else sRGB.

use kiln_io::image_files::ColorSpace;
use std::collections::BTreeMap;

/// The colour spaces asked for the outputs written into the output folder.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutColours {
    /// The space of every image output not in `named` (`--color SPACE`).
    pub every: Option<ColorSpace>,
    /// The space of each named output (`--color NAME=SPACE`).
    pub named: BTreeMap<String, ColorSpace>,
}

impl OutColours {
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
}
