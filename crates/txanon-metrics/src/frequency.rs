//! Metrics over item frequencies and records: dissimilarity, item loss, record distortion, and
//! KL-divergence between distributions.

use std::collections::HashMap;

use serde::Serialize;
use txanon_data::TransactionDb;

use crate::error::MetricError;

/// Item frequencies of both databases over the union of their labels: `(f_D(i), f_D̃(i))`.
fn paired_frequencies(original: &TransactionDb, anonymized: &TransactionDb) -> Vec<(u64, u64)> {
    let mut by_label: HashMap<String, (u64, u64)> = HashMap::new();
    for (i, &s) in original.supports().iter().enumerate() {
        by_label.entry(original.label(i as u32).to_string()).or_default().0 += u64::from(s);
    }
    for (i, &s) in anonymized.supports().iter().enumerate() {
        by_label.entry(anonymized.label(i as u32).to_string()).or_default().1 += u64::from(s);
    }
    by_label.into_values().collect()
}

/// Dissimilarity of Oliveira & Zaïane (2002):
/// `Diss(D, D̃) = Σ_i |f_D(i) − f_D̃(i)| / Σ_i f_D(i)`, over every item `i` of either database,
/// `f` the number of transactions containing `i`. 0 for identical frequencies; 0 when `D` has no
/// item occurrence at all and neither has `D̃`.
pub fn dissimilarity(original: &TransactionDb, anonymized: &TransactionDb) -> f64 {
    dissimilarity_of(&paired_frequencies(original, anonymized))
}

/// [`dissimilarity`] from the item frequencies `(f_D(i), f_D̃(i))` of every item of either
/// database (for a publication that is not a database of records, such as groups or buckets,
/// whose item frequencies are still published).
pub fn dissimilarity_of(pairs: &[(u64, u64)]) -> f64 {
    let diff: u64 = pairs.iter().map(|&(a, b)| a.abs_diff(b)).sum();
    let base: u64 = pairs.iter().map(|&(a, _)| a).sum();
    if base == 0 { if diff == 0 { 0.0 } else { f64::INFINITY } } else { diff as f64 / base as f64 }
}

/// What anonymization took away (and added), item by item.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ItemLoss {
    /// Occurrences removed: `Σ_i max(0, f_D(i) − f_D̃(i))`.
    pub occurrences_removed: u64,
    /// Occurrences added: `Σ_i max(0, f_D̃(i) − f_D(i))` (swapping moves items, fake items add).
    pub occurrences_added: u64,
    /// `occurrences_removed / Σ_i f_D(i)` (0 when `D` is empty).
    pub fraction_removed: f64,
    /// Distinct items of `D` that no longer occur in `D̃`.
    pub distinct_removed: usize,
    /// Distinct items of `D` (with support ≥ 1).
    pub distinct_original: usize,
}

/// Item loss between `D` and `D̃`, see [`ItemLoss`].
pub fn item_loss(original: &TransactionDb, anonymized: &TransactionDb) -> ItemLoss {
    item_loss_of(&paired_frequencies(original, anonymized))
}

/// [`item_loss`] from the item frequencies `(f_D(i), f_D̃(i))` of every item of either database.
pub fn item_loss_of(pairs: &[(u64, u64)]) -> ItemLoss {
    let removed: u64 = pairs.iter().map(|&(a, b)| a.saturating_sub(b)).sum();
    let added: u64 = pairs.iter().map(|&(a, b)| b.saturating_sub(a)).sum();
    let base: u64 = pairs.iter().map(|&(a, _)| a).sum();
    ItemLoss {
        occurrences_removed: removed,
        occurrences_added: added,
        fraction_removed: if base == 0 { 0.0 } else { removed as f64 / base as f64 },
        distinct_removed: pairs.iter().filter(|&&(a, b)| a > 0 && b == 0).count(),
        distinct_original: pairs.iter().filter(|&&(a, _)| a > 0).count(),
    }
}

/// Record-level distortion: the mean Jaccard distance `1 − |t ∩ t̃| / |t ∪ t̃|` between each
/// record `t` of `D` and its published version `t̃` (record `k` of `D̃`), items compared by label;
/// two empty records are at distance 0. Only meaningful where records correspond one to one
/// (suppression, swapping), not after a method that reorders or splits records.
///
/// # Errors
/// [`MetricError::Mismatch`] when the record counts differ.
pub fn record_distortion(
    original: &TransactionDb,
    anonymized: &TransactionDb,
) -> Result<f64, MetricError> {
    if original.len() != anonymized.len() {
        return Err(MetricError::Mismatch {
            what: "records (record distortion needs corresponding records)",
            left: original.len(),
            right: anonymized.len(),
        });
    }
    if original.is_empty() {
        return Ok(0.0);
    }
    let alignment = crate::ItemAlignment::new(original, anonymized);
    let mut mapped = Vec::new();
    let mut total = 0.0;
    for (t, u) in original.iter().zip(anonymized.iter()) {
        mapped.clear();
        // Items unknown to D cannot be shared; they count in the union through `u.len()`.
        mapped.extend(u.iter().filter_map(|&i| alignment.original(i)));
        mapped.sort_unstable();
        let shared = txanon_data::sets::intersection_len(t, &mapped);
        let union = t.len() + u.len() - shared;
        if union > 0 {
            total += 1.0 - shared as f64 / union as f64;
        }
    }
    Ok(total / original.len() as f64)
}

/// Floor for an estimated probability that is 0 where the actual one is not (see
/// [`kl_divergence`]).
pub const KL_FLOOR: f64 = 1e-10;

/// KL-divergence `Σ_c Act(c) · ln(Act(c) / Est(c))` between two distributions over the same
/// cells, in nats. Both are normalized to sum 1 first (so counts may be passed).
///
/// Empty cells: a cell with `Act = 0` contributes 0 (the limit of `x ln x`); a cell with
/// `Act > 0` but `Est = 0` would make the divergence infinite, so `Est` is taken as
/// [`KL_FLOOR`] there, keeping a single missed cell a large but finite penalty that can be
/// averaged over queries (the cahd family's reconstruction error does).
///
/// # Errors
/// [`MetricError::Mismatch`] when the lengths differ; [`MetricError::NotADistribution`] for a
/// negative or non-finite cell or an all-zero input.
pub fn kl_divergence(actual: &[f64], estimate: &[f64]) -> Result<f64, MetricError> {
    if actual.len() != estimate.len() {
        return Err(MetricError::Mismatch {
            what: "distribution cells",
            left: actual.len(),
            right: estimate.len(),
        });
    }
    let total = |v: &[f64]| -> Result<f64, MetricError> {
        if v.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err(MetricError::NotADistribution("a cell is negative or not finite"));
        }
        let s: f64 = v.iter().sum();
        if s > 0.0 { Ok(s) } else { Err(MetricError::NotADistribution("every cell is 0")) }
    };
    let (sa, se) = (total(actual)?, total(estimate)?);
    Ok(actual
        .iter()
        .zip(estimate)
        .filter(|(a, _)| **a > 0.0)
        .map(|(a, e)| {
            let (p, q) = (a / sa, if *e > 0.0 { e / se } else { KL_FLOOR });
            p * (p / q).ln()
        })
        .sum())
}
