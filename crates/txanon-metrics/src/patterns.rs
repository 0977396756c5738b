//! Metrics over mined patterns: rule and itemset accuracy, Jaccard similarity, support error.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use txanon_data::{ItemId, TransactionDb};
use txanon_mining::{FrequentItemsets, Rule};

/// `matched / total`, with both counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ratio {
    /// `M`: how many of the original's were found again.
    pub matched: usize,
    /// `N`: how many the original has.
    pub total: usize,
    /// `M / N`, 1 when `N = 0` (nothing to lose).
    pub ratio: f64,
}

impl Ratio {
    fn new(matched: usize, total: usize) -> Self {
        let ratio = if total == 0 { 1.0 } else { matched as f64 / total as f64 };
        Self { matched, total, ratio }
    }
}

/// Rule accuracy ratio `AR = M / N`: of the `N` rules of the original, the `M` also found (same
/// antecedent, same consequent) among the anonymized data's rules, mined with the same support,
/// confidence and length bounds. Both in the original's ids (see
/// [`ItemAlignment::rules`](crate::ItemAlignment::rules)).
pub fn rule_accuracy(original: &[Rule], anonymized: &[Rule]) -> Ratio {
    let found: HashSet<(&[ItemId], &[ItemId])> =
        anonymized.iter().map(|r| (r.antecedent.as_slice(), r.consequent.as_slice())).collect();
    let matched = original
        .iter()
        .filter(|r| found.contains(&(r.antecedent.as_slice(), r.consequent.as_slice())))
        .count();
    Ratio::new(matched, original.len())
}

/// Itemset accuracy `M / N`: of the `N` frequent itemsets of the original, the `M` that are also
/// frequent in the anonymized data (supports not compared).
pub fn itemset_accuracy(original: &FrequentItemsets, anonymized: &FrequentItemsets) -> Ratio {
    let found: HashSet<&[ItemId]> = anonymized.iter().map(|(s, _)| s).collect();
    Ratio::new(original.iter().filter(|(s, _)| found.contains(s)).count(), original.len())
}

/// Jaccard similarity of the frequent-itemset collections,
/// `U(D̃, D) = |F_D ∩ F_D̃| / |F_D ∪ F_D̃|`; 1 when both are empty.
pub fn jaccard_itemsets(original: &FrequentItemsets, anonymized: &FrequentItemsets) -> f64 {
    let a: HashSet<&[ItemId]> = original.iter().map(|(s, _)| s).collect();
    let b: HashSet<&[ItemId]> = anonymized.iter().map(|(s, _)| s).collect();
    let union = a.union(&b).count();
    if union == 0 { 1.0 } else { a.intersection(&b).count() as f64 / union as f64 }
}

/// The F1 score of the anonymized data's frequent itemsets against the original's:
/// `2 · |F_D ∩ F_D̃| / (|F_D| + |F_D̃|)` (the harmonic mean of recall, [`itemset_accuracy`], and
/// precision); 1 when both are empty.
pub fn itemset_f1(original: &FrequentItemsets, anonymized: &FrequentItemsets) -> f64 {
    let a: HashSet<&[ItemId]> = original.iter().map(|(s, _)| s).collect();
    let b: HashSet<&[ItemId]> = anonymized.iter().map(|(s, _)| s).collect();
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    2.0 * a.intersection(&b).count() as f64 / (a.len() + b.len()) as f64
}

/// The mean relative error of estimated counts, `(1/|Q|) Σ_q |est(q) − true(q)| / true(q)`,
/// over `(true, estimate)` pairs with a true count of at least 1 (others are skipped: a
/// relative error of a zero count is undefined); 0 when none is left.
pub fn mean_relative_error(pairs: impl IntoIterator<Item = (f64, f64)>) -> f64 {
    let (mut total, mut n) = (0.0, 0usize);
    for (truth, estimate) in pairs {
        if truth >= 1.0 {
            total += (estimate - truth).abs() / truth;
            n += 1;
        }
    }
    if n == 0 { 0.0 } else { total / n as f64 }
}

/// Mean relative support error of the original's frequent itemsets measured in the anonymized
/// data: `(1/|F_D|) Σ_{X ∈ F_D} |sup_D(X) − sup_D̃(X)| / sup_D(X)`, with `sup_D̃` counted in
/// `anonymized` (an itemset absent there has support 0, error 1). 0 when `F_D` is empty.
///
/// `itemsets` are in the original's ids; `to_anonymized` maps an original id to the anonymized
/// database's id of the same label (`None`: absent there).
pub fn relative_support_error(
    itemsets: &FrequentItemsets,
    anonymized: &TransactionDb,
    to_anonymized: impl Fn(ItemId) -> Option<ItemId>,
) -> f64 {
    if itemsets.is_empty() {
        return 0.0;
    }
    // Vertical layout of D̃: sorted transaction ids per item, intersected per itemset.
    let mut tids: Vec<Vec<u32>> = vec![Vec::new(); anonymized.num_items()];
    for (t, items) in anonymized.iter().enumerate() {
        for &i in items {
            tids[i as usize].push(t as u32);
        }
    }
    let mut cache: HashMap<Vec<ItemId>, u32> = HashMap::new();
    let mut total = 0.0;
    for (items, support) in itemsets.iter() {
        let mapped: Option<Vec<ItemId>> = items.iter().map(|&i| to_anonymized(i)).collect();
        let published = match mapped {
            None => 0,
            Some(m) => *cache.entry(m.clone()).or_insert_with(|| intersect_count(&tids, &m)),
        };
        total += (f64::from(support) - f64::from(published)).abs() / f64::from(support);
    }
    total / itemsets.len() as f64
}

fn intersect_count(tids: &[Vec<u32>], items: &[ItemId]) -> u32 {
    let mut lists: Vec<&[u32]> = items.iter().map(|&i| tids[i as usize].as_slice()).collect();
    lists.sort_by_key(|l| l.len());
    let Some((first, rest)) = lists.split_first() else { return 0 };
    first.iter().filter(|t| rest.iter().all(|l| l.binary_search(t).is_ok())).count() as u32
}
