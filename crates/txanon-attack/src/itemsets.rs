//! Frequent itemsets as a data user estimates them from a view: level-wise over the estimated
//! supports, which are anti-monotone (a factor's count of values holding a set only falls as
//! the set grows), so Apriori's pruning stays exact.

use std::collections::HashSet;

use rayon::prelude::*;
use txanon_data::ItemId;
use txanon_mining::FrequentItemsets;

use crate::view::{View, Weigher};

/// More itemsets (frequent, or candidates of one level) than the caller allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("more than {limit} itemsets at this support")]
pub struct TooManyItemsets {
    /// The limit.
    pub limit: usize,
}

/// Every itemset of at most `max_len` items whose estimated support ([`View::support`]) is at
/// least `min_support` records, with the estimate rounded to the nearest count, sorted
/// canonically (by length, then items). For a view of records published as they are, this is
/// exactly what a miner finds.
///
/// # Errors
/// [`TooManyItemsets`] as soon as the itemsets found, or the candidates of the next level,
/// exceed `limit` (a support so low that the listing would not fit).
///
/// # Complexity
/// Per candidate, the groups holding its rarest item, weighed (for a view of records, the
/// records holding every item counted through the frequent items' bitsets); candidates of each level are
/// the joins of two frequent sets sharing all but their last item, with every subset frequent;
/// on rayon.
pub fn estimated_itemsets(
    view: &View,
    min_support: f64,
    max_len: usize,
    limit: usize,
) -> Result<FrequentItemsets, TooManyItemsets> {
    let mut out = FrequentItemsets::default();
    let mut level: Vec<(Vec<ItemId>, f64)> = (0..view.num_items() as ItemId)
        .map(|i| (vec![i], view.item_supports()[i as usize]))
        .filter(|(_, s)| *s >= min_support && *s > 0.0)
        .collect();
    let mut len = 1;
    while !level.is_empty() {
        if out.len() + level.len() > limit {
            return Err(TooManyItemsets { limit });
        }
        for (items, s) in &level {
            out.push(items, s.round() as u32);
        }
        if len == max_len {
            break;
        }
        let frequent: HashSet<&[ItemId]> = level.iter().map(|(i, _)| i.as_slice()).collect();
        let mut candidates = Vec::new();
        for (a, (x, _)) in level.iter().enumerate() {
            for (y, _) in &level[a + 1..] {
                if x[..len - 1] != y[..len - 1] {
                    break;
                }
                let mut joined = x.clone();
                joined.push(y[len - 1]);
                let all_frequent = (0..len - 1).all(|drop| {
                    let mut sub = joined.clone();
                    sub.remove(drop);
                    frequent.contains(sub.as_slice())
                });
                if all_frequent {
                    if candidates.len() == limit {
                        return Err(TooManyItemsets { limit });
                    }
                    candidates.push(joined);
                }
            }
        }
        level = candidates
            .into_par_iter()
            .map_init(Weigher::default, |w, c| {
                let s = view.support_with(&c, w);
                (c, s)
            })
            .filter(|(_, s)| *s >= min_support && *s > 0.0)
            .collect();
        len += 1;
    }
    out.sort();
    Ok(out)
}
