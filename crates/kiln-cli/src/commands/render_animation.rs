//! The animations of `kiln render --gif / --apng`: one per image output and format, a frame
//! per tick, written atomically beside the frames once the last tick is done.

use crate::common::CliError;
use crate::output_colour::OutputColours;
use kiln_core::value::Value;
use kiln_io::animation::{Animation, AnimationFormat};
use std::path::{Path, PathBuf};

/// The animations of one render.
pub(crate) struct Animations {
    fps: f64,
    formats: Vec<AnimationFormat>,
    /// (output name, format, animation), in output then format order.
    open: Vec<(String, AnimationFormat, Animation)>,
}

impl Animations {
    /// Animations in `formats` (none: nothing is made) at `fps` frames per second.
    pub(crate) fn new(formats: Vec<AnimationFormat>, fps: f64) -> Self {
        Animations {
            fps,
            formats,
            open: vec![],
        }
    }

    /// Whether any animation is asked for.
    pub(crate) fn wanted(&self) -> bool {
        !self.formats.is_empty()
    }

    /// Add tick `t`'s outputs: every image output gets a frame, its colour in the space
    /// `colours` gives the output (other values are skipped).
    pub(crate) fn push(
        &mut self,
        t: u64,
        outputs: &[(String, Value)],
        colours: &OutputColours,
    ) -> Result<(), CliError> {
        for (name, v) in outputs {
            let Some(img) = v.as_heavy::<kiln_image::image::Image>() else {
                continue;
            };
            for &format in &self.formats {
                let at = self
                    .open
                    .iter()
                    .position(|(n, f, _)| n == name && *f == format);
                let i = match at {
                    Some(i) => i,
                    None => {
                        let a = Animation::new(format, self.fps)
                            .map_err(|e| CliError(e.to_string()))?
                            .with_space(colours.of(name));
                        self.open.push((name.clone(), format, a));
                        self.open.len() - 1
                    }
                };
                self.open[i].2.push(img).map_err(|e| {
                    CliError(format!("tick {t}: the {format} of output `{name}`: {e}"))
                })?;
            }
        }
        Ok(())
    }

    /// Encode and write every animation into `dir` (each atomically): the paths written with
    /// their frame counts.
    pub(crate) fn finish(self, dir: &Path) -> Result<Vec<(PathBuf, usize)>, CliError> {
        let mut written = vec![];
        for (name, format, a) in self.open {
            let frames = a.len();
            let path = dir.join(format!("{}.{}", name.replace('.', "_"), format.extension()));
            let bytes = a
                .finish()
                .map_err(|e| CliError(format!("the {format} of output `{name}`: {e}")))?;
            if let Some(bytes) = bytes {
                kiln_io::write_atomic(&path, &bytes)
                    .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
                written.push((path, frames));
            }
        }
        Ok(written)
    }
}
