//! [`Engine::Counting`](crate::Engine::Counting): moles counted per item, never listed;
//! nuggets counted per item by FP-Growth and listed by the same search while few.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use txanon_data::progress::Progress;
use txanon_data::{ItemId, TransactionDb};
use txanon_mining::{
    Algorithm, ItemCounts, ItemsetClass, ItemsetVisitor, MinSupport, MiningParams,
    count_per_item_and_length, mine,
};

use crate::engines::bitsets::{Bitsets, occurring_up_to_triples};
use crate::engines::{Counter, Listing, PARALLEL_STEP, both};
use crate::error::CoherenceError;
use crate::nonmoles::NonMoles;
use crate::working::{Working, by_public_index, public_index};

/// The frequent itemsets of `db` (support at least `min`, length at most `max_len`): per
/// public index those holding it, and their number. FP-Growth's search advances `progress`
/// when given.
fn per_item(
    db: &TransactionDb,
    (min, max_len): (u32, Option<usize>),
    public_items: usize,
    progress: Option<&Progress>,
) -> Result<(Vec<u128>, u128), CoherenceError> {
    if db.is_empty() {
        return Ok((vec![0; public_items], 0));
    }
    let mut params = MiningParams::new(MinSupport::Count(min)).max_len(max_len);
    if let Some(progress) = progress {
        params = params.progress(progress.clone());
    }
    let (per_item, by_len) = count_per_item_and_length(db, &params.check()?)?;
    // `by_len[0]` is the empty itemset.
    Ok((by_public_index(db, &per_item, public_items), by_len.iter().skip(1).sum()))
}

/// The public itemsets of length `1..=p` that occur (support at least 1): per public index,
/// those holding it, and their number.
///
/// # Errors
/// [`CoherenceError::Mining`] beyond 128 bits.
pub(crate) fn occurring(
    w: &Working,
    p: usize,
    progress: &Progress,
) -> Result<Occurring, CoherenceError> {
    let bits = if p <= 3 { Bitsets::new(w, p) } else { None };
    let counted = match (p, &bits) {
        (3, _) => occurring_up_to_triples(w, progress),
        (_, Some(bits)) => Some(bits.occurring(w, p)),
        _ => None,
    };
    let (per_item, total) = match counted {
        Some(counted) => counted,
        None => per_item(&w.public_db(), (1, Some(p)), w.public_items(), Some(progress))?,
    };
    Ok(Occurring { per_item, total, bits })
}

/// The public itemsets of length `1..=p` that occur.
#[derive(Debug)]
pub(crate) struct Occurring {
    /// Per public index, those holding it.
    pub per_item: Vec<u128>,
    /// Their number.
    pub total: u128,
    /// The bitsets that counted them, when they fit (`p ≤ 3`): the counting engine keeps them.
    bits: Option<Bitsets>,
}

/// Moles of length at most `p` holding each public item: the itemsets that occur (support at
/// least 1, below the mole border's maximal side), counted by FP-Growth at support 1, less the
/// non-moles among them.
#[derive(Debug)]
pub(crate) struct CountedMoles {
    counts: Vec<u128>,
    nonmoles: NonMoles,
    p: usize,
    /// For `p ≤ 3` when they fit: the losers by co-occurrence bitsets instead of FP-Growth.
    bits: Option<Bitsets>,
}

impl CountedMoles {
    /// From the occurring itemsets holding each public index ([`occurring`]).
    pub fn new(occurring: Occurring, nonmoles: NonMoles, p: usize) -> Self {
        let non = nonmoles.per_item(occurring.per_item.len());
        let counts = occurring.per_item.iter().zip(&non).map(|(o, n)| o - n).collect();
        Self { counts, nonmoles, p, bits: occurring.bits }
    }
}

impl Counter for CountedMoles {
    fn counts(&self) -> &[u128] {
        &self.counts
    }

    /// The losers holding `v` and `u` are the itemsets of length at most `p − 1` occurring in
    /// the transactions that hold `v` (with `v` taken out) and holding `u`, less the non-moles
    /// holding both.
    fn suppress(&mut self, w: &Working, v: u32) -> Result<(), CoherenceError> {
        let items = w.public_items();
        let Self { bits, nonmoles, p, .. } = self;
        // The occurring itemsets lost and the non-moles lost, each on a worker.
        let (occurring, non) = both(
            w.tids.transactions(v).len() >= PARALLEL_STEP,
            || -> Result<Vec<u128>, CoherenceError> {
                Ok(match bits {
                    Some(bits) => {
                        let with = bits.with(w, v, *p);
                        bits.suppress(w, v);
                        with
                    }
                    None if *p >= 2 => {
                        per_item(&w.conditional(v, false), (1, Some(*p - 1)), items, None)?.0
                    }
                    None => vec![0; items],
                })
            },
            || {
                let mut non = vec![0u128; items];
                nonmoles.remove(v, &mut non);
                non
            },
        );
        let occurring = occurring?;
        for u in 0..items {
            if u != v as usize {
                self.counts[u] -= occurring[u] - non[u];
            }
        }
        self.counts[v as usize] = 0;
        Ok(())
    }

    fn reads_rows(&self) -> bool {
        match &self.bits {
            Some(bits) => bits.reads_rows(self.p),
            // FP-Growth on the transactions holding the item.
            None => self.p >= 2,
        }
    }
}

/// Most nuggets listed beside their counts (a million, tens of MB): beyond it the nuggets a
/// step loses are mined again from the transactions holding its item.
pub(crate) const LISTED_NUGGETS: u64 = 1 << 20;

/// Nuggets (itemsets of any length, public or private, in at least `k′` transactions) holding
/// each public item, counted by FP-Growth. Suppressing `v` loses exactly the nuggets holding
/// it (no other itemset's support changes): read from their listing when the search listed
/// them, else mined as the frequent itemsets of the transactions holding `v`.
#[derive(Debug)]
pub(crate) struct MinedNuggets {
    lost: Lost,
    support: u32,
    total: u128,
}

/// How a step finds the nuggets it loses.
#[derive(Debug)]
enum Lost {
    /// Every nugget, on its public items (those with none are never lost).
    Listed(Listing),
    /// Per public index, the nuggets holding it; a step mines the ones it loses.
    Mined(Vec<u128>),
}

impl MinedNuggets {
    /// Counted by FP-Growth, whose search advances `progress`, and listed when there are at
    /// most [`LISTED_NUGGETS`].
    pub fn new(w: &Working, support: u32, progress: &Progress) -> Result<Self, CoherenceError> {
        Self::listing_at_most(w, support, LISTED_NUGGETS, progress)
    }

    /// As [`new`](Self::new), listing at most `limit` nuggets.
    pub(crate) fn listing_at_most(
        w: &Working,
        support: u32,
        limit: u64,
        progress: &Progress,
    ) -> Result<Self, CoherenceError> {
        let items = w.public_items();
        let db = w.full_db();
        if db.is_empty() {
            return Ok(Self { lost: Lost::Mined(vec![0; items]), support, total: 0 });
        }
        let params =
            MiningParams::new(MinSupport::Count(support)).progress(progress.clone()).check()?;
        let public: Arc<[Option<u32>]> =
            (0..db.num_items() as ItemId).map(|i| public_index(&db, i, items)).collect();
        let mut visitor = CountedAndListed {
            counts: ItemCounts::new(db.num_items()),
            public,
            listed: Vec::new(),
            limit,
            held: Arc::new(AtomicU64::new(0)),
            over: Arc::new(AtomicBool::new(false)),
        };
        mine(&db, Algorithm::FpGrowth, &params, &mut visitor)?;
        let over = visitor.over.load(Ordering::Relaxed);
        let (per_item, by_len) = visitor.counts.into_result()?;
        let counts = by_public_index(&db, &per_item, items);
        // `by_len[0]` is the empty itemset.
        let total = by_len.iter().skip(1).sum();
        let lost = if over {
            Lost::Mined(counts)
        } else {
            let listing = Listing::new(visitor.listed, items);
            debug_assert_eq!(listing.counts, counts, "the listing counts what the search counted");
            Lost::Listed(listing)
        };
        Ok(Self { lost, support, total })
    }

    /// The nuggets of `w` when counted, in all.
    pub fn total(&self) -> u128 {
        self.total
    }
}

impl Counter for MinedNuggets {
    fn counts(&self) -> &[u128] {
        match &self.lost {
            Lost::Listed(listing) => &listing.counts,
            Lost::Mined(counts) => counts,
        }
    }

    /// An item in no nugget loses none: no mining then (late in a run, most items are).
    fn suppress(&mut self, w: &Working, v: u32) -> Result<(), CoherenceError> {
        let counts = match &mut self.lost {
            Lost::Listed(listing) => {
                listing.remove(v);
                return Ok(());
            }
            Lost::Mined(counts) => counts,
        };
        if counts[v as usize] == 0 {
            return Ok(());
        }
        let (lost, _) =
            per_item(&w.conditional(v, true), (self.support, None), w.public_items(), None)?;
        for (u, l) in lost.iter().enumerate() {
            if u != v as usize {
                counts[u] -= l;
            }
        }
        counts[v as usize] = 0;
        Ok(())
    }

    fn reads_rows(&self) -> bool {
        matches!(self.lost, Lost::Mined(_))
    }
}

/// The search's visitor: the nuggets counted per item and by length, and listed on their public
/// items while they number at most `limit` over every branch (then the listing is dropped and
/// only the counts go on).
struct CountedAndListed {
    counts: ItemCounts,
    /// Per item of the database, its public index (`None` for a private item).
    public: Arc<[Option<u32>]>,
    listed: Vec<Vec<u32>>,
    limit: u64,
    /// Members met by every branch, and whether they passed `limit`.
    held: Arc<AtomicU64>,
    over: Arc<AtomicBool>,
}

impl ItemsetVisitor for CountedAndListed {
    fn visit(&mut self, class: &ItemsetClass<'_>) -> ControlFlow<()> {
        self.counts.visit(class)?;
        if self.over.load(Ordering::Relaxed) {
            return ControlFlow::Continue(());
        }
        let members = u64::try_from(class.count().unwrap_or(u128::MAX)).unwrap_or(u64::MAX);
        let before = self.held.fetch_add(members, Ordering::Relaxed);
        if before.saturating_add(members) > self.limit {
            self.over.store(true, Ordering::Relaxed);
            self.listed = Vec::new();
            return ControlFlow::Continue(());
        }
        let (public, listed) = (&self.public, &mut self.listed);
        class.for_each_member(|items| {
            let set: Vec<u32> = items.iter().filter_map(|&i| public[i as usize]).collect();
            if !set.is_empty() {
                listed.push(set);
            }
            ControlFlow::Continue(())
        })
    }

    fn fork(&self) -> Self {
        Self {
            counts: self.counts.fork(),
            public: Arc::clone(&self.public),
            listed: Vec::new(),
            limit: self.limit,
            held: Arc::clone(&self.held),
            over: Arc::clone(&self.over),
        }
    }

    fn merge(&mut self, later: Self) {
        self.counts.merge(later.counts);
        if self.over.load(Ordering::Relaxed) {
            self.listed = Vec::new();
        } else {
            self.listed.extend(later.listed);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use txanon_data::TransactionDb;
    use txanon_data::progress::Progress;

    use super::{Lost, MinedNuggets};
    use crate::engines::Counter;
    use crate::working::{Working, roles_with_private};

    /// The nuggets listed once and removed at each step count what mining the transactions of
    /// each suppressed item counts (the listing's limit set to 0), step by step, and both
    /// count what the definition does: the frequent itemsets left after the suppressions.
    /// Counts the cases whose steps lose a nugget.
    #[test]
    fn listed_nuggets_count_what_mined_ones_do() {
        let strategy = (
            prop::collection::vec(prop::collection::btree_set(0u32..10, 1..7), 2..40),
            prop::collection::btree_set(0u32..10, 0..3),
            prop::collection::vec(0u32..10, 1..6),
            1u32..5,
        );
        let exercised = txanon_testkit::exercised(300, strategy, |(ts, private, steps, k2)| {
            let rows = |gone: &[u32]| -> Vec<Vec<u32>> {
                ts.iter()
                    .map(|t| t.iter().copied().filter(|i| !gone.contains(i)).collect())
                    .collect()
            };
            let db = TransactionDb::from_int_transactions(rows(&[]));
            let mut w = Working::new(&db, &roles_with_private(&db, &private));
            let progress = Progress::default();
            let mut listed = MinedNuggets::listing_at_most(&w, k2, u64::MAX, &progress).unwrap();
            let mut mined = MinedNuggets::listing_at_most(&w, k2, 0, &progress).unwrap();
            prop_assert!(matches!(listed.lost, Lost::Listed(_)));
            prop_assert!(matches!(mined.lost, Lost::Mined(_)) || mined.total() == 0);
            prop_assert_eq!(listed.total(), mined.total());
            let mut gone = Vec::new();
            let mut lost_some = false;
            let items = w.public_items();
            for v in steps.into_iter().filter(|&v| (v as usize) < items) {
                if gone.contains(&w.public_ids[v as usize]) {
                    continue;
                }
                lost_some |= listed.counts()[v as usize] > 0;
                listed.suppress(&w, v).unwrap();
                mined.suppress(&w, v).unwrap();
                w.suppress(v);
                gone.push(w.public_ids[v as usize]);
                prop_assert_eq!(listed.counts(), mined.counts());
                // By the definition: the frequent itemsets of what is left holding each item.
                let left = TransactionDb::from_int_transactions(rows(
                    &gone
                        .iter()
                        .map(|&i| db.label(i).to_string().parse().unwrap())
                        .collect::<Vec<u32>>(),
                ));
                let params = txanon_mining::MiningParams::new(txanon_mining::MinSupport::Count(k2))
                    .check()
                    .unwrap();
                let found = txanon_mining::frequent_itemsets(
                    &left,
                    txanon_mining::Algorithm::Apriori,
                    &params,
                )
                .unwrap();
                for (u, &count) in listed.counts().iter().enumerate() {
                    let label = db.label(w.public_ids[u]).to_string();
                    let holding = found
                        .iter()
                        .filter(|(s, _)| s.iter().any(|&i| left.label(i).to_string() == label))
                        .count();
                    prop_assert_eq!(count, holding as u128, "item {}", label);
                }
            }
            Ok(lost_some)
        });
        exercised.at_least(0.3, "steps losing nuggets");
    }
}
