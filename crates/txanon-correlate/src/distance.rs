//! Symmetric distance matrices stored as their upper triangle.

use rayon::prelude::*;
use txanon_data::TransactionDb;

use crate::error::CorrelateError;
use crate::pairs::PairCounts;

/// Items beyond which [`item_distances`] refuses: the condensed matrix would exceed 4 GiB.
pub const MAX_ITEMS: usize = 32_768;

/// A symmetric `n × n` matrix with a zero diagonal, stored as the `n(n−1)/2` entries above the
/// diagonal, row by row (SciPy's "condensed" form).
#[derive(Debug, Clone, PartialEq)]
pub struct CondensedMatrix {
    n: usize,
    entries: Vec<f64>,
}

impl CondensedMatrix {
    /// The matrix with `d(i, j) = f(i, j)` for `i < j`, filled row by row in parallel.
    pub fn from_fn(n: usize, f: impl Fn(usize, usize) -> f64 + Sync) -> Self {
        let mut entries = vec![0.0; n * n.saturating_sub(1) / 2];
        let mut rows: Vec<(usize, &mut [f64])> = Vec::with_capacity(n);
        let mut rest = entries.as_mut_slice();
        for i in 0..n.saturating_sub(1) {
            let (row, tail) = rest.split_at_mut(n - i - 1);
            rows.push((i, row));
            rest = tail;
        }
        rows.into_par_iter().for_each(|(i, row)| {
            for (k, slot) in row.iter_mut().enumerate() {
                *slot = f(i, i + 1 + k);
            }
        });
        Self { n, entries }
    }

    /// Wraps `entries`, the upper triangle row by row.
    ///
    /// # Errors
    /// [`CorrelateError::LengthMismatch`] when `entries` is not `n(n−1)/2` long;
    /// [`CorrelateError::BadDistance`] for a negative or non-finite entry.
    pub fn from_entries(n: usize, entries: Vec<f64>) -> Result<Self, CorrelateError> {
        let expected = n * n.saturating_sub(1) / 2;
        if entries.len() != expected {
            return Err(CorrelateError::LengthMismatch {
                what: "condensed matrix entries vs n(n-1)/2",
                left: entries.len(),
                right: expected,
            });
        }
        let m = Self { n, entries };
        m.check()?;
        Ok(m)
    }

    /// Checks every entry is a finite number ≥ 0.
    pub(crate) fn check(&self) -> Result<(), CorrelateError> {
        for i in 0..self.n {
            for j in i + 1..self.n {
                let value = self.get(i, j);
                if !(value.is_finite() && value >= 0.0) {
                    return Err(CorrelateError::BadDistance { i, j, value });
                }
            }
        }
        Ok(())
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True for a matrix of no point.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// `d(i, j)`; 0 on the diagonal.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        match i.cmp(&j) {
            std::cmp::Ordering::Equal => 0.0,
            std::cmp::Ordering::Less => self.entries[i * (2 * self.n - i - 1) / 2 + (j - i - 1)],
            std::cmp::Ordering::Greater => self.entries[j * (2 * self.n - j - 1) / 2 + (i - j - 1)],
        }
    }

    /// The entries above the diagonal, row by row.
    pub fn entries(&self) -> &[f64] {
        &self.entries
    }
}

/// The anatomy paper's item distance `d(a, b) = 1 − φ²(a, b)` (eq. 4) between every pair of
/// items of `db`, from one pass of pair counting.
///
/// # Errors
/// [`CorrelateError::TooManyItems`] beyond [`MAX_ITEMS`] items.
pub fn item_distances(db: &TransactionDb) -> Result<CondensedMatrix, CorrelateError> {
    let m = db.num_items();
    if m > MAX_ITEMS {
        return Err(CorrelateError::TooManyItems {
            items: m,
            entries: (m as u128) * (m as u128 - 1) / 2,
            max: MAX_ITEMS,
        });
    }
    let counts = PairCounts::new(db);
    Ok(CondensedMatrix::from_fn(m, |i, j| 1.0 - counts.phi2(i as u32, j as u32)))
}
