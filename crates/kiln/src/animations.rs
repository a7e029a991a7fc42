//! Animated outputs (GIF, APNG) of a render: one per image output and format, a frame per
//! tick, each frame encoded into a temporary file as it comes (no frame is held) and the
//! files renamed into place once the last tick is done.

use crate::ProjectError;
use kiln_core::value::Value;
use kiln_io::animation::{Animation, AnimationFormat};
use kiln_io::image_files::ColorSpace;
use std::path::{Path, PathBuf};

/// The animations of one render.
pub struct Animations {
    fps: f64,
    formats: Vec<AnimationFormat>,
    /// The frames each animation will have (an APNG states its count first).
    frames: u32,
    /// The folder they are written into.
    dir: PathBuf,
    /// (output name, format, animation), in output then format order.
    open: Vec<(String, AnimationFormat, Animation)>,
}

impl Animations {
    /// Animations in `formats` (none: nothing is made) at `fps` frames per second, of
    /// `frames` frames each, written into `dir` as `OUTPUT.gif` and `OUTPUT.apng`.
    pub fn new(formats: Vec<AnimationFormat>, fps: f64, frames: u32, dir: &Path) -> Self {
        Animations {
            fps,
            formats,
            frames,
            dir: dir.to_path_buf(),
            open: vec![],
        }
    }

    /// Whether any animation is asked for.
    pub fn wanted(&self) -> bool {
        !self.formats.is_empty()
    }

    /// Add tick `t`'s outputs: every image output gets a frame, its colour in the space
    /// `colour_of` gives the output (other values are skipped).
    pub fn push(
        &mut self,
        t: u64,
        outputs: &[(String, Value)],
        colour_of: &dyn Fn(&str) -> ColorSpace,
    ) -> Result<(), ProjectError> {
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
                        let path = self.dir.join(format!(
                            "{}.{}",
                            name.replace('.', "_"),
                            format.extension()
                        ));
                        let a = Animation::to_file(&path, format, self.fps, self.frames)
                            .map_err(|e| ProjectError::Animation {
                                message: e.to_string(),
                            })?
                            .with_space(colour_of(name));
                        self.open.push((name.clone(), format, a));
                        self.open.len() - 1
                    }
                };
                self.open[i]
                    .2
                    .push(img)
                    .map_err(|e| ProjectError::Animation {
                        message: format!("tick {t}: the {format} of output `{name}`: {e}"),
                    })?;
            }
        }
        Ok(())
    }

    /// Complete every animation and rename it into place: the paths written with their
    /// frame counts.
    pub fn finish(self) -> Result<Vec<(PathBuf, usize)>, ProjectError> {
        let mut written = vec![];
        for (name, format, a) in self.open {
            let frames = a.len();
            let path = a.commit().map_err(|e| ProjectError::Animation {
                message: format!("the {format} of output `{name}`: {e}"),
            })?;
            if let Some(path) = path {
                written.push((path, frames));
            }
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_image::image::Image;

    #[test]
    fn each_image_output_becomes_one_animation_per_format_with_a_frame_per_tick() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut a = Animations::new(
            vec![AnimationFormat::Gif, AnimationFormat::Apng],
            10.0,
            3,
            dir.path(),
        );
        assert!(a.wanted());
        for t in 0..3u64 {
            let grey = t as f32 / 2.0;
            let outputs = vec![
                (
                    "sky".to_string(),
                    Image::filled(4, 2, [grey, grey, grey, 1.0]).into_value(),
                ),
                ("count".to_string(), Value::Int(t as i64)),
            ];
            a.push(t, &outputs, &|_| ColorSpace::Srgb).expect("a frame");
        }
        let written = a.finish().expect("written");
        let names: Vec<(String, usize)> = written
            .iter()
            .map(|(p, n)| (p.file_name().unwrap().to_string_lossy().into_owned(), *n))
            .collect();
        // The number is not an image: only `sky` animates, once per format.
        assert_eq!(names, vec![("sky.gif".into(), 3), ("sky.apng".into(), 3)]);
        let gif = std::fs::read(dir.path().join("sky.gif")).expect("the gif");
        assert_eq!(&gif[..6], b"GIF89a");
        let png = std::fs::read(dir.path().join("sky.apng")).expect("the apng");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // An animated PNG has its animation control chunk.
        assert!(png.windows(4).any(|w| w == b"acTL"));
    }

    #[test]
    fn no_format_asked_makes_nothing() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut a = Animations::new(vec![], 10.0, 1, dir.path());
        assert!(!a.wanted());
        let img = Image::filled(2, 2, [1.0; 4]).into_value();
        a.push(0, &[("sky".into(), img)], &|_| ColorSpace::Srgb)
            .expect("nothing to do");
        assert!(a.finish().expect("nothing").is_empty());
    }
}
