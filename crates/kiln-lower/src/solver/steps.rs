//! How many whole steps of a fixed `dt` a clock time has reached.

/// Relative tolerance, in units of the step count, within which a count just below a whole
/// number is taken to be that number: a time written as `k * dt` divided back by `dt` may
/// come out a few ulps below `k` (`0.7 / 0.1 = 6.999…`).
const SNAP_ULPS: f64 = 64.0 * f64::EPSILON;

/// The number of whole steps of length `dt` (finite, > 0) reached at time `t`:
/// `floor(t / dt)`, except that a quotient within a few ulps below a whole number `k` counts
/// as `k`, so `t = k * dt` gives `k` despite rounding. A negative or NaN time gives 0; a
/// count beyond `u64` saturates to `u64::MAX` (which the solver's run limit then refuses).
///
/// ```
/// use kiln_lower::solver::steps_at;
/// assert_eq!(steps_at(0.7, 0.1), 7); // 0.7 / 0.1 = 6.999999999999999
/// assert_eq!(steps_at(0.69, 0.1), 6);
/// assert_eq!(steps_at(-1.0, 0.1), 0);
/// ```
pub fn steps_at(t: f64, dt: f64) -> u64 {
    if t.is_nan() || t <= 0.0 || dt.is_nan() || dt <= 0.0 {
        return 0;
    }
    let q = t / dt;
    if !q.is_finite() || q >= u64::MAX as f64 {
        return u64::MAX;
    }
    let nearest = q.round();
    let whole = if (nearest - q).abs() <= SNAP_ULPS * nearest.max(1.0) {
        nearest
    } else {
        q.floor()
    };
    whole as u64
}

#[cfg(test)]
mod tests {
    use super::steps_at;

    #[test]
    fn whole_multiples_count_exactly() {
        for dt in [0.1, 1.0 / 60.0, 1.0 / 3.0, 0.01, 0.025, 7.3] {
            for k in 0..5000u64 {
                assert_eq!(steps_at(k as f64 * dt, dt), k, "k={k} dt={dt}");
            }
        }
    }

    #[test]
    fn between_steps_floors() {
        assert_eq!(steps_at(0.05, 0.1), 0);
        assert_eq!(steps_at(0.15, 0.1), 1);
        assert_eq!(steps_at(0.999, 1.0), 0);
        assert_eq!(steps_at(1.5, 1.0), 1);
        // Just below a multiple by far more than rounding: still the step before.
        assert_eq!(steps_at(3.0 - 1e-9, 1.0), 2);
    }

    #[test]
    fn negative_nan_and_huge_times() {
        assert_eq!(steps_at(-0.5, 0.1), 0);
        assert_eq!(steps_at(f64::NAN, 0.1), 0);
        assert_eq!(steps_at(0.0, 0.1), 0);
        assert_eq!(steps_at(f64::INFINITY, 0.1), u64::MAX);
        assert_eq!(steps_at(1e300, 1e-10), u64::MAX);
    }
}
