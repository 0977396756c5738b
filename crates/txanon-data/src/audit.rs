//! What every family's audit shares: a bounded list of typed violations, and the exact
//! comparison of a count's share with a bound given as a float.
//!
//! An audit reports violations, not the first one only, so that whoever reads a failed audit
//! sees the extent of the damage; it stops after [`MAX_VIOLATIONS`] of them, since a tampered
//! file may break its guarantee millions of times.

use std::fmt;

/// How many violations an audit lists before it stops looking.
pub const MAX_VIOLATIONS: usize = 20;

/// An audit that failed: the violations found, each a family's own typed value naming what
/// failed and where, in the order found; `truncated` when the audit stopped at
/// [`MAX_VIOLATIONS`].
#[derive(Debug, Clone, PartialEq)]
pub struct Violations<V> {
    list: Vec<V>,
    truncated: bool,
}

impl<V> Violations<V> {
    /// The violations found (at least one).
    pub fn list(&self) -> &[V] {
        &self.list
    }

    /// The first violation.
    pub fn first(&self) -> &V {
        &self.list[0]
    }

    /// True when the audit stopped looking after [`MAX_VIOLATIONS`].
    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

impl<V: fmt::Display> fmt::Display for Violations<V> {
    /// The first five violations, one per line after the first, and how many more there are.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 5;
        let more = if self.truncated { "or more " } else { "" };
        write!(f, "{} {more}violation(s)", self.list.len())?;
        for v in self.list.iter().take(SHOWN) {
            write!(f, "\n  - {v}")?;
        }
        if self.list.len() > SHOWN {
            write!(f, "\n  - … and {} {more}more", self.list.len() - SHOWN)?;
        }
        Ok(())
    }
}

/// Collects the violations of one audit.
#[derive(Debug)]
pub struct ViolationLog<V> {
    list: Vec<V>,
    truncated: bool,
}

impl<V> Default for ViolationLog<V> {
    fn default() -> Self {
        Self { list: Vec::new(), truncated: false }
    }
}

impl<V> ViolationLog<V> {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `violation`; false once the log is full, when the audit should stop looking.
    pub fn push(&mut self, violation: V) -> bool {
        if self.list.len() < MAX_VIOLATIONS {
            self.list.push(violation);
            true
        } else {
            self.truncated = true;
            false
        }
    }

    /// True when the log holds [`MAX_VIOLATIONS`] violations: looking further is wasted work.
    pub fn is_full(&self) -> bool {
        self.list.len() >= MAX_VIOLATIONS
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// `Ok(report)` when nothing was recorded, the violations otherwise.
    ///
    /// # Errors
    /// The violations recorded.
    pub fn finish<R>(self, report: R) -> Result<R, Violations<V>> {
        if self.list.is_empty() {
            Ok(report)
        } else {
            Err(Violations { list: self.list, truncated: self.truncated })
        }
    }

    /// Stops the audit with what has been recorded so far, when anything has: for a check
    /// whose failure makes the later ones meaningless (a malformed structure).
    ///
    /// # Errors
    /// The violations recorded.
    pub fn stop_if_any(&mut self) -> Result<(), Violations<V>> {
        if self.list.is_empty() {
            Ok(())
        } else {
            Err(Violations { list: std::mem::take(&mut self.list), truncated: self.truncated })
        }
    }
}

/// Whether `count / total > bound`, decided exactly in integers, reading `bound` as the decimal
/// it prints as (Rust's shortest form that reads back as the same `f64`: `0.3` is 3/10, not the
/// binary double just below it). So a share equal to the bound the user typed never exceeds
/// it, and no rounding of `count as f64 / total as f64` can let a share just above it pass. A
/// `total` of 0 exceeds nothing.
///
/// # Panics
/// When `bound` is negative, infinite or NaN (a claim's constructor rules those out).
pub fn share_exceeds(count: u64, total: u64, bound: f64) -> bool {
    assert!(bound.is_finite() && bound >= 0.0, "a share bound is finite and non-negative");
    if total == 0 {
        return false;
    }
    if bound == 0.0 {
        return count > 0;
    }
    // `{:e}` prints the shortest round-trip digits: `3e-1`, `1.25e0`.
    let text = format!("{bound:e}");
    let (mantissa, exponent) = text.split_once('e').expect("`{:e}` has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let fraction_digits = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    let digits: u128 = mantissa.replace('.', "").parse().expect("at most 17 digits");
    // bound = digits · 10^power.
    let power = exponent - fraction_digits;
    let right = digits * u128::from(total);
    if power >= 0 {
        // count > digits · total · 10^power; a right side beyond u128 is beyond any count.
        match 10u128.checked_pow(power as u32).and_then(|scale| right.checked_mul(scale)) {
            Some(right) => u128::from(count) > right,
            None => false,
        }
    } else {
        // count · 10^(−power) > digits · total; a left side beyond u128 (with count > 0)
        // exceeds the right side, which fits.
        match 10u128
            .checked_pow(power.unsigned_abs())
            .and_then(|s| u128::from(count).checked_mul(s))
        {
            Some(left) => left > right,
            None => count > 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_compared_exactly() {
        assert!(!share_exceeds(1, 2, 0.5));
        assert!(share_exceeds(2, 3, 0.5));
        assert!(!share_exceeds(0, 3, 0.0));
        assert!(share_exceeds(1, u64::MAX, 0.0));
        assert!(!share_exceeds(5, 0, 0.1));
        assert!(!share_exceeds(u64::MAX, 1, 1e300));
        // 0.3 is the double just below 3/10, read as the decimal 0.3: 3 of 10 is not above.
        assert!(!share_exceeds(3, 10, 0.3));
        assert!(share_exceeds(3_000_000_001, 10_000_000_000, 0.3));
        assert!(!share_exceeds(1, 10, 0.1));
        // 1/3 prints as 0.3333333333333333: a third is above that decimal.
        assert!(share_exceeds(1, 3, 1.0 / 3.0));
        assert!(!share_exceeds(1, 4, 0.25));
        assert!(share_exceeds(1, 1 << 60, f64::MIN_POSITIVE));
        assert!(share_exceeds(u64::MAX, u64::MAX - 1, 1.0));
        assert!(!share_exceeds(u64::MAX, u64::MAX, 1.0));
    }

    #[test]
    fn log_stops_at_its_limit() {
        let mut log = ViolationLog::new();
        for i in 0..MAX_VIOLATIONS {
            assert!(log.push(i));
        }
        assert!(!log.push(99));
        let err = log.finish(()).unwrap_err();
        assert!(err.truncated());
        assert_eq!(err.list().len(), MAX_VIOLATIONS);
        assert!(err.to_string().starts_with("20 or more violation(s)"));
        assert!(ViolationLog::<u8>::new().finish(7).is_ok());
    }
}
