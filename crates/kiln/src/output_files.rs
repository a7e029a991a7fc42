//! Which files each output becomes, and writing them as one group: every output encoded
//! before any file is written, then every file lands or (on any failure) the folder keeps
//! the files it had.

use crate::colours::OutColours;
use crate::cook::Cooked;
use crate::error::ProjectError;
use crate::project::Project;
use kiln_core::value::Value;
use kiln_io::image_files::ImageFormat;
use kiln_io::mesh_files::MeshFormat;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The files asked of each output: image formats (PNG 8/16, OpenEXR half/float), mesh
/// formats (glb, OBJ, PLY, STL, a preview PNG), and the colour space of PNG images. An
/// output asked for nothing is written in its value's usual file (PNG, glb, WAV, JSON).
#[derive(Clone, Debug, Default)]
pub struct OutputFiles {
    images: HashMap<String, Vec<ImageFormat>>,
    meshes: HashMap<String, Vec<MeshFormat>>,
    depth: Option<u8>,
    preview: bool,
    /// The colour space of each image output written as PNG.
    pub colours: OutColours,
}

impl OutputFiles {
    /// Output names as a user writes them, an extension asking for a file format
    /// (`sky.exr`, `rock.obj`, `rock.glb`), images at `depth` bits (8 or 16 for PNG, 16 or
    /// 32 for OpenEXR; `None`: 8-bit PNG, float EXR): the output names (extensions taken
    /// off, in order) and the files asked.
    pub fn parse(
        args: &[String],
        depth: Option<u8>,
    ) -> Result<(Vec<String>, OutputFiles), ProjectError> {
        let mut names = Vec::with_capacity(args.len());
        let mut files = OutputFiles {
            depth,
            ..OutputFiles::default()
        };
        for a in args {
            let Some((n, ext)) = a.rsplit_once('.').filter(|(n, _)| !n.is_empty()) else {
                names.push(a.clone());
                continue;
            };
            if let Some(f) = ImageFormat::from_extension(ext, depth) {
                let f = f.map_err(|e| ProjectError::Depth {
                    what: format!("--output `{a}`"),
                    message: e.to_string(),
                })?;
                names.push(n.to_string());
                push_new(files.images.entry(n.to_string()).or_default(), f);
            } else if let Some(f) = MeshFormat::from_extension(ext) {
                names.push(n.to_string());
                push_new(files.meshes.entry(n.to_string()).or_default(), f);
            } else {
                names.push(a.clone());
            }
        }
        Ok((names, files))
    }

    /// The same, with a preview PNG beside every mesh output.
    pub fn with_preview(mut self, preview: bool) -> OutputFiles {
        self.preview = preview;
        self
    }

    /// The same, with images written as PNG in the colour spaces `colours` asks.
    pub fn with_colours(mut self, colours: OutColours) -> OutputFiles {
        self.colours = colours;
        self
    }

    /// The image formats output `name` holding `value` is written in: those asked by
    /// extension; PNG at the depth for an image asked without one; none for other values.
    pub fn image_formats(
        &self,
        name: &str,
        value: &Value,
    ) -> Result<Vec<ImageFormat>, ProjectError> {
        if let Some(f) = self.images.get(name) {
            return Ok(f.clone());
        }
        if value.as_heavy::<kiln_image::image::Image>().is_none() {
            return Ok(vec![]);
        }
        match self.depth {
            None => Ok(vec![ImageFormat::Png8]),
            Some(d) => match ImageFormat::from_extension("png", Some(d)) {
                Some(Ok(f)) => Ok(vec![f]),
                Some(Err(e)) => Err(ProjectError::Depth {
                    what: format!("output `{name}`"),
                    message: e.to_string(),
                }),
                None => Ok(vec![]),
            },
        }
    }

    /// The mesh formats output `name` holding `value` is written in: those asked by
    /// extension, and a preview for a mesh when asked.
    pub fn mesh_formats(&self, name: &str, value: &Value) -> Vec<MeshFormat> {
        let mut f = self.meshes.get(name).cloned().unwrap_or_default();
        if self.preview && value.as_heavy::<kiln_mesh::Mesh>().is_some() {
            f.push(MeshFormat::Preview);
        }
        f
    }
}

fn push_new<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// The files of a write, encoded: `(file name, bytes)` in order, and the outputs skipped
/// because they hold an error.
pub type Encoded = (Vec<(String, Vec<u8>)>, Vec<String>);

/// What a write did.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// The files written, in order.
    pub files: Vec<PathBuf>,
    /// The outputs that held an error and were not written.
    pub failed: Vec<String>,
}

impl Project {
    /// The files of `cooked`'s outputs in folder `dir` as `files` asks, encoded (nothing is
    /// written): `(file name, bytes)` in order, and the outputs skipped because they hold an
    /// error.
    pub fn encode(
        &self,
        cooked: &Cooked,
        dir: &Path,
        files: &OutputFiles,
    ) -> Result<Encoded, ProjectError> {
        self.encode_named(cooked, dir, files, &|name| name.to_string())
    }

    /// [`Project::encode`] with each output's file stem from `stem` (given the output's name
    /// with its dots made `_`).
    pub fn encode_named(
        &self,
        cooked: &Cooked,
        dir: &Path,
        files: &OutputFiles,
        stem: &dyn Fn(&str) -> String,
    ) -> Result<Encoded, ProjectError> {
        let mut encoded_files = Vec::with_capacity(cooked.outputs.values.len());
        let mut failed = vec![];
        for (name, v) in &cooked.outputs.values {
            if matches!(v, Value::Error(_)) {
                failed.push(name.clone());
                continue;
            }
            let file_name = stem(&name.replace('.', "_"));
            let cannot = |e: kiln_io::WriteError| ProjectError::Encode {
                output: name.clone(),
                source: Box::new(e),
            };
            let images = files.image_formats(name, v)?;
            let colour = files.colours.of(name, self.file_colours());
            let mut encoded = Vec::new();
            for f in &images {
                encoded.push(
                    kiln_io::image_files::encode_image_output(dir, &file_name, v, *f, colour)
                        .map_err(cannot)?,
                );
            }
            let wanted = files.mesh_formats(name, v);
            if images.is_empty() || !wanted.is_empty() {
                encoded.extend(
                    kiln_io::encode_output_files(dir, &file_name, v, &wanted).map_err(cannot)?,
                );
            }
            for (path, bytes) in encoded {
                let Some(file) = path.file_name() else {
                    return Err(cannot(kiln_io::WriteError::BadName { name: name.clone() }));
                };
                encoded_files.push((file.to_string_lossy().into_owned(), bytes));
            }
        }
        Ok((encoded_files, failed))
    }

    /// Write `cooked`'s outputs into folder `dir` (made if needed) as `files` asks, as one
    /// group: each file is written aside, then all are renamed into place; on any failure
    /// every file keeps its previous contents. Outputs holding an error are not written
    /// (see [`Written::failed`]).
    pub fn write(
        &self,
        cooked: &Cooked,
        dir: &Path,
        files: &OutputFiles,
    ) -> Result<Written, ProjectError> {
        self.write_named(cooked, dir, files, &|name| name.to_string())
    }

    /// [`Project::write`] with each output's file stem from `stem` (given the output's name
    /// with its dots made `_`): a sweep item's `stone_0003`.
    pub fn write_named(
        &self,
        cooked: &Cooked,
        dir: &Path,
        files: &OutputFiles,
        stem: &dyn Fn(&str) -> String,
    ) -> Result<Written, ProjectError> {
        let (encoded, failed) = self.encode_named(cooked, dir, files, stem)?;
        if !encoded.is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| ProjectError::OutputFolder {
                path: dir.to_path_buf(),
                source: e,
            })?;
            kiln_io::commit_frame(dir, &encoded).map_err(|e| match e {
                kiln_io::FrameError::Incomplete { .. } => ProjectError::CommitIncomplete {
                    source: Box::new(e),
                },
                _ => ProjectError::Commit {
                    source: Box::new(e),
                },
            })?;
        }
        Ok(Written {
            files: encoded.into_iter().map(|(f, _)| dir.join(f)).collect(),
            failed,
        })
    }
}
