//! Slicing a node's inputs out of the stream's sample arena.

/// Call `f` with the input slices `[off + at, off + at + len)` of the arena at `base` (of
/// `total` samples), without allocating for up to 16 inputs. Each slice is made on its own
/// from the raw pointer, so a caller may hold a disjoint mutable slice of the same arena.
#[inline]
pub(super) fn with_inputs<'a, R>(
    offs: &[usize],
    base: *const f64,
    total: usize,
    at: usize,
    len: usize,
    f: impl FnOnce(&[&'a [f64]]) -> R,
) -> R {
    let get = |o: usize| -> &'a [f64] {
        assert!(o + at + len <= total);
        // SAFETY: in bounds (checked above); the caller guarantees nothing writes this range
        // while `f` runs.
        unsafe { std::slice::from_raw_parts(base.add(o + at), len) }
    };
    match *offs {
        [] => f(&[]),
        [a] => f(&[get(a)]),
        [a, b] => f(&[get(a), get(b)]),
        [a, b, c] => f(&[get(a), get(b), get(c)]),
        _ if offs.len() <= 16 => {
            let mut arr: [&[f64]; 16] = [&[]; 16];
            for (slot, &o) in arr.iter_mut().zip(offs) {
                *slot = get(o);
            }
            f(&arr[..offs.len()])
        }
        _ => {
            let v: Vec<&[f64]> = offs.iter().map(|&o| get(o)).collect();
            f(&v)
        }
    }
}
