//! Symmetric distance matrices stored as their upper triangle.

use rayon::prelude::*;
use txanon_data::{ItemId, TransactionDb};

use crate::error::CorrelateError;
use crate::pairs::PairCounts;
use crate::phi::phi2_transaction;

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
        Self::from_rows(n, |i, row| {
            for (k, slot) in row.iter_mut().enumerate() {
                *slot = f(i, i + 1 + k);
            }
        })
    }

    /// The matrix whose row `i` above the diagonal (`d(i, i + 1..n)`) `fill(i, row)` writes,
    /// rows in parallel.
    pub(crate) fn from_rows(n: usize, fill: impl Fn(usize, &mut [f64]) + Sync) -> Self {
        let mut entries = vec![0.0; n * n.saturating_sub(1) / 2];
        let mut rows: Vec<(usize, &mut [f64])> = Vec::with_capacity(n);
        let mut rest = entries.as_mut_slice();
        for i in 0..n.saturating_sub(1) {
            let (row, tail) = rest.split_at_mut(n - i - 1);
            rows.push((i, row));
            rest = tail;
        }
        rows.into_par_iter().for_each(|(i, row)| fill(i, row));
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
    Ok(distances_of(&PairCounts::new(db)))
}

/// `1 − φ²` between every pair of the items `counts` counted.
fn distances_of(counts: &PairCounts) -> CondensedMatrix {
    let (m, n) = (counts.items(), counts.transactions().max(1) as f64);
    let share = |i: usize| f64::from(counts.support(i as ItemId)) / n;
    CondensedMatrix::from_rows(m, |i, row| {
        if counts.is_dense() {
            for (k, slot) in row.iter_mut().enumerate() {
                *slot = 1.0 - counts.phi2(i as ItemId, (i + 1 + k) as ItemId);
            }
            return;
        }
        let fi = share(i);
        // Every pair's φ² as if it never occurred, then the pairs that do.
        for (k, slot) in row.iter_mut().enumerate() {
            *slot = 1.0 - phi2_transaction(fi, share(i + 1 + k), 0.0);
        }
        counts.for_partners(i as ItemId, |j, both| {
            let fij = f64::from(both) / n;
            row[j as usize - i - 1] = 1.0 - phi2_transaction(fi, share(j as usize), fij);
        });
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::{prop, prop_assert_eq, proptest};

    use super::*;
    use crate::pairs::Counting;

    proptest! {
        /// Filled a row at a time from the pairs that occur, the distances are each pair's
        /// `1 − φ²` to the bit, pairs that never occur included, however the pairs were counted.
        #[test]
        fn rows_from_partners_are_every_pairs_distance(
            ts in prop::collection::vec(prop::collection::btree_set(0u32..30, 0..10), 1..50),
        ) {
            let rows: Vec<Vec<u32>> = ts.iter().map(|t| t.iter().copied().collect()).collect();
            let db = TransactionDb::from_int_transactions(rows);
            for counting in [Counting::PerThread, Counting::Blocks, Counting::Partners] {
                let counts = PairCounts::counted(&db, counting);
                let d = distances_of(&counts);
                for i in 0..db.num_items() {
                    for j in i + 1..db.num_items() {
                        let expected = 1.0 - counts.phi2(i as ItemId, j as ItemId);
                        prop_assert_eq!(d.get(i, j).to_bits(), expected.to_bits());
                    }
                }
            }
        }
    }
}
