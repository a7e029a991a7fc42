//! The one place this crate names the image type of the image library.

pub(crate) use kiln_image::image::Image;
