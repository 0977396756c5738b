//! The reconstruction error of the CAHD paper: how well the published groups answer group-by
//! queries on a sensitive item.

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use txanon_data::{ItemId, ItemIndex, ParamError, TransactionDb};
use txanon_metrics::kl_divergence;

use crate::error::CahdError;
use crate::publish::PublishedGroups;

/// How a query's QID items are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QidDraw {
    /// Uniformly among the QID items (the paper's "r random QID items"). On sparse data most
    /// items are rare, and most transactions then fall in the all-absent cell.
    Uniform,
    /// In proportion to their support, without replacement: queries about the items people
    /// actually hold.
    BySupport,
}

/// A workload of group-by queries; build with [`Workload::new`], validate with
/// [`Workload::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    r: usize,
    queries: usize,
    seed: u64,
    draw: QidDraw,
}

/// Checked [`Workload`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidWorkload(Workload);

impl Workload {
    /// Queries over `r` QID items each (the paper's r = 2…8, default 4), 100 queries, seed 0.
    pub fn new(r: usize) -> Self {
        Self { r, queries: 100, seed: 0, draw: QidDraw::Uniform }
    }

    /// How QID items are drawn (default [`QidDraw::Uniform`]).
    pub fn draw(mut self, draw: QidDraw) -> Self {
        self.draw = draw;
        self
    }

    /// Number of queries averaged (default 100).
    pub fn queries(mut self, queries: usize) -> Self {
        self.queries = queries;
        self
    }

    /// Seed of the query draws (default 0: the same queries for every method compared).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Validates the workload.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `r` outside 1..=16 (2^r cells) or no query.
    pub fn check(self) -> Result<ValidWorkload, ParamError> {
        if !(1..=16).contains(&self.r) {
            return Err(ParamError::OutOfRange {
                name: "r",
                value: self.r.to_string(),
                reason: "a query groups by 1 to 16 QID items (2^r cells)",
            });
        }
        if self.queries == 0 {
            return Err(ParamError::OutOfRange {
                name: "queries",
                value: "0".into(),
                reason: "average over at least one query",
            });
        }
        Ok(ValidWorkload(self))
    }
}

/// Groups of more transactions than this are read through lists per item.
const LISTED_GROUP: usize = 256;

/// A group's QID transactions, as the reconstruction error reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
enum GroupRows {
    /// Rows of the listed buffer.
    Listed(std::ops::Range<usize>),
    /// An index of per-item lists.
    Indexed(usize),
}

/// The items a workload draws from, over the original's ids.
struct QueryItems {
    /// Each item of the publication's table as an item of the original.
    at: Vec<ItemId>,
    /// The published sensitive items that occur in the original, by label (as text), so the
    /// workload is the same whatever order a publication lists them in.
    sensitive: Vec<ItemId>,
    /// The other items that occur in the original.
    qid_pool: Vec<ItemId>,
}

impl QueryItems {
    /// The items of `published` over `original`'s ids, for queries of `r` QID items.
    fn of(
        original: &TransactionDb,
        published: &PublishedGroups,
        r: usize,
    ) -> Result<Self, CahdError> {
        let at = published.ids_in(original).map_err(|label| {
            CahdError::Mismatch(format!("{label:?} is not an item of the original"))
        })?;
        let mut is_sensitive = vec![false; original.num_items()];
        let mut sensitive = Vec::new();
        for &k in &published.sensitive {
            let s = find_in(&at, k)?;
            is_sensitive[s as usize] = true;
            if original.supports()[s as usize] > 0 {
                sensitive.push(s);
            }
        }
        sensitive.sort_by_cached_key(|&s| original.label(s).to_string());
        if sensitive.is_empty() {
            return Err(CahdError::Mismatch(
                "no published sensitive item occurs in the original".into(),
            ));
        }
        let qid_pool: Vec<ItemId> = (0..original.num_items() as ItemId)
            .filter(|&i| !is_sensitive[i as usize] && original.supports()[i as usize] > 0)
            .collect();
        if qid_pool.len() < r {
            return Err(CahdError::Mismatch(format!(
                "{} QID items, fewer than r = {r}",
                qid_pool.len()
            )));
        }
        Ok(Self { at, sensitive, qid_pool })
    }
}

/// Item `k` of the publication's table as an item of the original.
fn find_in(at: &[ItemId], k: u32) -> Result<ItemId, CahdError> {
    at.get(k as usize).copied().ok_or_else(|| {
        CahdError::Mismatch(format!("item index {k} is outside the publication's table"))
    })
}

/// The next query of a workload: its sensitive item, and its `r` QID items as positions in
/// `qid_pool`.
fn draw_query(
    rng: &mut ChaCha8Rng,
    draw: QidDraw,
    original: &TransactionDb,
    sensitive: &[ItemId],
    qid_pool: &[ItemId],
    r: usize,
) -> (ItemId, Vec<usize>) {
    let s = *sensitive.choose(rng).expect("non-empty");
    let chosen = match draw {
        QidDraw::Uniform => rand::seq::index::sample(rng, qid_pool.len(), r).into_vec(),
        QidDraw::BySupport => rand::seq::index::sample_weighted(
            rng,
            qid_pool.len(),
            |k| original.supports()[qid_pool[k] as usize] as f64,
            r,
        )
        .expect("positive supports, at least r items")
        .into_vec(),
    };
    (s, chosen)
}

/// The mean reconstruction error of a workload, and its spread.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ReconstructionError {
    /// Mean KL-divergence over the queries, in nats.
    pub mean: f64,
    /// The largest of the queries' divergences.
    pub max: f64,
    /// Queries averaged.
    pub queries: usize,
}

/// The CAHD paper's reconstruction error. A query is a sensitive item `s` (uniform among the
/// published sensitive items present in `original`) and `r` distinct QID items (among the items
/// of `original` that are not sensitive, drawn as the workload's [`QidDraw`] says). Its cells are the `2^r` combinations of
/// presence and absence of those items. In the original, `Act_C` counts the transactions of
/// cell `C` that hold `s`. From the publication, a group `G` whose transactions fall `a_{G,C}`
/// times in cell `C` and that holds `s` `b_G` times contributes `a_{G,C}·b_G/|G|` to `Est_C`:
/// each of its transactions is equally likely to hold each occurrence. The error is
/// `KL(Act‖Est) = Σ_C Act_C · ln(Act_C / Est_C)` over both distributions normalized to sum 1,
/// averaged over the queries.
///
/// Empty cells: a cell with `Act_C = 0` contributes 0. `Est_C = 0` with `Act_C > 0` cannot
/// occur for a faithful publication (the group of a transaction of `C` holding `s` has
/// `a_{G,C} ≥ 1` and `b_G ≥ 1`); should it, [`kl_divergence`]'s floor keeps the term finite.
/// Both totals equal the support of `s`, so the normalization divides both by the same number.
///
/// # Complexity
/// `O(Σ|t| · log)` to map the publication's labels to ids (a dictionary lookup per label) and
/// index the original by item, then per query `O(Σ_{t ∋ s}|t| + Σ_{G ∋ s}Σ_{t∈G}|t| + 2^r)`: the
/// original's transactions holding `s` and the published QID itemsets of the groups holding it.
///
/// # Errors
/// [`CahdError::Mismatch`] when a published label is not an item of `original`, no published
/// sensitive item occurs in `original`, or fewer than `r` QID items exist.
///
/// Long as one function: the paper's estimate and the actual count of each query share the drawn
/// queries, the item index and the groups' QID lists built at its start.
pub fn reconstruction_error(
    original: &TransactionDb,
    published: &PublishedGroups,
    workload: &ValidWorkload,
) -> Result<ReconstructionError, CahdError> {
    let Workload { r, queries, seed, draw } = workload.0.clone();
    let QueryItems { at, sensitive, qid_pool } = QueryItems::of(original, published, r)?;
    let find = |k: u32| find_in(&at, k);
    // The QID transactions of the groups holding each sensitive item, over the original's
    // ids, in one buffer, with the item's count in the group: a query then reads only the
    // groups that hold its item.
    let mut slot_of = vec![usize::MAX; original.num_items()];
    for (j, &s) in sensitive.iter().enumerate() {
        slot_of[s as usize] = j;
    }
    // The groups' side and the original's side, each read on one core, side by side.
    let (listed, actual_rows) = rayon::join(
        || {
            let mut holding: Vec<Vec<(GroupRows, usize, usize)>> =
                vec![Vec::new(); sensitive.len()];
            let (mut qid_items, mut qid_ends) = (Vec::<ItemId>::new(), vec![0usize]);
            let mut indexed: Vec<ItemIndex> = Vec::new();
            // A group's QID transactions over the original's ids, appended to one buffer.
            let list =
                |g: &crate::PublishedGroup, items: &mut Vec<ItemId>, ends: &mut Vec<usize>| {
                    for t in &g.qid {
                        for &k in t {
                            items.push(find(k)?);
                        }
                        ends.push(items.len());
                    }
                    Ok::<(), CahdError>(())
                };
            for g in &published.groups {
                let mut listed = None;
                for &(k, b) in &g.sensitive {
                    let slot = slot_of[find(k)? as usize];
                    if slot == usize::MAX {
                        continue;
                    }
                    // The group's QID transactions, listed once for all the items it holds: a large
                    // group (the last one holds most transactions) as lists per item, which a query
                    // reads for its r items only.
                    let rows = match &listed {
                        Some(rows) => GroupRows::clone(rows),
                        None => {
                            let rows = if g.qid.len() > LISTED_GROUP {
                                let (mut items, mut ends) = (Vec::new(), vec![0]);
                                list(g, &mut items, &mut ends)?;
                                indexed.push(ItemIndex::from_rows(
                                    original.num_items(),
                                    ends.windows(2).map(|e| items[e[0]..e[1]].iter().copied()),
                                ));
                                GroupRows::Indexed(indexed.len() - 1)
                            } else {
                                let from = qid_ends.len() - 1;
                                list(g, &mut qid_items, &mut qid_ends)?;
                                GroupRows::Listed(from..qid_ends.len() - 1)
                            };
                            listed = Some(rows.clone());
                            rows
                        }
                    };
                    // A group listing an item twice counts once, with its first count.
                    if holding[slot].last().is_none_or(|(last, _, _)| *last != rows) {
                        holding[slot].push((rows, g.qid.len(), b));
                    }
                }
                // A group's QID items are checked against the table even when no query reads them.
                if listed.is_none() {
                    for t in &g.qid {
                        for &k in t {
                            find(k)?;
                        }
                    }
                }
            }
            Ok::<_, CahdError>((holding, qid_items, qid_ends, indexed))
        },
        || {
            // The original's transactions holding each sensitive item, in one pass.
            let mut actual_rows: Vec<Vec<u32>> = vec![Vec::new(); sensitive.len()];
            for (r, t) in original.iter().enumerate() {
                for &i in t {
                    if slot_of[i as usize] != usize::MAX {
                        actual_rows[slot_of[i as usize]].push(r as u32);
                    }
                }
            }
            actual_rows
        },
    );
    let (holding, qid_items, qid_ends, indexed) = listed?;
    // The queries drawn in turn, then answered on rayon, their divergences summed in turn:
    // the same numbers as answering them one after the other.
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let drawn: Vec<(usize, Vec<usize>)> = (0..queries)
        .map(|_| {
            let (s, chosen) = draw_query(&mut rng, draw, original, &sensitive, &qid_pool, r);
            (slot_of[s as usize], chosen)
        })
        .collect();
    let divergences: Vec<Result<f64, CahdError>> = drawn
        .par_iter()
        .map_init(
            || (vec![0u32; original.num_items()], Vec::<u32>::new(), Vec::<u32>::new()),
            |(bit, mask, touched), (slot, chosen)| {
                for (k, &at) in chosen.iter().enumerate() {
                    bit[qid_pool[at] as usize] = 1 << k;
                }
                let cell = |items: &[ItemId]| -> usize {
                    items.iter().map(|&i| bit[i as usize] as usize).fold(0, |c, b| c | b)
                };
                let mut actual = vec![0.0; 1 << r];
                for &t in &actual_rows[*slot] {
                    actual[cell(original.transaction(t as usize))] += 1.0;
                }
                let mut estimate = vec![0.0; 1 << r];
                for (rows, size, b) in &holding[*slot] {
                    let share = *b as f64 / *size as f64;
                    match rows {
                        GroupRows::Listed(range) => {
                            for t in range.clone() {
                                estimate[cell(&qid_items[qid_ends[t]..qid_ends[t + 1]])] += share;
                            }
                        }
                        GroupRows::Indexed(j) => {
                            // Each cell's count of transactions, then as many additions of
                            // the share as a scan would make: the same sums, bit for bit.
                            let index = &indexed[*j];
                            mask.resize(*size, 0);
                            touched.clear();
                            for (k, &at) in chosen.iter().enumerate() {
                                for &t in index.transactions(qid_pool[at]) {
                                    if mask[t as usize] == 0 {
                                        touched.push(t);
                                    }
                                    mask[t as usize] |= 1 << k;
                                }
                            }
                            let mut in_cell = vec![0usize; 1 << r];
                            in_cell[0] = size - touched.len();
                            for &t in touched.iter() {
                                in_cell[mask[t as usize] as usize] += 1;
                                mask[t as usize] = 0;
                            }
                            for (c, &count) in in_cell.iter().enumerate() {
                                for _ in 0..count {
                                    estimate[c] += share;
                                }
                            }
                        }
                    }
                }
                for &at in chosen {
                    bit[qid_pool[at] as usize] = 0;
                }
                kl_divergence(&actual, &estimate).map_err(|e| {
                    CahdError::Mismatch(format!("query on item {}: {e}", sensitive[*slot]))
                })
            },
        )
        .collect();
    let (mut total, mut max) = (0.0, 0.0f64);
    for kl in divergences {
        let kl = kl?;
        total += kl;
        max = max.max(kl);
    }
    Ok(ReconstructionError { mean: total / queries as f64, max, queries })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CahdParams, anonymize};
    use txanon_data::{ItemIndex, QuestParams, random_items};

    /// A published group over the original's item ids: its QID itemsets and its counts.
    type GroupOverIds = (Vec<Vec<ItemId>>, Vec<(ItemId, usize)>);

    /// The reconstruction error as first written: every group scanned for every query (the
    /// items and the draw of the queries are the function's own, [`QueryItems`] and
    /// [`draw_query`]: what is compared is how the queries are answered).
    fn by_scanning(
        original: &TransactionDb,
        published: &PublishedGroups,
        workload: &ValidWorkload,
    ) -> Result<ReconstructionError, CahdError> {
        let Workload { r, queries, seed, draw } = workload.0.clone();
        let QueryItems { at, sensitive, qid_pool } = QueryItems::of(original, published, r)?;
        let find = |k: u32| find_in(&at, k);
        // The publication over the original's ids: per group, its QID itemsets and its counts.
        let mut groups: Vec<GroupOverIds> = Vec::new();
        for g in &published.groups {
            let qid = g
                .qid
                .iter()
                .map(|t| t.iter().map(|&k| find(k)).collect::<Result<Vec<_>, _>>())
                .collect::<Result<Vec<_>, _>>()?;
            let counts = g
                .sensitive
                .iter()
                .map(|&(k, c)| Ok((find(k)?, c)))
                .collect::<Result<Vec<_>, CahdError>>()?;
            groups.push((qid, counts));
        }
        let index = ItemIndex::new(original);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut bit = vec![0u32; original.num_items()];
        let (mut total, mut max) = (0.0, 0.0f64);
        for _ in 0..queries {
            let (s, chosen) = draw_query(&mut rng, draw, original, &sensitive, &qid_pool, r);
            for (k, &at) in chosen.iter().enumerate() {
                bit[qid_pool[at] as usize] = 1 << k;
            }
            let cell = |items: &mut dyn Iterator<Item = ItemId>| -> usize {
                items.map(|i| bit[i as usize] as usize).fold(0, |c, b| c | b)
            };
            let mut actual = vec![0.0; 1 << r];
            for &t in index.transactions(s) {
                actual[cell(&mut original.transaction(t as usize).iter().copied())] += 1.0;
            }
            let mut estimate = vec![0.0; 1 << r];
            for (qid, counts) in &groups {
                let Some(&(_, b)) = counts.iter().find(|(i, _)| *i == s) else { continue };
                let share = b as f64 / qid.len() as f64;
                for t in qid {
                    estimate[cell(&mut t.iter().copied())] += share;
                }
            }
            let kl = kl_divergence(&actual, &estimate)
                .map_err(|e| CahdError::Mismatch(format!("query on item {s}: {e}")))?;
            total += kl;
            max = max.max(kl);
            for &at in &chosen {
                bit[qid_pool[at] as usize] = 0;
            }
        }
        Ok(ReconstructionError { mean: total / queries as f64, max, queries })
    }

    /// The per-item lists of large groups, the lists per sensitive item and the parallel
    /// queries give the numbers a scan of every group gives, bit for bit.
    #[test]
    fn reading_large_groups_by_item_changes_no_bit() {
        let db = QuestParams::new(20_000, 6.0, 3.0, 60).seed(3).check().unwrap().generate();
        let sensitive = random_items(&db, 3, 5).unwrap();
        let result =
            anonymize(&db, &sensitive, &CahdParams::new(4).seed(Some(1)).check().unwrap()).unwrap();
        let mut published = result.published.clone();
        // CAHD's last group holds no sensitive item when every occurrence found a group; one
        // that holds some (rolled back, or a baseline's) is read by item.
        let large = published.groups.iter().position(|g| g.qid.len() > LISTED_GROUP).unwrap();
        published.groups[large].sensitive = published.sensitive.iter().map(|&s| (s, 3)).collect();
        // A group that lists its item twice counts it once, with its first count.
        let twice = published.groups.iter().position(|g| !g.sensitive.is_empty()).unwrap();
        let first = published.groups[twice].sensitive[0];
        published.groups[twice].sensitive.insert(1, (first.0, first.1 + 1));
        for draw in [QidDraw::Uniform, QidDraw::BySupport] {
            for r in [1, 4, 7] {
                let workload = Workload::new(r).draw(draw).queries(40).seed(9).check().unwrap();
                for publication in [&result.published, &published] {
                    assert!(publication.groups.len() > 100);
                    let fast = reconstruction_error(&db, publication, &workload).unwrap();
                    let slow = by_scanning(&db, publication, &workload).unwrap();
                    assert_eq!(fast, slow, "{draw:?}, r = {r}");
                }
            }
        }
    }
}
