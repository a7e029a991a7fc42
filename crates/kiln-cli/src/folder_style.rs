//! How `kiln watch` writes a folder's files: each image output's colour space, and the file
//! format of every image (`--image png|exr`, `--depth`).

use crate::common::CliError;
use kiln_core::value::Value;
use kiln_io::image_files::{ColorSpace, ImageFormat};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The colour space of each output and the file format of images.
#[derive(Clone, Debug)]
pub(crate) struct FolderStyle {
    /// The colour space of each image output (sRGB for one not named).
    pub(crate) colours: BTreeMap<String, ColorSpace>,
    /// The file format of every image output.
    pub(crate) image: ImageFormat,
}

impl FolderStyle {
    /// Encode output `name` holding `v` as `dir/stem.EXT`. Nothing is written.
    pub(crate) fn encode(
        &self,
        dir: &Path,
        stem: &str,
        name: &str,
        v: &Value,
    ) -> Result<(PathBuf, Vec<u8>), kiln_io::WriteError> {
        let space = self.colours.get(name).copied().unwrap_or_default();
        kiln_io::image_files::encode_output_as(dir, stem, v, self.image, space)
    }
}

/// The image format `--image FORMAT` (`png` when not given) at `--depth BITS` names.
pub(crate) fn image_format(
    image: Option<&str>,
    depth: Option<u8>,
) -> Result<ImageFormat, CliError> {
    let ext = image.unwrap_or("png");
    match ImageFormat::from_extension(ext, depth) {
        Some(Ok(f)) => Ok(f),
        Some(Err(e)) => Err(CliError(format!("--image {ext} with --depth: {e}"))),
        None => Err(CliError(format!("--image {ext}: expected png or exr"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_option_and_the_depth_name_a_format() {
        assert_eq!(image_format(None, None).unwrap(), ImageFormat::Png8);
        assert_eq!(image_format(None, Some(16)).unwrap(), ImageFormat::Png16);
        assert_eq!(
            image_format(Some("exr"), None).unwrap(),
            ImageFormat::ExrFloat
        );
        assert_eq!(
            image_format(Some("exr"), Some(16)).unwrap(),
            ImageFormat::ExrHalf
        );
        let e = image_format(Some("png"), Some(32)).unwrap_err();
        assert!(e.0.contains("PNG is written at depth 8 or 16"), "{}", e.0);
        assert!(image_format(Some("tga"), None).is_err());
    }
}
