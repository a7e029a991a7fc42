//! Small previews of values, for an editor's node cards: images scaled down to a PNG
//! thumbnail, meshes as their shaded picture ([`render_preview`]), plain values as one short
//! line of text. Heavy types this crate does not know get their type name.

use crate::mesh_files::render_preview;
use kiln_core::value::Value;
use kiln_image::image::Image;

/// The most characters of a text preview.
pub const MAX_TEXT: usize = 160;

/// A value's preview.
#[derive(Clone, Debug, PartialEq)]
pub enum Preview {
    /// An 8-bit RGBA PNG.
    Png {
        /// The PNG file's bytes.
        bytes: Vec<u8>,
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// One line of text.
    Text(String),
}

/// Why a preview could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    /// The image's pixels do not match its size.
    #[error("the image is {width}x{height} but holds {pixels} pixels")]
    BadImage {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Pixels held.
        pixels: usize,
    },
    /// PNG encoding failed.
    #[error("cannot encode the preview: {0}")]
    Encode(#[from] image::ImageError),
}

/// The preview of `value`, its pictures at most `max_side` pixels on their longer side
/// (at least 1); `None` for an empty value or an error value.
pub fn preview(value: &Value, max_side: u32) -> Result<Option<Preview>, PreviewError> {
    let max_side = max_side.max(1);
    if matches!(value, Value::Empty | Value::Error(_)) {
        return Ok(None);
    }
    if let Some(img) = value.as_heavy::<Image>() {
        let small = thumbnail(img, max_side)?;
        // Shown by a browser, which takes untagged pixels as sRGB: colour sRGB-encoded as
        // 8-bit PNG output is by default.
        let rgba = crate::image_files::rgba8(&small, crate::image_files::ColorSpace::Srgb)
            .map_err(|_| {
                image::ImageError::Limits(image::error::LimitError::from_kind(
                    image::error::LimitErrorKind::InsufficientMemory,
                ))
            })?;
        let bytes = png_of(&rgba, small.width, small.height)?;
        return Ok(Some(Preview::Png {
            bytes,
            width: small.width,
            height: small.height,
        }));
    }
    if let Some(mesh) = value.as_heavy::<kiln_mesh::Mesh>() {
        let rgba = render_preview(mesh, max_side);
        let bytes = png_of(&rgba, max_side, max_side)?;
        return Ok(Some(Preview::Png {
            bytes,
            width: max_side,
            height: max_side,
        }));
    }
    Ok(Some(Preview::Text(text(value, 0))))
}

/// A PNG of 8-bit RGBA pixels, compressed fast (a preview is made on every edit).
fn png_of(rgba: &[u8], width: u32, height: u32) -> Result<Vec<u8>, image::ImageError> {
    use image::ImageEncoder;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let mut buf = Vec::new();
    PngEncoder::new_with_quality(&mut buf, CompressionType::Fast, FilterType::Sub).write_image(
        rgba,
        width,
        height,
        image::ExtendedColorType::Rgba8,
    )?;
    Ok(buf)
}

/// `img` scaled to fit `max_side` (a box filter: each thumbnail pixel averages the source
/// pixels it covers); an image already small enough is copied.
pub fn thumbnail(img: &Image, max_side: u32) -> Result<Image, PreviewError> {
    let (w, h) = (img.width, img.height);
    if img.pixels.len() as u64 != w as u64 * h as u64 {
        return Err(PreviewError::BadImage {
            width: w,
            height: h,
            pixels: img.pixels.len(),
        });
    }
    if w <= max_side && h <= max_side {
        return Ok(img.clone());
    }
    let scale = max_side as f64 / w.max(h) as f64;
    let tw = ((w as f64 * scale).round() as u32).clamp(1, max_side);
    let th = ((h as f64 * scale).round() as u32).clamp(1, max_side);
    let mut pixels = Vec::with_capacity(tw as usize * th as usize);
    for ty in 0..th {
        let y0 = (ty as u64 * h as u64 / th as u64) as usize;
        let y1 = (((ty as u64 + 1) * h as u64).div_ceil(th as u64) as usize).max(y0 + 1);
        for tx in 0..tw {
            let x0 = (tx as u64 * w as u64 / tw as u64) as usize;
            let x1 = (((tx as u64 + 1) * w as u64).div_ceil(tw as u64) as usize).max(x0 + 1);
            let mut sum = [0f64; 4];
            for y in y0..y1.min(h as usize) {
                let row = &img.pixels[y * w as usize..(y + 1) * w as usize];
                for p in &row[x0..x1.min(w as usize)] {
                    for c in 0..4 {
                        sum[c] += p[c] as f64;
                    }
                }
            }
            let n = ((y1.min(h as usize) - y0) * (x1.min(w as usize) - x0)).max(1) as f64;
            pixels.push(sum.map(|s| (s / n) as f32));
        }
    }
    Ok(Image {
        width: tw,
        height: th,
        pixels,
    })
}

/// How deep lists and records inside lists and records are shown (deeper ones by their
/// length only, so a deeply nested value costs no deep recursion).
const MAX_DEPTH: usize = 2;

/// A short line describing a plain value, `depth` levels inside lists and records.
fn text(value: &Value, depth: usize) -> String {
    let num = |f: f64| {
        if f == f.trunc() && f.abs() < 1e15 {
            format!("{f:.1}")
        } else {
            format!("{}", (f * 1e4).round() / 1e4)
        }
    };
    let s = match value {
        Value::Float(f) => num(*f),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Vec2(v) => format!("({})", v.map(num).join(", ")),
        Value::Vec3(v) => format!("({})", v.map(num).join(", ")),
        Value::Vec4(v) => format!("({})", v.map(num).join(", ")),
        Value::Color(c) => format!("rgba({})", c.map(|x| num(x as f64)).join(", ")),
        Value::Str(s) => format!("{s:?}"),
        Value::List(items) if depth >= MAX_DEPTH => format!("list of {}", items.len()),
        Value::List(items) => {
            let shown: Vec<String> = items.iter().take(8).map(|v| text(v, depth + 1)).collect();
            let more = if items.len() > 8 { ", ..." } else { "" };
            format!("list of {}: [{}{more}]", items.len(), shown.join(", "))
        }
        Value::Record(r) if depth >= MAX_DEPTH => format!("record of {} fields", r.len()),
        Value::Record(r) => {
            let shown: Vec<String> = r
                .fields()
                .iter()
                .take(8)
                .map(|(k, v)| format!("{k}: {}", text(v, depth + 1)))
                .collect();
            let more = if r.len() > 8 { ", ..." } else { "" };
            format!("{{{}{more}}}", shown.join(", "))
        }
        Value::Heavy(h) => h.type_name().to_string(),
        Value::Empty => "empty".into(),
        Value::Error(e) => format!("error: {e}"),
    };
    if s.chars().count() > MAX_TEXT {
        let cut: String = s.chars().take(MAX_TEXT - 3).collect();
        format!("{cut}...")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_big_image_is_boxed_down_to_fit() {
        // 4x2, left half black, right half white: a 2x1 thumbnail averages each half.
        let mut img = Image::filled(4, 2, [0.0, 0.0, 0.0, 1.0]);
        for y in 0..2 {
            for x in 2..4 {
                img.pixels[y * 4 + x] = [1.0, 1.0, 1.0, 1.0];
            }
        }
        let t = thumbnail(&img, 2).unwrap();
        assert_eq!((t.width, t.height), (2, 1));
        assert_eq!(t.pixels, vec![[0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]]);
    }

    #[test]
    fn a_small_image_keeps_its_size_and_plain_values_read_as_text() {
        let img = Image::filled(3, 5, [0.5, 0.5, 0.5, 1.0]);
        let v = Value::Heavy(kiln_core::value::Heavy::new(img));
        match preview(&v, 64).unwrap() {
            Some(Preview::Png { width, height, .. }) => assert_eq!((width, height), (3, 5)),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            preview(&Value::Float(2.0), 64).unwrap(),
            Some(Preview::Text("2.0".into()))
        );
        assert_eq!(
            preview(&Value::Vec2([1.0, 0.25]), 64).unwrap(),
            Some(Preview::Text("(1.0, 0.25)".into()))
        );
        assert_eq!(preview(&Value::Empty, 64).unwrap(), None);
    }
}
