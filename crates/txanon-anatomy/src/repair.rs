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

/// A column's values: each distinct value (a hash) gets a dense id, so that the candidate
/// evaluation counts records per value in an array rather than a hash map; the counts are also
/// kept sorted (largest first) for the "largest untouched count" queries.
#[derive(Debug)]
struct ColumnCounts {
    /// Hash of a value to its id. A value whose count drops to zero keeps its id.
    ids: FxHashMap<u64, u32>,
    /// Per id: the value's hash and its count of records.
    hash: Vec<u64>,
    count: Vec<u32>,
    /// (count, hash, id) of the values held by a record, largest count first, then largest
    /// hash (the order the dominant value is chosen in).
    sorted: Vec<(u32, u64, u32)>,
}

impl ColumnCounts {
    /// The counts of a column whose records hold `hashes`, and each record's value id.
    fn new(hashes: impl Iterator<Item = u64>) -> (Self, Vec<u32>) {
        let mut c = Self {
            ids: FxHashMap::default(),
            hash: Vec::new(),
            count: Vec::new(),
            sorted: Vec::new(),
        };
        let vids = hashes.map(|h| c.add(h)).collect();
        c.sort();
        (c, vids)
    }

    /// Counts one more record of value `h`; its id.
    fn add(&mut self, h: u64) -> u32 {
        let id = *self.ids.entry(h).or_insert_with(|| {
            self.hash.push(h);
            self.count.push(0);
            (self.hash.len() - 1) as u32
        });
        self.count[id as usize] += 1;
        id
    }

    fn sort(&mut self) {
        self.sorted.clear();
        self.sorted.extend(
            (0..self.count.len())
                .filter(|&id| self.count[id] > 0)
                .map(|id| (self.count[id], self.hash[id], id as u32)),
        );
        self.sorted.sort_unstable_by_key(|&(c, h, _)| std::cmp::Reverse((c, h)));
    }

    fn max(&self) -> u32 {
        self.sorted.first().map_or(0, |&(c, _, _)| c)
    }

    /// The records of value `h` now (zero for a value no record holds).
    fn count_of(&self, h: u64) -> u32 {
        self.ids.get(&h).map_or(0, |&id| self.count[id as usize])
    }
}

/// Every record's value in every column, as a hash and an id, and each column's counts.
#[derive(Debug)]
struct Values {
    n: usize,
    /// `hashes[j * n + r]`: the Zobrist hash of record r's value in column j (column-major:
    /// an item's records, in increasing order, are read from one column's run).
    hashes: Vec<u64>,
    /// `vids[j * n + r]`: that value's id in column j's counts.
    vids: Vec<u32>,
    counts: Vec<ColumnCounts>,
}

impl Values {
    /// The values of `db`'s records in `p` columns, item `i` in column `column_of[i]`.
    fn new(db: &TransactionDb, column_of: &[usize], p: usize) -> Self {
        let n = db.len();
        let mut hashes = vec![0u64; n * p];
        for (r, t) in db.iter().enumerate() {
            for &i in t {
                hashes[column_of[i as usize] * n + r] ^= item_key(i);
            }
        }
        let mut vids = vec![0u32; n * p];
        let counts = (0..p)
            .map(|j| {
                let (c, ids) = ColumnCounts::new(hashes[j * n..(j + 1) * n].iter().copied());
                vids[j * n..(j + 1) * n].copy_from_slice(&ids);
                c
            })
            .collect();
        Self { n, hashes, vids, counts }
    }

    /// Every record's value id in column `j`.
    fn column(&self, j: usize) -> &[u32] {
        &self.vids[j * self.n..(j + 1) * self.n]
    }

    /// Moves `item`, held by `records`, from column `from` to column `to`.
    fn apply(&mut self, item: ItemId, records: &[u32], from: usize, to: usize) {
        let key = item_key(item);
        for &r in records {
            for j in [from, to] {
                let at = j * self.n + r as usize;
                self.counts[j].count[self.vids[at] as usize] -= 1;
                self.hashes[at] ^= key;
                self.vids[at] = self.counts[j].add(self.hashes[at]);
            }
        }
        self.counts[from].sort();
        self.counts[to].sort();
    }
}

/// Per-thread counts of records by value id, cleared after each use through the ids touched.
#[derive(Debug, Default)]
struct Tally {
    count: Vec<u32>,
    touched: Vec<u32>,
}

impl Tally {
    /// Counts `records` by their value ids `vids`; the largest count.
    fn count(&mut self, records: &[u32], vids: &[u32], ids: usize) -> u32 {
        if self.count.len() < ids {
            self.count.resize(ids, 0);
        }
        let mut best = 0;
        for &r in records {
            let id = vids[r as usize];
            let c = &mut self.count[id as usize];
            if *c == 0 {
                self.touched.push(id);
            }
            *c += 1;
            best = best.max(*c);
        }
        best
    }

    fn get(&self, id: u32) -> u32 {
        self.count[id as usize]
    }

    fn clear(&mut self) {
        for &id in &self.touched {
            self.count[id as usize] = 0;
        }
        self.touched.clear();
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
    let p = columns.len();
    let m = db.num_items();
    let mut column_of = vec![0usize; m];
    for (j, items) in columns.iter().enumerate() {
        for &i in items {
            column_of[i as usize] = j;
        }
    }
    let mut values = Values::new(db, &column_of, p);
    let excess = |max: u32| max.saturating_sub(cap) as u64;
    let index = ItemIndex::new(db);
    let mut hits = vec![0u32; m];
    // An item's donor side depends on its column alone: left[i] = (moves made when it was
    // computed, the column's largest count without i), valid while the column is unchanged
    // since (changed[j]: the moves made when column j last changed).
    let mut left: Vec<Option<(usize, u32)>> = vec![None; m];
    let mut changed = vec![0usize; p];
    let mut moves = Vec::new();
    loop {
        let Values { counts, .. } = &values;
        let (worst, worst_excess) = (0..p)
            .map(|j| (j, excess(counts[j].max())))
            .max_by_key(|&(j, e)| (e, std::cmp::Reverse(j)))
            .expect("at least one column");
        if worst_excess == 0 {
            return Repair { moves, reached: true };
        }
        // A medoid stays: it is its column's centre, and no column is ever emptied.
        let movable = |i: usize| column_of[i] != worst && !medoids.contains(&i);
        let dominant = counts[worst].sorted[0].2;
        hits.iter_mut().for_each(|h| *h = 0);
        let worst_values = values.column(worst);
        for (r, t) in db.iter().enumerate() {
            if worst_values[r] == dominant {
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
            let evaluated: Vec<(usize, u32, i64)> = batch
                .par_iter()
                .map_init(Tally::default, |tally, &i| {
                    let item = i as ItemId;
                    let records = index.transactions(item);
                    let into =
                        max_after_adding(&counts[worst], records, values.column(worst), tally);
                    let gain_into = worst_excess as i64 - excess(into) as i64;
                    if gain_into < floor {
                        return None;
                    }
                    let from = column_of[i];
                    let max_left = match left[i] {
                        Some((at, max)) if changed[from] <= at => max,
                        _ => max_after_removing(
                            &counts[from],
                            records,
                            values.column(from),
                            item,
                            tally,
                        ),
                    };
                    let gain =
                        gain_into + excess(counts[from].max()) as i64 - excess(max_left) as i64;
                    Some((i, max_left, gain))
                })
                .flatten()
                .collect();
            let found = evaluated
                .iter()
                .filter(|&&(_, _, gain)| gain > 0)
                .map(|&(i, _, gain)| {
                    let from = column_of[i];
                    let cost = distances.get(i, medoids[worst]) - distances.get(i, medoids[from]);
                    (gain, cost, i)
                })
                .min_by(better);
            for &(i, max_left, _) in &evaluated {
                left[i] = Some((moves.len(), max_left));
            }
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
        values.apply(item, index.transactions(item), from, worst);
        column_of[i] = worst;
        changed[from] = moves.len() + 1;
        changed[worst] = moves.len() + 1;
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

/// The largest count in `column`, whose records hold the value ids `vids`, once item `i`,
/// held by `records`, joins it.
fn max_after_adding(
    column: &ColumnCounts,
    records: &[u32],
    vids: &[u32],
    tally: &mut Tally,
) -> u32 {
    // tally[u] = records holding i whose value was u; each becomes the new value u ∪ {i}.
    let mut best = tally.count(records, vids, column.count.len());
    for &(c, _, u) in &column.sorted {
        if c <= best {
            break;
        }
        best = best.max(c - tally.get(u));
    }
    tally.clear();
    best
}

/// The largest count in `column`, whose records hold the value ids `vids`, once `item`, held by
/// `records`, leaves it.
fn max_after_removing(
    column: &ColumnCounts,
    records: &[u32],
    vids: &[u32],
    item: ItemId,
    tally: &mut Tally,
) -> u32 {
    let key = item_key(item);
    // tally[u] = records of value u ∋ i, which all take the value w = u \ {i}: distinct u give
    // distinct w, and no w holds i, so w's count becomes its own plus tally[u]. Every record
    // of a value u ∋ i holds i, so u's count is tally[u], no more than w's new one: the
    // largest count is the largest of the new ones and the column's old largest.
    let mut best = column.max();
    tally.count(records, vids, column.count.len());
    for &u in &tally.touched {
        let w = column.hash[u as usize] ^ key;
        best = best.max(column.count_of(w) + tally.get(u));
    }
    tally.clear();
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

    /// Every candidate move's largest counts against recounting, on the starting columns and
    /// after each of a sequence of moves (some back and forth, so that values vanish and come
    /// back under their old ids); and the applied move's counts against recounting.
    #[test]
    fn incremental_counts_match_recounting_every_move() {
        let db =
            txanon_data::QuestParams::new(400, 6.0, 3.0, 30).seed(3).check().unwrap().generate();
        let m = db.num_items();
        let p = 4;
        let mut column_of: Vec<usize> = (0..m).map(|i| i % p).collect();
        let mut values = Values::new(&db, &column_of, p);
        let index = ItemIndex::new(&db);
        let mut tally = Tally::default();
        let column = |column_of: &[usize], j: usize| -> Vec<ItemId> {
            (0..m as u32).filter(|&x| column_of[x as usize] == j).collect()
        };
        let mut rng = 7u64;
        let mut checked = 0;
        let mut last_moved = None;
        let mut reused = 0;
        for step in 0..40 {
            for i in 0..m as u32 {
                let from = column_of[i as usize];
                let to = (from + 1 + i as usize % (p - 1)) % p;
                let records = index.transactions(i);
                let mut into = column(&column_of, to);
                into.push(i);
                let left: Vec<ItemId> =
                    column(&column_of, from).into_iter().filter(|&x| x != i).collect();
                assert_eq!(
                    max_after_adding(&values.counts[to], records, values.column(to), &mut tally),
                    max_count(&db, &into),
                    "step {step}: adding {i} to {to}"
                );
                assert_eq!(
                    max_after_removing(
                        &values.counts[from],
                        records,
                        values.column(from),
                        i,
                        &mut tally
                    ),
                    max_count(&db, &left),
                    "step {step}: removing {i} from {from}"
                );
                checked += 1;
            }
            for j in 0..p {
                assert_eq!(values.counts[j].max(), max_count(&db, &column(&column_of, j)));
            }
            // Every other step moves the last item back where it came from.
            let (item, to) = match last_moved {
                Some((item, from)) if step % 2 == 1 => (item, from),
                _ => {
                    rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    let item = (rng >> 33) as usize % m;
                    (item as ItemId, (column_of[item] + 1) % p)
                }
            };
            let from = column_of[item as usize];
            let ids = |values: &Values| values.counts.iter().map(|c| c.hash.len()).sum::<usize>();
            let before = ids(&values);
            values.apply(item, index.transactions(item), from, to);
            if step % 2 == 1 {
                // Moving back restores values seen before: no new id.
                assert_eq!(ids(&values), before, "step {step}");
                reused += 1;
            }
            column_of[item as usize] = to;
            last_moved = Some((item, from));
        }
        assert_eq!((checked, reused), (40 * m, 20));
    }

    /// The repair against a brute force: replaying its moves, each is made into the column
    /// whose largest count is the largest (by recounting), and gains (recounted: the drop in
    /// the total excess of the two columns) as much as the best movable item's; the repair
    /// stops where it says: reached when every column is within the cap, otherwise when no
    /// movable item gains. Many moves re-use donor sides evaluated before an earlier move.
    #[test]
    fn every_move_is_a_best_move_by_recounting() {
        let mut total_moves = 0;
        let mut stuck = 0;
        for (seed, cap) in [
            (1, 70),
            (2, 60),
            (3, 50),
            (4, 45),
            (5, 40),
            (6, 35),
            (7, 30),
            (8, 55),
            (9, 90),
            (10, 110),
            (11, 130),
        ] {
            let db = txanon_data::QuestParams::new(300, 6.0, 3.0, 24)
                .seed(seed)
                .check()
                .unwrap()
                .generate();
            let m = db.num_items();
            let p = 4;
            let initial: ItemPartition =
                (0..p).map(|j| (0..m as u32).filter(|i| *i as usize % p == j).collect()).collect();
            let medoids: Vec<usize> = (0..p).collect();
            let distances =
                CondensedMatrix::from_fn(m, |a, b| ((a * 7 + b * 13) % 10) as f64 / 10.0);
            let mut columns = initial.clone();
            let repair = repair(&db, &mut columns, &distances, &medoids, cap);
            let excess = |c: &[ItemId]| max_count(&db, c).saturating_sub(cap) as i64;
            let mut current = initial;
            for &(item, from, to) in &repair.moves {
                let excesses: Vec<i64> = current.iter().map(|c| excess(c)).collect();
                let worst = (0..p).max_by_key(|&j| (excesses[j], std::cmp::Reverse(j))).unwrap();
                assert_eq!(to, worst, "seed {seed}: moved into {to}, not the worst column");
                let gain_of = |i: ItemId| {
                    let from = current.iter().position(|c| c.contains(&i)).unwrap();
                    let mut into = current[worst].clone();
                    into.push(i);
                    let left: Vec<ItemId> =
                        current[from].iter().copied().filter(|&x| x != i).collect();
                    excesses[worst] + excesses[from] - excess(&into) - excess(&left)
                };
                let best = (0..m as u32)
                    .filter(|&i| !current[worst].contains(&i) && !medoids.contains(&(i as usize)))
                    .map(gain_of)
                    .max()
                    .unwrap();
                assert!(best > 0);
                assert_eq!(gain_of(item), best, "seed {seed}: item {item} from {from}");
                current[from].retain(|&x| x != item);
                current[to].push(item);
                current[to].sort_unstable();
                total_moves += 1;
            }
            assert_eq!(current, columns);
            let excesses: Vec<i64> = current.iter().map(|c| excess(c)).collect();
            if repair.reached {
                assert!(excesses.iter().all(|&e| e == 0), "seed {seed}");
            } else {
                stuck += 1;
                let worst = (0..p).max_by_key(|&j| (excesses[j], std::cmp::Reverse(j))).unwrap();
                assert!(excesses[worst] > 0);
                for i in (0..m as u32)
                    .filter(|&i| !current[worst].contains(&i) && !medoids.contains(&(i as usize)))
                {
                    let from = current.iter().position(|c| c.contains(&i)).unwrap();
                    let mut into = current[worst].clone();
                    into.push(i);
                    let left: Vec<ItemId> =
                        current[from].iter().copied().filter(|&x| x != i).collect();
                    let gain = excesses[worst] + excesses[from] - excess(&into) - excess(&left);
                    assert!(gain <= 0, "seed {seed}: item {i} still gains {gain}");
                }
            }
        }
        // Enough moves for the donor sides to be reused, and both endings met.
        assert!(total_moves >= 30, "{total_moves} moves, {stuck} stuck");
        assert!(stuck > 0 && stuck < 11, "{stuck} of 11 runs stuck");
    }
}
