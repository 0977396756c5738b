//! From a database and a categorization to a published, audited database, by any method.

use std::time::Instant;

use rand::seq::SliceRandom;
use serde::Serialize;
use txanon_data::{ItemCategories, ItemId, TransactionDb};

use crate::audit::{SwapAudit, audit};
use crate::error::SwapError;
use crate::pairing::{Records, full_pairs, items_in, partial_pairs, random_pairs};
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
pub struct Swapped {
    /// The published database, over the input's dictionary, in a ChaCha20-shuffled order.
    pub published: TransactionDb,
    /// For each published record, the input record it comes from: the data holder's secret
    /// (the link between a record and its person), needed by the per-record audit.
    pub key: Vec<u32>,
    /// The swaps made, as pairs of input records (source, destination), in order: secret like
    /// the key.
    pub pairs: Vec<(u32, u32)>,
    /// What the run did.
    pub stats: SwapStats,
    /// The audit of the publication against the input, under the claim of `params` (its
    /// method and exposure allowance).
    pub audit: SwapAudit,
    /// Seconds for the method (pairing and rewriting), without the audit.
    pub seconds: f64,
}

/// Anonymizes `db` with the method of `params`, under the item → category map `categories`.
///
/// The processing order is a seeded shuffle of the records sorted by content, so the
/// published database depends on the multiset of input records and the seed only, never on the
/// input's order; the publication is shuffled again.
///
/// # Errors
/// [`SwapError::Categories`] when `categories` does not cover the items of `db`;
/// [`SwapError::Audit`] when the publication fails its audit under
/// [`ValidSwapParams::claim`]: more records left showing their tendency than allowed (records
/// no eligible partner was found for, or a baseline's weakness), or a bug.
pub fn anonymize(
    db: &TransactionDb,
    categories: &ItemCategories,
    params: &ValidSwapParams,
) -> Result<Swapped, SwapError> {
    let category_of = categories.categories();
    if category_of.len() != db.num_items() {
        return Err(SwapError::Categories {
            categorized: category_of.len(),
            items: db.num_items(),
        });
    }
    let started = Instant::now();
    let mut rng = txanon_data::publication_rng(params.seed());
    let n = db.len();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| db.transaction(a as usize).cmp(db.transaction(b as usize)));
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
    let records = Records { db, category_of, tendency: &tendency, rank: &rank, order: &order };
    let method = params.method();
    // Each input record's published records.
    let mut rows: Vec<(Vec<ItemId>, u32)> = Vec::with_capacity(n);
    let mut made = Vec::new();
    match method {
        Method::PartSwap | Method::FullSwap | Method::PartAndFullSwap | Method::RandSwap => {
            let mut pairs = Vec::new();
            if matches!(method, Method::PartSwap | Method::PartAndFullSwap) {
                pairs.extend(partial_pairs(&records, params.search()));
            }
            let partial = pairs.len();
            if matches!(method, Method::FullSwap | Method::PartAndFullSwap) {
                pairs.extend(full_pairs(&records));
            }
            if method == Method::RandSwap {
                pairs.extend(random_pairs(&records, &mut rng));
            }
            let mut current: Vec<Vec<ItemId>> = db.iter().map(<[ItemId]>::to_vec).collect();
            for (k, &(t, c)) in pairs.iter().enumerate() {
                let (t, c) = (t as usize, c as usize);
                let full = k >= partial && method != Method::RandSwap;
                let moving = |rec: usize| -> Vec<ItemId> {
                    match tendency[rec] {
                        _ if full => current[rec].clone(),
                        Tendency::Category(g) => items_in(&current[rec], category_of, g),
                        _ => Vec::new(),
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
            stats.pairs = pairs.len();
            made.clone_from(&pairs);
            let eligible = match method {
                Method::PartSwap | Method::RandSwap => stats.with_tendency,
                Method::FullSwap => stats.single_category,
                _ => stats.with_tendency + stats.single_category,
            };
            let changed_sources = match method {
                // A random partner may have no tendency of its own.
                Method::RandSwap => {
                    pairs.iter().map(|&(_, c)| 1 + usize::from(records_has(&tendency, c))).sum()
                }
                _ => 2 * pairs.len(),
            };
            stats.unmatched = eligible - changed_sources.min(eligible);
            rows.extend(current.into_iter().zip(0u32..));
        }
        Method::PartSupp => {
            for (r, t) in db.iter().enumerate() {
                let kept: Vec<ItemId> = match tendency[r] {
                    Tendency::Category(g) => {
                        t.iter().copied().filter(|&i| category_of[i as usize] != g).collect()
                    }
                    _ => t.to_vec(),
                };
                stats.suppressed += t.len() - kept.len();
                rows.push((kept, r as u32));
            }
        }
        Method::SplitPerson => {
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
        }
    }
    // Publication: canonical order (content), then shuffled, so that neither the input's
    // order nor the processing order shows.
    rows.sort_unstable();
    rows.shuffle(&mut rng);
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0);
    let mut items = Vec::with_capacity(db.occurrences());
    let mut key = Vec::with_capacity(rows.len());
    for (t, origin) in rows {
        items.extend(t);
        offsets.push(items.len());
        key.push(origin);
    }
    let published = TransactionDb::from_parts(offsets, items, db.labels().clone());
    stats.published_records = published.len();
    let seconds = started.elapsed().as_secs_f64();
    let report = audit(db, &published, &key, categories, &params.claim())?;
    Ok(Swapped { published, key, pairs: made, stats, audit: report, seconds })
}

fn records_has(tendency: &[Tendency], rec: u32) -> bool {
    matches!(tendency[rec as usize], Tendency::Category(_))
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
