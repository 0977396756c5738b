//! From a database and a categorization to a published, audited database, by any method.

use rand::seq::SliceRandom;
use serde::Serialize;
use txanon_data::progress::Unit;
use txanon_data::{Categorized, ItemId, TransactionDb, TransactionDbBuilder};

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
    let mut scratch = Vec::new();
    let tendency: Vec<Tendency> =
        db.iter().map(|t| tendency_of(t, category_of, &mut scratch)).collect();
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
    // Each published record with the input record it comes from.
    let mut rows: Vec<(Vec<ItemId>, u32)> = match method {
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
            exchanged(&records, &pairs, &mut stats).into_iter().zip(0u32..).collect()
        }
        Method::PartSupp => tendencies_suppressed(&records, &mut stats),
        Method::SplitPerson => split_by_category(db, category_of),
    };
    progress.begin("swap: publishing", Unit::Items, 0);
    // Publication: canonical order (content), then shuffled, so that neither the input's
    // order nor the processing order shows.
    rows.sort_unstable();
    rows.shuffle(&mut rng);
    // Rows are consumed as they are copied: their memory is returned before the audit runs.
    let mut key = Vec::with_capacity(rows.len());
    let mut builder = TransactionDbBuilder::with_capacity(rows.len(), db.occurrences());
    for (t, origin) in rows {
        builder.extend_row(&t);
        builder.end_row();
        key.push(origin);
    }
    let published = builder.finish(db.labels().clone());
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

/// Every record after the pairs' exchanges, in input order.
///
/// Missed optimization: every record is copied up front, though only paired records change;
/// the unpaired ones could be published from `db` directly.
fn exchanged(
    records: &Records<'_>,
    pairs: &[(u32, u32, Exchange)],
    stats: &mut SwapStats,
) -> Vec<Vec<ItemId>> {
    let mut current: Vec<Vec<ItemId>> = records.db.iter().map(<[ItemId]>::to_vec).collect();
    for &(t, c, how) in pairs {
        let (t, c) = (t as usize, c as usize);
        let moving = |rec: usize| -> Vec<ItemId> {
            match how {
                Exchange::Whole => current[rec].clone(),
                Exchange::Tendency => records.moving(rec, &current[rec]),
            }
        };
        let (from_t, from_c) = (moving(t), moving(c));
        stats.items_moved += from_t.len() + from_c.len();
        let (new_t, lost_t) = exchange(&current[t], &from_t, &from_c);
        let (new_c, lost_c) = exchange(&current[c], &from_c, &from_t);
        stats.collisions += lost_t + lost_c;
        current[t] = new_t;
        current[c] = new_c;
    }
    current
}

/// PartSupp: each record less the items of its tendency categories.
fn tendencies_suppressed(records: &Records<'_>, stats: &mut SwapStats) -> Vec<(Vec<ItemId>, u32)> {
    records
        .db
        .iter()
        .enumerate()
        .map(|(r, t)| {
            let gone = records.categories(r);
            let kept: Vec<ItemId> = t
                .iter()
                .copied()
                .filter(|&i| !gone.contains(&records.category_of[i as usize]))
                .collect();
            stats.suppressed += t.len() - kept.len();
            (kept, r as u32)
        })
        .collect()
}

/// SplitPerson: one published record per category of each record (an empty record stays one).
fn split_by_category(db: &TransactionDb, category_of: &[u32]) -> Vec<(Vec<ItemId>, u32)> {
    let mut rows = Vec::with_capacity(db.len());
    for (r, t) in db.iter().enumerate() {
        let mut by_category: Vec<(u32, ItemId)> =
            t.iter().map(|&i| (category_of[i as usize], i)).collect();
        by_category.sort_unstable();
        if by_category.is_empty() {
            rows.push((Vec::new(), r as u32));
        }
        for part in by_category.chunk_by(|a, b| a.0 == b.0) {
            rows.push((part.iter().map(|&(_, i)| i).collect(), r as u32));
        }
    }
    rows
}

/// `t` less `out`, plus `incoming`: the new record (ascending) and the incoming items it
/// already held (lost: a record is a set).
fn exchange(t: &[ItemId], out: &[ItemId], incoming: &[ItemId]) -> (Vec<ItemId>, usize) {
    let mut next: Vec<ItemId> =
        t.iter().copied().filter(|i| out.binary_search(i).is_err()).collect();
    let before = next.len() + incoming.len();
    next.extend_from_slice(incoming);
    next.sort_unstable();
    next.dedup();
    let lost = before - next.len();
    (next, lost)
}
