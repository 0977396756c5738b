//! The independent checker: re-derives l-diversity from the published table alone.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::error::AnatomyError;
use crate::table::AnatomizedTable;

/// Which reading of l-diversity to verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Diversity {
    /// The paper's Definition 5, what [`anatomize`](crate::anatomize) guarantees: in every bucket
    /// and column the most frequent value is held by at most `1/l` of the bucket.
    Frequency,
    /// At least `l` distinct values in every bucket and column: how the paper's Theorem 2 proof
    /// and its Example 4 read it. Weaker: implied by `Frequency`, not the converse.
    Distinct,
}

/// What the audit found in a table that passes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    /// The diversity verified.
    pub l: usize,
    /// Buckets.
    pub buckets: usize,
    /// Published records.
    pub records: usize,
    /// The smallest bucket.
    pub smallest_bucket: usize,
    /// The largest share of a bucket held by one value of one column (at most `1/l`).
    pub worst_share: f64,
}

/// Verifies, from the published table alone, that it is an l-diverse multi-dimension anatomy
/// (the paper's Definition 5) for `l` (default: the `l` the table claims):
/// the columns' item sets are pairwise disjoint; every bucket has one multiset per column, all
/// of the same size, at least 1; every value is a set of its column's items; and in every bucket
/// and column the most frequent value (the empty set included) accounts for at most `1/l` of
/// the bucket ([`Diversity::Frequency`]), or there are at least `l` distinct values
/// ([`Diversity::Distinct`]).
///
/// # Errors
/// [`AnatomyError::Audit`] naming the first violation found.
pub fn audit(
    table: &AnatomizedTable,
    l: Option<usize>,
    diversity: Diversity,
) -> Result<AuditReport, AnatomyError> {
    let l = l.unwrap_or(table.l);
    let fail = |msg: String| Err(AnatomyError::Audit(msg));
    if l < 2 {
        return fail(format!("l = {l}: a table is only audited for l ≥ 2"));
    }
    let p = table.columns.len();
    let mut column_of: HashMap<&str, usize> = HashMap::new();
    for (j, items) in table.columns.iter().enumerate() {
        for item in items {
            if let Some(other) = column_of.insert(item, j) {
                return fail(format!(
                    "item {item:?} is in columns {other} and {j}: columns must be disjoint"
                ));
            }
        }
    }
    let (mut records, mut smallest, mut worst) = (0, usize::MAX, 0.0f64);
    for (b, bucket) in table.buckets.iter().enumerate() {
        if bucket.len() != p {
            return fail(format!("bucket {b} has {} columns, the table {p}", bucket.len()));
        }
        let size = bucket[0].len();
        if size == 0 {
            return fail(format!("bucket {b} is empty"));
        }
        for (j, column) in bucket.iter().enumerate() {
            if column.len() != size {
                return fail(format!(
                    "bucket {b}: column {j} has {} values, column 0 has {size}",
                    column.len()
                ));
            }
            let mut counts: HashMap<Vec<&str>, usize> = HashMap::new();
            for value in column {
                let mut seen = HashSet::new();
                for item in value {
                    if column_of.get(item.as_str()) != Some(&j) {
                        return fail(format!(
                            "bucket {b}, column {j}: item {item:?} is not an item of column {j}"
                        ));
                    }
                    if !seen.insert(item.as_str()) {
                        return fail(format!(
                            "bucket {b}, column {j}: item {item:?} twice in one value"
                        ));
                    }
                }
                let mut key: Vec<&str> = value.iter().map(String::as_str).collect();
                key.sort_unstable();
                *counts.entry(key).or_default() += 1;
            }
            let (value, &most) = counts.iter().max_by_key(|(_, c)| **c).expect("size ≥ 1");
            if diversity == Diversity::Distinct && counts.len() < l {
                return fail(format!(
                    "bucket {b}, column {j}: {} distinct values, fewer than l = {l}",
                    counts.len()
                ));
            }
            if diversity == Diversity::Frequency && most * l > size {
                return fail(format!(
                    "bucket {b}, column {j}: value {value:?} occurs {most} times in {size} records, more than 1/{l}"
                ));
            }
            worst = worst.max(most as f64 / size as f64);
        }
        records += size;
        smallest = smallest.min(size);
    }
    if table.buckets.is_empty() {
        return fail("the table has no bucket".into());
    }
    Ok(AuditReport {
        l,
        buckets: table.buckets.len(),
        records,
        smallest_bucket: smallest,
        worst_share: worst,
    })
}
