//! `image.row`: the images of a list side by side, left to right, tops aligned — a palette
//! of swatches, a strip of variants. Its `images` input is collective: several wires queue
//! their images into the row (see `docs/graph-format.md`).

use crate::image::{IMAGE_TYPE, Image, MAX_PIXELS, MAX_SIDE};
use kiln_core::list_type::list_of;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// The `images` side by side, left to right, tops aligned; below a shorter image,
/// `background`.
#[kiln_core::op("image.row", out = "the row")]
pub fn row(
    #[input("the images (collective)", ty = list_of(IMAGE_TYPE), collective)] images: &[Value],
    #[input("the colour below shorter images", default = [0.0, 0.0, 0.0, 0.0])] background: [f32;
        4],
) -> Result<Image, OpError> {
    let items = images;
    let mut images = Vec::with_capacity(items.len());
    for (i, v) in items.iter().enumerate() {
        match v.as_heavy::<Image>() {
            // The pixels are copied by rows below: an image whose pixel count is not its
            // width times its height is refused rather than read past.
            Some(img)
                if img.pixels.len() as u64 == u64::from(img.width) * u64::from(img.height) =>
            {
                images.push(img)
            }
            Some(img) => {
                return Err(OpError::input(
                    0,
                    format!(
                        "element {i} holds {} pixels, not {} x {}",
                        img.pixels.len(),
                        img.width,
                        img.height
                    ),
                ));
            }
            None => {
                return Err(OpError::input(
                    0,
                    format!("element {i} is {}, not an image", v.type_name()),
                ));
            }
        }
    }
    if images.is_empty() {
        return Err(OpError::input(0, "the row has no images"));
    }
    let width: u64 = images.iter().map(|m| u64::from(m.width)).sum();
    let height = images.iter().map(|m| m.height).max().unwrap_or(1);
    if width > u64::from(MAX_SIDE) || width * u64::from(height) > MAX_PIXELS {
        return Err(OpError::input(
            0,
            format!(
                "the row would be {width} x {height} pixels, over the limits of {MAX_SIDE} a side and {MAX_PIXELS} in all"
            ),
        ));
    }
    let mut img = Image::filled(width as u32, height, background);
    let mut x0 = 0usize;
    for m in images {
        for y in 0..m.height as usize {
            let src = &m.pixels[y * m.width as usize..(y + 1) * m.width as usize];
            let at = y * width as usize + x0;
            img.pixels[at..at + src.len()].copy_from_slice(src);
        }
        x0 += m.width as usize;
    }
    Ok(img)
}

/// Register `image.row`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(RowOp::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_core::context::EvalContext;
    use kiln_core::op::{Op, OpCall};

    fn run(inputs: &[Value]) -> Result<Image, OpError> {
        let ctx = EvalContext::default();
        let call = OpCall {
            inputs,
            params: &[],
            ctx: &ctx,
            node: "r",
        };
        let mut out = vec![Value::Empty];
        RowOp::new().execute(&call, &mut out)?;
        Ok(out[0]
            .as_heavy::<Image>()
            .cloned()
            .unwrap_or_else(|| Image::filled(0, 0, [0.0; 4])))
    }

    #[test]
    fn images_side_by_side_with_the_background_below() {
        let red = Image::filled(2, 2, [1.0, 0.0, 0.0, 1.0]).into_value();
        let blue = Image::filled(1, 1, [0.0, 0.0, 1.0, 1.0]).into_value();
        let bg = [0.5, 0.5, 0.5, 1.0];
        let img = run(&[Value::list([red, blue]), Value::Color(bg)]).unwrap();
        assert_eq!((img.width, img.height), (3, 2));
        assert_eq!(img.get(1, 1), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(img.get(2, 0), [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(img.get(2, 1), bg);
        let none = run(&[Value::list([]), Value::Color(bg)]).unwrap_err();
        assert!(none.message.contains("no images"));
        let bad = run(&[Value::list([Value::Int(1)]), Value::Color(bg)]).unwrap_err();
        assert!(bad.message.contains("element 0"));
        let mut short = Image::filled(2, 2, bg);
        short.pixels.pop();
        let e = run(&[Value::list([short.into_value()]), Value::Color(bg)]).unwrap_err();
        assert!(e.message.contains("3 pixels, not 2 x 2"), "{}", e.message);
        let wide = Image::filled(MAX_SIDE, 1, bg).into_value();
        let e = run(&[Value::list([wide.clone(), wide]), Value::Color(bg)]).unwrap_err();
        assert!(e.message.contains("16384"), "{}", e.message);
    }
}
