//! The independent checker: no mole remains, verified from the published data alone.

use rayon::prelude::*;
use serde::Serialize;
use txanon_data::{ItemId, ItemIndex, TransactionDb};
use txanon_mining::{Algorithm, MinSupport, MiningParams, count_itemsets, frequent_itemsets};

use crate::error::CoherenceError;
use crate::working::breaches;

/// What the audit found in data that passes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    /// The parameters verified.
    pub h: f64,
    /// Cohort size verified.
    pub k: u32,
    /// Attacker's power verified.
    pub p: usize,
    /// Public itemsets of length `1..=p` that occur (all checked).
    pub public_itemsets: u128,
    /// The largest `Pr(s|γ)` met, over private items `s` and those itemsets (and the empty one).
    pub worst_breach: f64,
}

/// Verifies that `published` is (h,k,p)-coherent with private items `private` (items of
/// `published`), from the data alone:
/// 1. the empty itemset is no mole: at least `k` transactions, no private item in more than
///    `h` of them;
/// 2. every public itemset of length `1..=p` that occurs has support at least `k`: FP-Growth's
///    numbers of such itemsets per length at support 1 and at support `k` are equal;
/// 3. for every one of them (all frequent at `k` by 2.) and every private item `s`,
///    `Pr(s|γ) ≤ h`, from the transactions of `γ` (an inverted index, rayon over itemsets).
///    With 1., that bounds every breach probability, a maximum over subsets.
///
/// # Errors
/// [`CoherenceError::Audit`] naming the first violation found; [`CoherenceError::Mining`] when
/// the itemsets to check are beyond the listing limit.
pub fn audit(
    published: &TransactionDb,
    private: &[ItemId],
    h: f64,
    k: u32,
    p: usize,
) -> Result<AuditReport, CoherenceError> {
    let n = published.len();
    let fail = |msg: String| Err(CoherenceError::Audit(msg));
    if n < k as usize {
        return fail(format!("{n} transactions, fewer than k = {k}"));
    }
    let mut is_private = vec![false; published.num_items()];
    for &s in private {
        is_private[s as usize] = true;
    }
    let mut worst = 0.0f64;
    for &s in private {
        let support = published.supports()[s as usize];
        if breaches(support, n as u32, h) {
            return fail(format!(
                "private item {} is in {support} of {n} transactions, more than h = {h}",
                published.label(s)
            ));
        }
        worst = worst.max(support as f64 / n as f64);
    }
    let mut offsets = vec![0];
    let mut items = Vec::with_capacity(published.occurrences());
    for t in published.iter() {
        items.extend(t.iter().copied().filter(|&i| !is_private[i as usize]));
        offsets.push(items.len());
    }
    let public = TransactionDb::from_parts(offsets, items, published.labels().clone());
    let by_len = |min: u32| -> Result<Vec<u128>, CoherenceError> {
        let params = MiningParams::new(MinSupport::Count(min)).max_len(Some(p)).check()?;
        let mut v = count_itemsets(&public, &params)?.by_len;
        v.resize(p + 1, 0);
        Ok(v)
    };
    let (occurring, frequent) = (by_len(1)?, by_len(k)?);
    for len in 1..=p {
        if occurring[len] != frequent[len] {
            return fail(format!(
                "{} public itemsets of {len} items occur in fewer than k = {k} transactions",
                occurring[len] - frequent[len]
            ));
        }
    }
    let params = MiningParams::new(MinSupport::Count(k)).max_len(Some(p)).check()?;
    let listed = frequent_itemsets(&public, Algorithm::FpGrowth, &params)?;
    let index = ItemIndex::new(published);
    let worst_of = |gamma: &[ItemId]| -> (f64, Option<ItemId>) {
        let mut tids: Vec<u32> = index.transactions(gamma[0]).to_vec();
        for &i in &gamma[1..] {
            tids.retain(|&t| published.transaction(t as usize).binary_search(&i).is_ok());
        }
        let mut counts: std::collections::HashMap<ItemId, u32> = std::collections::HashMap::new();
        for &t in &tids {
            for &i in published.transaction(t as usize) {
                if is_private[i as usize] {
                    *counts.entry(i).or_default() += 1;
                }
            }
        }
        let top = counts.into_iter().max_by_key(|&(s, c)| (c, std::cmp::Reverse(s)));
        match top {
            Some((s, c)) if breaches(c, tids.len() as u32, h) => {
                (c as f64 / tids.len() as f64, Some(s))
            }
            Some((_, c)) => (c as f64 / tids.len() as f64, None),
            None => (0.0, None),
        }
    };
    // Per listed itemset: its worst inference, and the itemset and private item that breach.
    type Finding = (f64, Option<(Vec<ItemId>, ItemId)>);
    let results: Vec<Finding> = (0..listed.len())
        .into_par_iter()
        .map(|i| {
            let (gamma, _) = listed.get(i);
            let (share, breach) = worst_of(gamma);
            (share, breach.map(|s| (gamma.to_vec(), s)))
        })
        .collect();
    for (share, breach) in &results {
        if let Some((gamma, s)) = breach {
            let labels: Vec<String> =
                gamma.iter().map(|&i| published.label(i).to_string()).collect();
            return fail(format!(
                "Pr({} | {{{}}}) = {share:.4}, more than h = {h}",
                published.label(*s),
                labels.join(",")
            ));
        }
        worst = worst.max(*share);
    }
    Ok(AuditReport { h, k, p, public_itemsets: occurring.iter().sum(), worst_breach: worst })
}
