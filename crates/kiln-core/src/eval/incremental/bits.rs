//! A fixed-size bitmap.

/// A fixed-size bitmap.
#[derive(Default)]
pub(super) struct Bits(pub(super) Vec<u64>);

impl Bits {
    pub(super) fn ones(n: usize) -> Self {
        let mut b = Bits(vec![u64::MAX; n.div_ceil(64)]);
        if !n.is_multiple_of(64)
            && let Some(last) = b.0.last_mut()
        {
            *last = (1u64 << (n % 64)) - 1;
        }
        b
    }
    /// Call `f` with the index of each set bit, ascending.
    #[inline]
    pub(super) fn for_each_one(&self, mut f: impl FnMut(usize)) {
        for (w, &word) in self.0.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                f(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> bool {
        self.0[i >> 6] & (1 << (i & 63)) != 0
    }
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }
    #[inline(always)]
    pub(super) fn clear(&mut self, i: usize) {
        self.0[i >> 6] &= !(1 << (i & 63));
    }
}
