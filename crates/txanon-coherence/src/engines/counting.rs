//! [`Engine::Counting`](crate::Engine::Counting): moles and nuggets counted per item by
//! FP-Growth, never listed.

use txanon_data::TransactionDb;
use txanon_data::progress::Progress;
use txanon_mining::{MinSupport, MiningParams, count_per_item_and_length};

use crate::engines::bitsets::{Bitsets, occurring_up_to_triples};
use crate::engines::{Counter, PARALLEL_STEP, both};
use crate::error::CoherenceError;
use crate::nonmoles::NonMoles;
use crate::working::{Working, by_public_index};

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
}

/// Nuggets (itemsets of any length, public or private, in at least `k′` transactions) holding
/// each public item, counted by FP-Growth; after suppressing `v`, the frequent itemsets of the
/// transactions holding `v` are the lost nuggets.
#[derive(Debug)]
pub(crate) struct MinedNuggets {
    counts: Vec<u128>,
    support: u32,
    total: u128,
}

impl MinedNuggets {
    /// Counted by FP-Growth, whose search advances `progress`.
    pub fn new(w: &Working, support: u32, progress: &Progress) -> Result<Self, CoherenceError> {
        let (counts, total) =
            per_item(&w.full_db(), (support, None), w.public_items(), Some(progress))?;
        Ok(Self { counts, support, total })
    }

    /// The nuggets of `w` when counted, in all.
    pub fn total(&self) -> u128 {
        self.total
    }
}

impl Counter for MinedNuggets {
    fn counts(&self) -> &[u128] {
        &self.counts
    }

    /// An item in no nugget loses none: no mining then (late in a run, most items are).
    fn suppress(&mut self, w: &Working, v: u32) -> Result<(), CoherenceError> {
        if self.counts[v as usize] == 0 {
            return Ok(());
        }
        let (lost, _) =
            per_item(&w.conditional(v, true), (self.support, None), w.public_items(), None)?;
        for (u, l) in lost.iter().enumerate() {
            if u != v as usize {
                self.counts[u] -= l;
            }
        }
        self.counts[v as usize] = 0;
        Ok(())
    }
}
