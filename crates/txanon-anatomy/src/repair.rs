//! Repairing an item partition so that every column admits l-diversity (Definition 5).
//!
//! A record partition can only be l-diverse if, in every column, no value is held by more than
//! `⌊n/l⌋` of the `n` records: the buckets' counts of that value add up to its global count. The
//! paper's clustering ignores this, and on its own datasets breaks it (a column of rare items is
//! empty in most records; Connect's near-universal items make one itemset dominate a column).
//! The repair moves items between columns until the bound holds everywhere.
//!
//! Each record's value in each column is kept as a 64-bit Zobrist hash (the XOR of random keys
//! of its items), so moving item `i` from column `A` to column `W` changes only the records
//! holding `i`, and the new largest count of both columns follows from those records alone:
//! - in `W`, every record holding `i` gets the new value `u ∪ {i}`, distinct from every value
//!   of the records without `i`; old values lose those records;
//! - in `A`, every value `u ∋ i` becomes `u \ {i}` and merges with the records already holding
//!   that value.
//!
//! A hash collision could only mislead the search, never the result: the partition is checked
//! exactly ([`crate::algorithm`]'s feasibility check) after the repair.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use txanon_correlate::CondensedMatrix;
use txanon_data::{ItemId, ItemIndex, TransactionDb};

use crate::algorithm::ItemPartition;

/// A column's values as hashes and their counts, with the counts also sorted (largest first) for
/// the "largest untouched count" queries.
#[derive(Debug)]
struct ColumnCounts {
    counts: FxHashMap<u64, u32>,
    sorted: Vec<(u32, u64)>,
}

impl ColumnCounts {
    fn new(hashes: impl Iterator<Item = u64>) -> Self {
        let mut counts = FxHashMap::default();
        for h in hashes {
            *counts.entry(h).or_insert(0) += 1;
        }
        let mut c = Self { counts, sorted: Vec::new() };
        c.sort();
        c
    }

    fn sort(&mut self) {
        self.sorted = self.counts.iter().map(|(&h, &c)| (c, h)).collect();
        self.sorted.sort_unstable_by(|a, b| b.cmp(a));
    }

    fn max(&self) -> u32 {
        self.sorted.first().map_or(0, |&(c, _)| c)
    }
}

/// SplitMix64: the item keys of the Zobrist hashes. Fixed, since the hashes never leave the
/// search and only need to be distinct.
pub(crate) fn item_key(item: ItemId) -> u64 {
    let mut z = (item as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The outcome of [`repair`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repair {
    /// Items moved, in order, as (item, from column, to column).
    pub moves: Vec<(ItemId, usize, usize)>,
    /// True when every column met the target afterwards (by the hashed counts).
    pub reached: bool,
}

/// Candidates evaluated at a time (in parallel), in decreasing order of their bound.
const BATCH: usize = 48;

/// Moves items between `columns` until no column has a value held by more than `cap` of the
/// records of `db`, or no single move lowers the total excess over `cap` any more.
/// `medoids[j]` is column `j`'s medoid in `distances`, and is never moved; ties between equally
/// good moves go to the item nearest its new medoid.
///
/// Each step takes the column `W` with the largest excess and makes the move into it with the
/// largest drop in total excess (`W`'s and the donor column's). The search is exact but pruned:
/// a move of item `i` lowers `W`'s largest count by at most `hits(i)`, the number of records
/// holding both `W`'s dominant value and `i`, and never lowers the donor's (losing an item
/// only merges its values), so its gain is at most `min(hits(i), excess(W))`. Candidates are
/// evaluated in batches in decreasing order of that bound, and the search stops once the best
/// gain found is at least the next bound; equal gains go to the item nearest its new medoid
/// among those evaluated.
///
/// # Complexity
/// Building the hashes is `O(Σ|t|)`. A move costs one pass over the records (for `hits`),
/// `O(sup(i))` expected time per evaluated item (rayon), and a sort of the two changed columns'
/// value counts; at worst every item is evaluated, `O(Σ|t|)`. Every move lowers the total
/// excess, an integer at most `p·n`, so the loop ends.
///
/// Long as one function: the repair loop (the sample's hashes, the best move, applying it, the
/// check) shares the sample's hashes and counts across rounds.
pub(crate) fn repair(
    db: &TransactionDb,
    columns: &mut ItemPartition,
    distances: &CondensedMatrix,
    medoids: &[usize],
    cap: u32,
) -> Repair {
    let n = db.len();
    let p = columns.len();
    let m = db.num_items();
    let mut column_of = vec![0usize; m];
    for (j, items) in columns.iter().enumerate() {
        for &i in items {
            column_of[i as usize] = j;
        }
    }
    let mut hashes = vec![0u64; n * p];
    for (r, t) in db.iter().enumerate() {
        for &i in t {
            hashes[r * p + column_of[i as usize]] ^= item_key(i);
        }
    }
    let mut counts: Vec<ColumnCounts> =
        (0..p).map(|j| ColumnCounts::new((0..n).map(|r| hashes[r * p + j]))).collect();
    let excess = |max: u32| max.saturating_sub(cap) as u64;
    let index = ItemIndex::new(db);
    let mut hits = vec![0u32; m];
    let mut moves = Vec::new();
    loop {
        let (worst, worst_excess) = (0..p)
            .map(|j| (j, excess(counts[j].max())))
            .max_by_key(|&(j, e)| (e, std::cmp::Reverse(j)))
            .expect("at least one column");
        if worst_excess == 0 {
            return Repair { moves, reached: true };
        }
        // A medoid stays: it is its column's centre, and no column is ever emptied.
        let movable = |i: usize| column_of[i] != worst && !medoids.contains(&i);
        let dominant = counts[worst].sorted[0].1;
        hits.iter_mut().for_each(|h| *h = 0);
        for (r, t) in db.iter().enumerate() {
            if hashes[r * p + worst] == dominant {
                for &i in t {
                    hits[i as usize] += 1;
                }
            }
        }
        let mut candidates: Vec<usize> = (0..m).filter(|&i| movable(i) && hits[i] > 0).collect();
        candidates.sort_unstable_by_key(|&i| (std::cmp::Reverse(hits[i]), i));
        let bound = |i: usize| (hits[i] as u64).min(worst_excess) as i64;
        let mut best: Option<(i64, f64, usize)> = None;
        for batch in candidates.chunks(BATCH) {
            if best.is_some_and(|(gain, _, _)| gain >= bound(batch[0])) {
                break;
            }
            // The worst column's side first: its gain bounds the move's (the donor's is never
            // positive), so the donor's side is only evaluated for a move that could still win.
            let floor = best.map_or(1, |(gain, _, _)| gain);
            let found = batch
                .par_iter()
                .map_init(FxHashMap::default, |scratch, &i| {
                    let item = i as ItemId;
                    let records = index.transactions(item);
                    let into =
                        max_after_adding(&counts[worst], records, &hashes, p, worst, scratch);
                    let gain_into = worst_excess as i64 - excess(into) as i64;
                    if gain_into < floor {
                        return None;
                    }
                    let from = column_of[i];
                    let left =
                        max_after_removing(&counts[from], records, &hashes, p, from, item, scratch);
                    let gain = gain_into + excess(counts[from].max()) as i64 - excess(left) as i64;
                    let cost = distances.get(i, medoids[worst]) - distances.get(i, medoids[from]);
                    Some((gain, cost, i))
                })
                .flatten()
                .filter(|&(gain, _, _)| gain > 0)
                .min_by(better);
            if let Some(found) = found
                && best.is_none_or(|b| better(&found, &b).is_lt())
            {
                best = Some(found);
            }
        }
        let Some((_, _, i)) = best else {
            return Repair { moves, reached: false };
        };
        let item = i as ItemId;
        let from = column_of[i];
        let key = item_key(item);
        for &r in index.transactions(item) {
            for j in [from, worst] {
                let h = &mut hashes[r as usize * p + j];
                let old = *h;
                *h ^= key;
                let c = counts[j].counts.get_mut(&old).expect("counted");
                *c -= 1;
                if *c == 0 {
                    counts[j].counts.remove(&old);
                }
                *counts[j].counts.entry(*h).or_insert(0) += 1;
            }
        }
        counts[from].sort();
        counts[worst].sort();
        column_of[i] = worst;
        columns[from].retain(|&x| x != item);
        let at = columns[worst].partition_point(|&x| x < item);
        columns[worst].insert(at, item);
        moves.push((item, from, worst));
    }
}

/// Orders moves: larger gain first, then lower correlation cost, then lower item id.
fn better(a: &(i64, f64, usize), b: &(i64, f64, usize)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2))
}

/// The largest count in `column` (index `j`) once item `i`, held by `records`, joins it.
fn max_after_adding(
    column: &ColumnCounts,
    records: &[u32],
    hashes: &[u64],
    p: usize,
    j: usize,
    scratch: &mut FxHashMap<u64, u32>,
) -> u32 {
    // scratch[u] = records holding i whose value was u; each becomes the new value u ∪ {i}.
    scratch.clear();
    let mut best = 0;
    for &r in records {
        let c = scratch.entry(hashes[r as usize * p + j]).or_insert(0);
        *c += 1;
        best = best.max(*c);
    }
    for &(c, u) in &column.sorted {
        if c <= best {
            break;
        }
        best = best.max(c - scratch.get(&u).copied().unwrap_or(0));
    }
    best
}

/// The largest count in `column` (index `j`) once `item`, held by `records`, leaves it.
fn max_after_removing(
    column: &ColumnCounts,
    records: &[u32],
    hashes: &[u64],
    p: usize,
    j: usize,
    item: ItemId,
    scratch: &mut FxHashMap<u64, u32>,
) -> u32 {
    let key = item_key(item);
    // scratch[w] = records whose value u ∋ i becomes w = u \ {i}.
    // (Maxima are tracked while counting: iterating a scratch map costs its capacity, which an
    // earlier, more frequent item may have made large.)
    scratch.clear();
    let mut best = 0;
    for &r in records {
        let w = hashes[r as usize * p + j] ^ key;
        let added = scratch.entry(w).or_insert(0);
        *added += 1;
        best = best.max(column.counts.get(&w).copied().unwrap_or(0) + *added);
    }
    for &(c, u) in &column.sorted {
        if c <= best {
            break;
        }
        // A value holding i vanishes; one that receives records was counted above; the first
        // other one is the largest untouched count.
        if scratch.contains_key(&(u ^ key)) || scratch.contains_key(&u) {
            continue;
        }
        best = c;
        break;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The brute force: the largest count of a column's exact values.
    fn max_count(db: &TransactionDb, column: &[ItemId]) -> u32 {
        let mut counts: FxHashMap<Vec<ItemId>, u32> = FxHashMap::default();
        for t in db.iter() {
            let v: Vec<ItemId> = t.iter().copied().filter(|i| column.contains(i)).collect();
            *counts.entry(v).or_insert(0) += 1;
        }
        counts.values().copied().max().unwrap_or(0)
    }

    #[test]
    fn incremental_counts_match_recounting_every_move() {
        let db =
            txanon_data::QuestParams::new(400, 6.0, 3.0, 30).seed(3).check().unwrap().generate();
        let m = db.num_items();
        let p = 4;
        let columns: ItemPartition =
            (0..p).map(|j| (0..m as u32).filter(|i| *i as usize % p == j).collect()).collect();
        let mut hashes = vec![0u64; db.len() * p];
        for (r, t) in db.iter().enumerate() {
            for &i in t {
                hashes[r * p + i as usize % p] ^= item_key(i);
            }
        }
        let counts: Vec<ColumnCounts> =
            (0..p).map(|j| ColumnCounts::new((0..db.len()).map(|r| hashes[r * p + j]))).collect();
        let index = ItemIndex::new(&db);
        let mut scratch = FxHashMap::default();
        for i in 0..m as u32 {
            let from = i as usize % p;
            let to = (from + 1) % p;
            let records = index.transactions(i);
            let mut into: Vec<ItemId> = columns[to].clone();
            into.push(i);
            let left: Vec<ItemId> = columns[from].iter().copied().filter(|&x| x != i).collect();
            assert_eq!(
                max_after_adding(&counts[to], records, &hashes, p, to, &mut scratch),
                max_count(&db, &into),
                "adding {i}"
            );
            assert_eq!(
                max_after_removing(&counts[from], records, &hashes, p, from, i, &mut scratch),
                max_count(&db, &left),
                "removing {i}"
            );
        }
    }
}
