//! From a database and a categorization to a published, audited database, by any method.

use rand::seq::SliceRandom;
use rayon::prelude::*;
use serde::Serialize;
use txanon_data::progress::Unit;
use txanon_data::{
    Categorized, ItemId, TransactionDb, TransactionDbBuilder, lexicographic_order_by,
};

use crate::audit::{SwapAuditReport, audit};
use crate::error::SwapError;
use crate::pairing::{Records, TendencyCategories, full_pairs, partial_pairs, random_pairs};
use crate::params::{Method, ValidSwapParams};
use crate::tendency::{Tendency, tendency_of};

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SwapStats {
    /// Records of the input.
    pub records: usize,
    /// Records with a tendency (a category above the mean, Algorithm 1).
    pub with_tendency: usize,
    /// Records of several items all in one category.
    pub single_category: usize,
    /// Pairs of records that exchanged items.
    pub pairs: usize,
    /// Records the method would have changed but could not (no eligible destination).
    pub unmatched: usize,
    /// Item occurrences moved from one record to another.
    pub items_moved: usize,
    /// Occurrences lost because the destination already held the item (RandSwap only).
    pub collisions: usize,
    /// Occurrences deleted (PartSupp only).
    pub suppressed: usize,
    /// Records published.
    pub published_records: usize,
}

/// The outcome of [`anonymize`].
#[derive(Debug)]
pub struct SwapPublication {
    /// The published database, over the input's dictionary, in a ChaCha20-shuffled order.
    pub published: TransactionDb,
    /// For each published record, the input record it comes from.
    key: Vec<u32>,
    /// The swaps made, as pairs of input records (source, destination), in order: secret like
    /// the key.
    pub pairs: Vec<(u32, u32)>,
    /// What the run did.
    pub stats: SwapStats,
    /// The audit of the publication against the input, under the claim of `params` (its
    /// method and exposure allowance).
    pub audit: SwapAuditReport,
}

impl SwapPublication {
    /// For each published record, the input record it comes from: the data holder's secret
    /// (the link between a record and its person), needed by the per-record audit. One entry
    /// per published record, each an input record.
    pub fn key(&self) -> &[u32] {
        &self.key
    }
}

/// What a pair of records exchanges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exchange {
    /// The items of each record's tendency category (partial swapping, RandSwap).
    Tendency,
    /// Whole records (full swapping).
    Whole,
}

/// Anonymizes `data`'s database with the method of `params`, under its item → category map.
///
/// The processing order is a seeded shuffle of the records sorted by content, so the
/// published database depends on the multiset of input records and the seed only, never on the
/// input's order; the publication is shuffled again.
///
/// # Complexity
/// `O(n log n)` for the processing order and the publication's sort, plus the method's: the
/// swappings' destination searches (see `partial_pairs` and `full_pairs`: by default an index
/// per category, so each source costs the records it shares a category with), `O(Σ|t|)` for
/// PartSupp and SplitPerson; then the audit.
///
/// # Errors
/// [`SwapError::Audit`] when the publication fails its audit under
/// [`ValidSwapParams::claim`]: more records left showing their tendency than allowed (records
/// no eligible partner was found for, or a baseline's weakness), or a bug.
pub fn anonymize(
    data: Categorized<'_>,
    params: &ValidSwapParams,
) -> Result<SwapPublication, SwapError> {
    let (db, category_of) = (data.db(), data.category_of());
    let mut rng = txanon_data::publication_rng(params.seed(), db);
    let n = db.len();
    // Nobody watching costs an atomic addition per block.
    let progress = params.progress_handle().cloned().unwrap_or_default();
    progress.begin("swap: the records' order and tendencies", Unit::Items, 0);
    let mut order = db.lexicographic_order();
    order.shuffle(&mut rng);
    let mut rank = vec![0u32; n];
    for (p, &r) in order.iter().enumerate() {
        rank[r as usize] = p as u32;
    }
    let tendency: Vec<Tendency> = (0..n)
        .into_par_iter()
        .map_init(Vec::new, |scratch, r| tendency_of(db.transaction(r), category_of, scratch))
        .collect();
    let mut stats = SwapStats {
        records: n,
        with_tendency: tendency.iter().filter(|t| matches!(t, Tendency::Category(_))).count(),
        single_category: tendency.iter().filter(|t| matches!(t, Tendency::Single(_))).count(),
        ..SwapStats::default()
    };
    let categories = TendencyCategories::new(db, category_of, &tendency, params.ties());
    let records = Records {
        db,
        category_of,
        tendency: &tendency,
        categories: &categories,
        rank: &rank,
        order: &order,
        progress: &progress,
    };
    progress.begin(format!("swap: pairing ({})", params.method().name()), Unit::Items, n as u64);
    let method = params.method();
    let mut pairs: Vec<(u32, u32, Exchange)> = Vec::new();
    // The published records before their order is fixed, with the input records they come
    // from.
    let staged = match method {
        Method::PartSwap | Method::FullSwap | Method::PartAndFullSwap | Method::RandSwap => {
            let with =
                |found: Vec<(u32, u32)>, how| found.into_iter().map(move |(t, c)| (t, c, how));
            if matches!(method, Method::PartSwap | Method::PartAndFullSwap) {
                pairs.extend(with(partial_pairs(&records, params.search()), Exchange::Tendency));
            }
            if matches!(method, Method::FullSwap | Method::PartAndFullSwap) {
                pairs.extend(with(full_pairs(&records), Exchange::Whole));
            }
            if method == Method::RandSwap {
                pairs.extend(with(random_pairs(&records, &mut rng), Exchange::Tendency));
            }
            stats.pairs = pairs.len();
            stats.unmatched = unmatched(method, &tendency, &pairs);
            exchanged(&records, &pairs, &mut stats)
        }
        Method::PartSupp => tendencies_suppressed(&records, &mut stats),
        Method::SplitPerson => split_by_category(db, category_of),
    };
    progress.begin("swap: publishing", Unit::Items, 0);
    // Publication: canonical order (content, then origin: the staged records are in the
    // order of their origins), then shuffled, so that neither the input's order nor the
    // processing order shows.
    let mut order = lexicographic_order_by(staged.len(), db.num_items(), |r| staged.row(r));
    order.shuffle(&mut rng);
    let key: Vec<u32> = order.iter().map(|&r| staged.origin(r as usize)).collect();
    let published =
        TransactionDb::gather(order.len(), db.labels().clone(), |k| staged.row(order[k] as usize));
    drop(staged);
    stats.published_records = published.len();
    progress.begin("swap: auditing the publication", Unit::Items, 0);
    let report = audit(data, &published, &key, &params.claim())?;
    let pairs = pairs.into_iter().map(|(t, c, _)| (t, c)).collect();
    Ok(SwapPublication { published, key, pairs, stats, audit: report })
}

/// The records the method would change (by their tendency) that no pair touches.
fn unmatched(method: Method, tendency: &[Tendency], pairs: &[(u32, u32, Exchange)]) -> usize {
    let eligible = |t: Tendency| match method {
        Method::PartSwap | Method::RandSwap => matches!(t, Tendency::Category(_)),
        Method::FullSwap => matches!(t, Tendency::Single(_)),
        _ => matches!(t, Tendency::Category(_) | Tendency::Single(_)),
    };
    let mut paired = vec![false; tendency.len()];
    for &(t, c, _) in pairs {
        paired[t as usize] = true;
        paired[c as usize] = true;
    }
    (0..tendency.len()).filter(|&r| eligible(tendency[r]) && !paired[r]).count()
}

/// The published records before their order is fixed: what the publication sorts, shuffles
/// and copies.
enum Staged<'a> {
    /// The input's records in its order, those a pair rewrote read from `arena`: record `r`
    /// is `arena[start..start + len]` when `rewritten[r]` is `(start, len)`: neither a copy
    /// of every record into a database of its own nor a vector per record (at 10⁷ records
    /// the vectors' allocation and freeing were a large share of the profile).
    Exchanged { db: &'a TransactionDb, rewritten: Vec<Option<(usize, usize)>>, arena: Vec<ItemId> },
    /// Records of their own, with the input record each comes from, ascending.
    Rows { rows: TransactionDb, origin: Vec<u32> },
}

impl Staged<'_> {
    fn len(&self) -> usize {
        match self {
            Staged::Exchanged { rewritten, .. } => rewritten.len(),
            Staged::Rows { origin, .. } => origin.len(),
        }
    }

    fn row(&self, r: usize) -> &[ItemId] {
        match self {
            Staged::Exchanged { db, rewritten, arena } => match rewritten[r] {
                None => db.transaction(r),
                Some((start, len)) => &arena[start..start + len],
            },
            Staged::Rows { rows, .. } => rows.transaction(r),
        }
    }

    /// The input record record `r` comes from.
    fn origin(&self, r: usize) -> u32 {
        match self {
            Staged::Exchanged { .. } => r as u32,
            Staged::Rows { origin, .. } => origin[r],
        }
    }
}

/// Pairs exchanged per block of the parallel pass.
const PAIRS_PER_BLOCK: usize = 8_192;

/// Every record after the pairs' exchanges, in input order.
///
/// Each record is in at most one pair (every pairing takes a record once, and partial and
/// full swapping pair records of disjoint kinds), so a pair's new records depend on the
/// input's alone and the pairs are exchanged in blocks on rayon: one at a time they waited on
/// a cache miss per record read.
fn exchanged<'a>(
    records: &Records<'a>,
    pairs: &[(u32, u32, Exchange)],
    stats: &mut SwapStats,
) -> Staged<'a> {
    /// One block's new records, flat, as (record, start, length), and its counts.
    #[derive(Default)]
    struct Block {
        items: Vec<ItemId>,
        spans: Vec<(u32, usize, usize)>,
        moved: usize,
        lost: usize,
    }
    let db = records.db;
    let blocks: Vec<Block> = pairs
        .par_chunks(PAIRS_PER_BLOCK)
        .map_init(
            || (Vec::new(), Vec::new(), Vec::new()),
            |(from_t, from_c, next), chunk| {
                let mut block = Block::default();
                for &(t, c, how) in chunk {
                    for (rec, moving) in [(t, &mut *from_t), (c, &mut *from_c)] {
                        let items = db.transaction(rec as usize);
                        moving.clear();
                        match how {
                            Exchange::Whole => moving.extend_from_slice(items),
                            Exchange::Tendency => records.moving_into(rec as usize, items, moving),
                        }
                    }
                    block.moved += from_t.len() + from_c.len();
                    for (rec, out, incoming) in [(t, &*from_t, &*from_c), (c, &*from_c, &*from_t)] {
                        block.lost += exchange(db.transaction(rec as usize), out, incoming, next);
                        block.spans.push((rec, block.items.len(), next.len()));
                        block.items.extend_from_slice(next);
                    }
                }
                block
            },
        )
        .collect();
    let mut rewritten: Vec<Option<(usize, usize)>> = vec![None; db.len()];
    let mut arena = Vec::with_capacity(blocks.iter().map(|b| b.items.len()).sum());
    for block in blocks {
        for (rec, start, len) in block.spans {
            let version = &mut rewritten[rec as usize];
            assert!(version.is_none(), "record {rec} is in two pairs");
            *version = Some((arena.len() + start, len));
        }
        arena.extend_from_slice(&block.items);
        stats.items_moved += block.moved;
        stats.collisions += block.lost;
    }
    Staged::Exchanged { db, rewritten, arena }
}

/// PartSupp: each record less the items of its tendency categories.
fn tendencies_suppressed<'a>(records: &Records<'a>, stats: &mut SwapStats) -> Staged<'a> {
    let db = records.db;
    let mut builder = TransactionDbBuilder::with_capacity(db.len(), db.occurrences());
    for (r, t) in db.iter().enumerate() {
        let gone = records.categories(r);
        let kept = |i: &ItemId| !gone.contains(&records.category_of[*i as usize]);
        stats.suppressed += t.iter().filter(|i| !kept(i)).count();
        builder.push_row(t.iter().copied().filter(kept));
    }
    Staged::Rows {
        rows: builder.finish(db.labels().clone()),
        origin: (0..db.len() as u32).collect(),
    }
}

/// SplitPerson: one published record per category of each record (an empty record stays one).
fn split_by_category<'a>(db: &TransactionDb, category_of: &[u32]) -> Staged<'a> {
    let mut builder = TransactionDbBuilder::with_capacity(db.len(), db.occurrences());
    let mut origin = Vec::with_capacity(db.len());
    let mut by_category: Vec<(u32, ItemId)> = Vec::new();
    for (r, t) in db.iter().enumerate() {
        by_category.clear();
        by_category.extend(t.iter().map(|&i| (category_of[i as usize], i)));
        by_category.sort_unstable();
        if by_category.is_empty() {
            builder.end_row();
            origin.push(r as u32);
        }
        for part in by_category.chunk_by(|a, b| a.0 == b.0) {
            builder.push_row(part.iter().map(|&(_, i)| i));
            origin.push(r as u32);
        }
    }
    Staged::Rows { rows: builder.finish(db.labels().clone()), origin }
}

/// `t` less `out`, plus `incoming`, into `next` (ascending); returns the incoming items `t`
/// already held (lost: a record is a set).
fn exchange(t: &[ItemId], out: &[ItemId], incoming: &[ItemId], next: &mut Vec<ItemId>) -> usize {
    next.clear();
    next.extend(t.iter().copied().filter(|i| out.binary_search(i).is_err()));
    let before = next.len() + incoming.len();
    next.extend_from_slice(incoming);
    next.sort_unstable();
    next.dedup();
    before - next.len()
}
