//! The independent checker: re-derives l-diversity from the published table alone.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::AnatomyError;
use crate::params::Diversity;
use crate::table::{AnatomizedTable, TABLE_FORMAT, ValueCount};

/// What the audit found in a table that passes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    /// The diversity verified.
    pub l: usize,
    /// In which reading.
    pub diversity: Diversity,
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
/// for `l` (default: the `l` the table claims) in the reading `diversity` (default: the one the
/// table claims):
/// the format is known; the columns' item sets are pairwise disjoint and each item appears once;
/// every bucket has one multiset per column; every multiset's counts are positive and add up to
/// the bucket's size, at least 1; every value is a strictly ascending list of positions in its
/// column; the values of a multiset are listed in strictly ascending order (canonical: no value
/// twice, and no order that could carry information); and in every bucket and column the most frequent value
/// (the empty set included) accounts for at most `1/l` of the bucket ([`Diversity::Frequency`]),
/// or there are at least `l` distinct values ([`Diversity::Distinct`]).
///
/// # Errors
/// [`AnatomyError::Audit`] naming the first violation found.
pub fn audit(
    table: &AnatomizedTable,
    l: Option<usize>,
    diversity: Option<Diversity>,
) -> Result<AuditReport, AnatomyError> {
    let l = l.unwrap_or(table.l);
    let diversity = diversity.unwrap_or(table.diversity);
    let fail = |msg: String| Err(AnatomyError::Audit(msg));
    if table.format != TABLE_FORMAT {
        return fail(format!("format {:?}, expected {TABLE_FORMAT:?}", table.format));
    }
    if l < 2 {
        return fail(format!("l = {l}: a table is only audited for l ≥ 2"));
    }
    let p = table.columns.len();
    let mut column_of: HashMap<&str, usize> = HashMap::new();
    for (j, items) in table.columns.iter().enumerate() {
        for item in items {
            if let Some(other) = column_of.insert(item, j) {
                return fail(format!(
                    "item {item:?} is in columns {other} and {j}: columns must be disjoint and list each item once"
                ));
            }
        }
    }
    if table.buckets.is_empty() {
        return fail("the table has no bucket".into());
    }
    let (mut records, mut smallest, mut worst) = (0, usize::MAX, 0.0f64);
    for (b, bucket) in table.buckets.iter().enumerate() {
        if bucket.columns.len() != p {
            return fail(format!("bucket {b} has {} columns, the table {p}", bucket.columns.len()));
        }
        let size = bucket.size;
        if size == 0 {
            return fail(format!("bucket {b} is empty"));
        }
        for (j, multiset) in bucket.columns.iter().enumerate() {
            let width = table.columns[j].len() as u32;
            let (mut total, mut most) = (0usize, 0usize);
            let mut previous: Option<&[u32]> = None;
            for ValueCount(count, value) in multiset {
                if *count == 0 {
                    return fail(format!("bucket {b}, column {j}: a value with count 0"));
                }
                if value.windows(2).any(|w| w[0] >= w[1]) {
                    return fail(format!(
                        "bucket {b}, column {j}: value {value:?} is not a strictly ascending list of positions"
                    ));
                }
                if value.last().is_some_and(|&k| k >= width) {
                    return fail(format!(
                        "bucket {b}, column {j}: position {} beyond the column's {width} items",
                        value.last().expect("non-empty")
                    ));
                }
                if previous.is_some_and(|prev| prev >= value.as_slice()) {
                    return fail(format!(
                        "bucket {b}, column {j}: value {value:?} out of canonical order (values must be listed once each, ascending)"
                    ));
                }
                previous = Some(value);
                total += count;
                most = most.max(*count);
            }
            if total != size {
                return fail(format!(
                    "bucket {b}: column {j} holds {total} values, the bucket {size} records"
                ));
            }
            let shown = |pred: &dyn Fn(usize) -> bool| -> Vec<&str> {
                let value = multiset.iter().find(|v| pred(v.0)).map_or(&[][..], |v| &v.1[..]);
                value.iter().map(|&k| table.columns[j][k as usize].as_str()).collect()
            };
            if diversity == Diversity::Distinct && multiset.len() < l {
                return fail(format!(
                    "bucket {b}, column {j}: {} distinct values, fewer than l = {l}",
                    multiset.len()
                ));
            }
            if diversity == Diversity::Frequency && most * l > size {
                return fail(format!(
                    "bucket {b}, column {j}: value {:?} occurs {most} times in {size} records, more than 1/{l}",
                    shown(&|c| c == most)
                ));
            }
            worst = worst.max(most as f64 / size as f64);
        }
        records += size;
        smallest = smallest.min(size);
    }
    Ok(AuditReport {
        l,
        diversity,
        buckets: table.buckets.len(),
        records,
        smallest_bucket: smallest,
        worst_share: worst,
    })
}
