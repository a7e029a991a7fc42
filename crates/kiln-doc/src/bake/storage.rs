//! Which folded values can be stored, and where: in the graph file, or in a blob.

use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use kiln_io::convert::{self, ColorStyle, Ctx};
use kiln_io::value_codec::encode_value;

/// Where a folded value is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// In the graph file, as a constant.
    Embedded,
    /// In a blob file beside the graph file.
    Blob,
}

/// Whether a folded value can be stored: in the graph file (reading back bit for bit) or in
/// a blob.
pub(super) fn storable(v: &Value, registry: &Registry) -> bool {
    match v {
        Value::Empty | Value::Error(_) => false,
        v if needs_blob(v) => encode_value(v, registry).is_some(),
        _ => true,
    }
}

/// Whether a value goes into a blob: it holds a heavy value, or its JSON form would not read
/// back bit for bit.
pub fn needs_blob(v: &Value) -> bool {
    fn heavy(v: &Value) -> bool {
        match v {
            Value::Heavy(_) => true,
            Value::List(items) => items.iter().any(heavy),
            _ => false,
        }
    }
    if heavy(v) {
        return true;
    }
    if matches!(v, Value::Empty | Value::Error(_)) {
        return false;
    }
    let j = convert::encode(v, Some(ValueType::Any), Ctx::Param, ColorStyle::Hex);
    !convert::decode_value(&j, Some(ValueType::Any), "").is_ok_and(|back| back.same_bits(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_heavy_and_inexact_values_need_blobs() {
        assert!(!needs_blob(&Value::Float(1.5)));
        assert!(!needs_blob(&Value::Float(f64::NAN)));
        assert!(!needs_blob(&Value::Float(-0.0)));
        assert!(!needs_blob(&Value::str("#fff")));
        assert!(!needs_blob(&Value::Vec3([1.0, f64::INFINITY, 0.0])));
        assert!(needs_blob(&Value::Float(f64::from_bits(
            0x7ff8_dead_0000_0001
        ))));
        let img = kiln_image::image::Image {
            width: 1,
            height: 1,
            pixels: vec![[0.5; 4]],
        }
        .into_value();
        assert!(needs_blob(&img));
        assert!(needs_blob(&Value::List(std::sync::Arc::from(vec![img]))));
    }
}
