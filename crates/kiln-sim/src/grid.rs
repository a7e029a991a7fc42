//! The grid state heavy type: a 2D grid of cells, each holding `channels` `f32` values.

use crate::pool;
use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_f32s, write_len};
use kiln_core::key::KeyHasher;
use kiln_core::op::OpError;
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use std::any::Any;

/// The registered type name of grids.
pub const GRID: &str = "grid";
/// The port type of grids.
pub const GRID_TYPE: ValueType = ValueType::Heavy(GRID);
/// Largest width or height of a grid.
pub const MAX_SIDE: u32 = 16_384;
/// Most cells times channels a grid may hold (2^28 floats, 1 GiB).
pub const MAX_FLOATS: u64 = 1 << 28;

/// A multi-channel `f32` grid, row-major, top row first, the channels of a cell adjacent:
/// channel `c` of cell `(x, y)` is `data[(y * width + x) * channels + c]`.
///
/// Its storage comes from and returns to the recycling pool ([`crate::pool`]).
#[derive(Debug, PartialEq)]
pub struct Grid {
    width: u32,
    height: u32,
    channels: u32,
    data: Vec<f32>,
}

impl Clone for Grid {
    fn clone(&self) -> Self {
        pool::count_clone();
        Grid {
            width: self.width,
            height: self.height,
            channels: self.channels,
            data: self.data.clone(),
        }
    }
}

impl Drop for Grid {
    fn drop(&mut self) {
        pool::give(std::mem::take(&mut self.data));
    }
}

/// Check a grid's size: each side from 1 to [`MAX_SIDE`], 1 to 16 channels, at most
/// [`MAX_FLOATS`] floats in all.
pub fn check_shape(width: i64, height: i64, channels: i64) -> Result<(u32, u32, u32), String> {
    for (v, what) in [(width, "width"), (height, "height")] {
        if !(1..=MAX_SIDE as i64).contains(&v) {
            return Err(format!(
                "expected a grid {what} from 1 to {MAX_SIDE}, found {v}"
            ));
        }
    }
    if !(1..=16).contains(&channels) {
        return Err(format!("expected 1 to 16 channels, found {channels}"));
    }
    let n = (width as u64) * (height as u64) * channels as u64;
    if n > MAX_FLOATS {
        return Err(format!(
            "a grid of {width} x {height} x {channels} = {n} floats is over the limit of {MAX_FLOATS}"
        ));
    }
    Ok((width as u32, height as u32, channels as u32))
}

impl Grid {
    /// A grid of `width` x `height` cells of `channels` floats with unspecified contents
    /// (recycled storage): the caller writes every float. Sizes are checked
    /// ([`check_shape`]) and the storage reserved through [`kiln_core::memory`].
    pub fn uninit(width: u32, height: u32, channels: u32) -> Result<Grid, OpError> {
        check_shape(width as i64, height as i64, channels as i64).map_err(OpError::new)?;
        let len = width as usize * height as usize * channels as usize;
        let data = pool::take(len, || {
            format!("a grid of {width} x {height} x {channels} floats")
        })?;
        Ok(Grid {
            width,
            height,
            channels,
            data,
        })
    }
    /// A grid with every cell holding `cell` (one value per channel).
    pub fn filled(width: u32, height: u32, cell: &[f32]) -> Result<Grid, OpError> {
        let mut g = Grid::uninit(width, height, cell.len() as u32)?;
        for c in g.data.chunks_exact_mut(cell.len()) {
            c.copy_from_slice(cell);
        }
        Ok(g)
    }
    /// A grid from its floats (`data.len()` must be `width * height * channels`).
    pub fn from_data(
        width: u32,
        height: u32,
        channels: u32,
        data: Vec<f32>,
    ) -> Result<Grid, String> {
        check_shape(width as i64, height as i64, channels as i64)?;
        let want = width as usize * height as usize * channels as usize;
        if data.len() != want {
            return Err(format!(
                "a {width} x {height} x {channels} grid holds {want} floats, found {}",
                data.len()
            ));
        }
        Ok(Grid {
            width,
            height,
            channels,
            data,
        })
    }
    /// Width in cells.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// Height in cells.
    pub fn height(&self) -> u32 {
        self.height
    }
    /// Floats per cell.
    pub fn channels(&self) -> u32 {
        self.channels
    }
    /// All floats (see the type's docs for the layout).
    pub fn data(&self) -> &[f32] {
        &self.data
    }
    /// All floats, to write.
    pub fn data_mut(&mut self) -> &mut [f32] {
        &mut self.data
    }
    /// Floats in one row.
    pub fn row_len(&self) -> usize {
        self.width as usize * self.channels as usize
    }
    /// Channel `c` of cell `(x, y)`.
    pub fn get(&self, x: u32, y: u32, c: u32) -> f32 {
        self.data[self.index(x, y) + c as usize]
    }
    /// Set channel `c` of cell `(x, y)`.
    pub fn set(&mut self, x: u32, y: u32, c: u32, v: f32) {
        let i = self.index(x, y) + c as usize;
        self.data[i] = v;
    }
    fn index(&self, x: u32, y: u32) -> usize {
        (y as usize * self.width as usize + x as usize) * self.channels as usize
    }
    /// Sum of channel `c` over every cell (in f64, in cell order).
    pub fn channel_sum(&self, c: u32) -> f64 {
        self.data
            .iter()
            .skip(c as usize)
            .step_by(self.channels as usize)
            .map(|&v| v as f64)
            .sum()
    }
    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }
}

impl HeavyData for Grid {
    fn type_name(&self) -> &'static str {
        GRID
    }
    fn byte_size(&self) -> usize {
        self.data.len() * 4
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.width as u64);
        h.u64(self.height as u64);
        h.u64(self.channels as u64);
        h.f32_slice(&self.data);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The binary form of grids (tag 40): u32 width, u32 height, u32 channels, u64 float count,
/// then the floats as f32 bits. A count that does not match the shape is refused.
#[derive(Clone, Copy, Debug, Default)]
pub struct GridCodec;

impl HeavyCodec for GridCodec {
    fn type_name(&self) -> &'static str {
        GRID
    }
    fn tag(&self) -> u8 {
        40
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let g = value
            .downcast::<Grid>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        out.extend_from_slice(&g.width.to_le_bytes());
        out.extend_from_slice(&g.height.to_le_bytes());
        out.extend_from_slice(&g.channels.to_le_bytes());
        write_len(out, g.data.len());
        write_f32s(out, &g.data);
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let at = input.position();
        let width = input.u32("a grid's width")?;
        let height = input.u32("a grid's height")?;
        let channels = input.u32("a grid's channel count")?;
        let n = input.count(4, "grid floats")?;
        let data = input.f32_vec(n, "grid floats")?;
        Grid::from_data(width, height, channels, data)
            .map(Grid::into_value)
            .map_err(|m| CodecError::invalid(at, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_core::codec::HeavyCodec;

    #[test]
    fn grids_round_trip_through_their_codec_bit_for_bit() {
        let mut g = Grid::filled(3, 2, &[0.25, -0.0]).unwrap();
        g.set(2, 1, 1, f32::MIN_POSITIVE / 2.0);
        let v = g.clone().into_value();
        let mut bytes = vec![];
        let Value::Heavy(h) = &v else { panic!() };
        GridCodec.encode(h, &mut bytes).unwrap();
        assert_eq!(bytes.len(), 12 + 8 + 12 * 4);
        let back = GridCodec.decode(&mut ByteReader::new(&bytes)).unwrap();
        assert!(back.same_bits(&v));
        assert_eq!(back.as_heavy::<Grid>(), Some(&g));
        // A count that does not fit the shape is refused.
        bytes[12] = 11;
        assert!(GridCodec.decode(&mut ByteReader::new(&bytes)).is_err());
    }

    #[test]
    fn shapes_are_checked() {
        assert!(check_shape(0, 4, 1).is_err());
        assert!(check_shape(4, 4, 0).is_err());
        assert!(check_shape(16_384, 16_384, 2).is_err());
        assert_eq!(check_shape(4, 5, 2), Ok((4, 5, 2)));
        assert!(Grid::from_data(2, 2, 1, vec![0.0; 3]).is_err());
    }
}
