//! Which l an item partition admits under Definition 5, an item partition built for it, and
//! the l that no partition into `p` columns can exceed.
//!
//! Under Definition 5 (the empty set a value), a partition admits l exactly when, in every
//! column, the most frequent value is held by at most `n/l` records: necessary, since the
//! buckets partition the records and some bucket holds a value at least as often as the whole
//! does; sufficient, since the whole input is then one l-diverse bucket.
//!
//! No partition can exceed `2^(Σ_i h(i) / p)`, where `h(i)` is the binary entropy of item
//! `i`'s presence: a column's value is a function of its items' presence, so its entropy is at
//! most `Σ_{i∈C} h(i)`; a distribution of entropy `H` has a value of probability at least
//! `2^-H`; and the column with the least `Σ h` has at most the mean `Σ_i h(i) / p`.

use rustc_hash::FxHashMap;
use txanon_data::{ItemId, TransactionDb};

use crate::algorithm::ItemPartition;
use crate::repair::item_key;
use crate::values::ColumnValues;

/// The largest l the item partition `columns` (every item of `db` in one column, as
/// [`item_partition`](crate::item_partition) gives it) admits under Definition 5: `n` over the
/// count of the most frequent value of any column (`usize::MAX` for an empty input). Counted
/// on the exact values the anonymization interns.
pub fn admitted_l(db: &TransactionDb, columns: &ItemPartition) -> usize {
    let values = ColumnValues::new(db, columns);
    let top = (0..columns.len()).map(|j| values.most_frequent(j).1).max().unwrap_or(0);
    db.len().checked_div(top).unwrap_or(usize::MAX)
}

/// The upper bound on l over every partition of `db`'s items into `columns` columns:
/// `2^(Σ_i h(i) / columns)` (see the module docs), at most `n`.
pub fn l_bound(db: &TransactionDb, columns: usize) -> f64 {
    let n = db.len() as f64;
    if n == 0.0 || columns == 0 {
        return f64::INFINITY;
    }
    let bits: f64 = db
        .supports()
        .iter()
        .map(|&s| {
            let q = f64::from(s) / n;
            if q <= 0.0 || q >= 1.0 { 0.0 } else { -q * q.log2() - (1.0 - q) * (1.0 - q).log2() }
        })
        .sum();
    (bits / columns as f64).exp2().min(n)
}

/// The values of every record in every column, followed by 64-bit Zobrist hashes (the XOR of
/// the codes of the record's items in the column), with each column's count per value and
/// number of values per count, so that moving an item in or out of a column costs the records
/// that hold it and the column's top count is the largest key. A collision could only mislead
/// a choice of the builder, never a check: [`admitted_l`] and the anonymization count exact
/// values.
///
/// Only the partition of the records into values matters, never a hash itself: XOR-ing a code
/// into every record of a column relabels its values without merging or splitting any. So an
/// item held by more than half the records is toggled through the records that lack it (the
/// same partition as through its holders, every hash off by the item's code), which bounds
/// every toggle by `n/2` records.
struct Tops {
    /// Per item, the records a toggle visits: its holders, or the others when fewer.
    lists: Vec<Vec<u32>>,
    p: usize,
    hash: Vec<u64>,
    counts: Vec<FxHashMap<u64, u32>>,
    /// Per column, how many values have each count (index: the count).
    of_count: Vec<Vec<u32>>,
    /// Per column, the largest count with a value: counts move by one, so it moves by one.
    top: Vec<u32>,
}

impl Tops {
    /// `p` empty columns over the records of `db`.
    fn new(db: &TransactionDb, p: usize) -> Self {
        let n = db.len();
        let n32 = u32::try_from(n).expect("a sample fits in u32");
        let index = txanon_data::ItemIndex::new(db);
        let lists = (0..db.num_items() as ItemId)
            .map(|i| {
                let holders = index.transactions(i);
                if holders.len() * 2 <= n {
                    holders.to_vec()
                } else {
                    let mut held = vec![false; n];
                    for &r in holders {
                        held[r as usize] = true;
                    }
                    (0..n32).filter(|&r| !held[r as usize]).collect()
                }
            })
            .collect();
        let mut of_count = vec![0u32; n + 1];
        of_count[n] = 1;
        Self {
            lists,
            p,
            hash: vec![0; n * p],
            counts: (0..p).map(|_| FxHashMap::from_iter([(0, n32)])).collect(),
            of_count: vec![of_count; p],
            top: vec![n32; p],
        }
    }

    /// Puts item `i` into column `j`, or takes it out (the same operation: XOR).
    fn toggle(&mut self, j: usize, i: ItemId) {
        let c = item_key(i);
        let (counts, of_count, top) =
            (&mut self.counts[j], &mut self.of_count[j], &mut self.top[j]);
        let mut bump = |from: u32, to: u32| {
            of_count[from as usize] -= u32::from(from > 0);
            of_count[to as usize] += u32::from(to > 0);
            if to > *top {
                *top = to;
            }
            while *top > 0 && of_count[*top as usize] == 0 {
                *top -= 1;
            }
        };
        for &r in &self.lists[i as usize] {
            let h = &mut self.hash[r as usize * self.p + j];
            let old = counts.get_mut(h).expect("every record's value is counted");
            bump(*old, *old - 1);
            *old -= 1;
            if *old == 0 {
                counts.remove(h);
            }
            *h ^= c;
            let new = counts.entry(*h).or_insert(0);
            bump(*new, *new + 1);
            *new += 1;
        }
    }

    /// The count of column `j`'s most frequent value.
    fn top(&self, j: usize) -> u32 {
        self.top[j]
    }

    /// Column `j`'s top count with `out` taken out of it and `into` put in (either may be
    /// absent), the column left as it was.
    fn top_if(&mut self, j: usize, out: Option<ItemId>, into: Option<ItemId>) -> u32 {
        for i in out.into_iter().chain(into) {
            self.toggle(j, i);
        }
        let top = self.top(j);
        for i in out.into_iter().chain(into) {
            self.toggle(j, i);
        }
        top
    }
}

/// An improving step of the builder: the item out of column `w`, the other column, the item
/// into `w`.
type Step = (Option<ItemId>, usize, Option<ItemId>);

/// The items that can lower column `w`'s top count `current` by joining it: taking an item out
/// of a column merges values and never lowers its top count; adding one splits values, and
/// lowers the top only by splitting every value held `current` times, so only items held by
/// some but not all of those values' records can.
fn splitters(
    db: &TransactionDb,
    tops: &Tops,
    columns: &ItemPartition,
    w: usize,
    current: u32,
) -> Vec<ItemId> {
    let p = tops.p;
    let counts = &tops.counts[w];
    let mut held = vec![0u32; db.num_items()];
    let mut tops_held = 0u32;
    for (r, t) in db.iter().enumerate() {
        let h = tops.hash[r * p + w];
        if counts.get(&h) == Some(&current) {
            tops_held += 1;
            for &i in t {
                held[i as usize] += 1;
            }
        }
    }
    for &i in &columns[w] {
        held[i as usize] = 0;
    }
    // Held by none of those records, or by all, an item splits no top value.
    (0..db.num_items() as ItemId)
        .filter(|&i| held[i as usize] > 0 && held[i as usize] < tops_held)
        .collect()
}

/// The move of an item of another column into column `w` (top count `current`) that leaves
/// the larger of the two columns' top counts lowest, if that is below `current`.
fn best_move(
    tops: &mut Tops,
    column_of: &[usize],
    candidates: &[ItemId],
    w: usize,
    current: u32,
) -> Option<Step> {
    let mut best: Option<(u32, Step)> = None;
    for &k in candidates {
        let j = column_of[k as usize];
        if j == w {
            continue;
        }
        let at_w = tops.top_if(w, None, Some(k));
        if at_w >= current || best.is_some_and(|b| at_w >= b.0) {
            continue;
        }
        let worst = at_w.max(tops.top_if(j, Some(k), None));
        if worst < current && best.is_none_or(|b| worst < b.0) {
            best = Some((worst, (None, j, Some(k))));
        }
    }
    best.map(|b| b.1)
}

/// The first swap of an item of column `w` with a candidate of another column that leaves both
/// columns' top counts below `current`; `w`'s item is taken out once for all the candidates
/// tried in its place.
fn first_swap(
    tops: &mut Tops,
    columns: &ItemPartition,
    column_of: &[usize],
    candidates: &[ItemId],
    w: usize,
    current: u32,
) -> Option<Step> {
    for &i in &columns[w] {
        tops.toggle(w, i);
        let mut found = None;
        for &k in candidates {
            let j = column_of[k as usize];
            if j == w {
                continue;
            }
            tops.toggle(w, k);
            let at_w = tops.top(w);
            tops.toggle(w, k);
            if at_w < current && tops.top_if(j, Some(k), Some(i)) < current {
                found = Some((Some(i), j, Some(k)));
                break;
            }
        }
        tops.toggle(w, i);
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Rounds of the builder's search beyond the greedy start, per column: each lowers the largest
/// top count, so it ends sooner on every input seen; the bound keeps a pathological one finite.
const ROUNDS_PER_COLUMN: usize = 50;

/// An item partition into at most `p` columns built for Definition 5 (no clustering): items in
/// decreasing entropy of their presence, each to the column where it leaves the largest top
/// count of any column lowest; then, while it lowers the largest top count, the best move of
/// an item into the column of that count (only adding items can split its top value), or
/// failing one the first swap of one of its items with such an item that does. On
/// `db` as given (the caller samples): each step costs the records holding the items it
/// tries. Columns are returned in the order of their smallest item; items in no record go to
/// the first column.
pub(crate) fn diverse_partition(db: &TransactionDb, p: usize) -> ItemPartition {
    let (n, m) = (db.len(), db.num_items());
    let p = p.max(1);
    let mut tops = Tops::new(db, p);
    let supports = db.supports();
    let entropy = |i: usize| {
        let q = f64::from(supports[i]) / n.max(1) as f64;
        if q <= 0.0 || q >= 1.0 { 0.0 } else { -q * q.log2() - (1.0 - q) * (1.0 - q).log2() }
    };
    let mut order: Vec<usize> = (0..m).filter(|&i| supports[i] > 0).collect();
    order.sort_by(|&a, &b| entropy(b).total_cmp(&entropy(a)).then(a.cmp(&b)));
    let mut columns: ItemPartition = vec![Vec::new(); p];
    for i in order {
        let i = i as ItemId;
        let now: Vec<u32> = (0..p).map(|j| tops.top(j)).collect();
        let mut best: Option<((u32, i64, usize), usize)> = None;
        for j in 0..p {
            let after = tops.top_if(j, None, Some(i));
            let worst = (0..p).map(|k| if k == j { after } else { now[k] }).max().unwrap_or(0);
            let key = (worst, i64::from(after) - i64::from(now[j]), columns[j].len());
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, j));
            }
        }
        let (_, j) = best.expect("p ≥ 1");
        tops.toggle(j, i);
        columns[j].push(i);
    }
    for _ in 0..ROUNDS_PER_COLUMN * p {
        let w = (0..p).max_by_key(|&j| (tops.top(j), std::cmp::Reverse(j))).expect("p ≥ 1");
        let current = tops.top(w);
        let mut column_of = vec![usize::MAX; m];
        for (j, c) in columns.iter().enumerate() {
            for &i in c {
                column_of[i as usize] = j;
            }
        }
        let candidates = splitters(db, &tops, &columns, w, current);
        let Some((i, j, k)) = best_move(&mut tops, &column_of, &candidates, w, current)
            .or_else(|| first_swap(&mut tops, &columns, &column_of, &candidates, w, current))
        else {
            break;
        };
        if let Some(i) = i {
            tops.toggle(w, i);
            tops.toggle(j, i);
            columns[w].retain(|&x| x != i);
            columns[j].push(i);
        }
        if let Some(k) = k {
            tops.toggle(j, k);
            tops.toggle(w, k);
            columns[j].retain(|&x| x != k);
            columns[w].push(k);
        }
    }
    columns[0].extend((0..m as ItemId).filter(|&i| supports[i as usize] == 0));
    for c in &mut columns {
        c.sort_unstable();
    }
    columns.retain(|c| !c.is_empty());
    columns.sort();
    columns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(rows: &[&[u32]]) -> TransactionDb {
        TransactionDb::from_int_transactions(rows.iter().map(|r| r.to_vec()))
    }

    /// Brute force: every assignment of items to `p` labelled columns.
    fn best_l(db: &TransactionDb, p: usize) -> usize {
        let m = db.num_items();
        let mut best = 0;
        for code in 0..p.pow(m as u32) {
            let mut columns: ItemPartition = vec![Vec::new(); p];
            let mut c = code;
            for i in 0..m {
                columns[c % p].push(i as ItemId);
                c /= p;
            }
            best = best.max(admitted_l(db, &columns));
        }
        best
    }

    #[test]
    fn admitted_l_is_n_over_the_top_value() {
        // Column {a}: {a} in 3 of 4, so l ≤ 4/3 → 1; column {a, b}: values {a}, {a,b}, {}, {b}.
        let d = db(&[&[1], &[1, 2], &[1], &[2]]);
        assert_eq!(admitted_l(&d, &vec![vec![0], vec![1]]), 1);
        let d = db(&[&[1], &[1, 2], &[], &[2]]);
        assert_eq!(admitted_l(&d, &vec![vec![0, 1]]), 4);
    }

    /// The largest top count of a partition, by exact values.
    fn worst(db: &TransactionDb, columns: &ItemPartition) -> usize {
        let l = admitted_l(db, columns);
        // n / top = l exactly when top divides; recount instead.
        let mut worst = 0;
        for column in columns {
            let mut counts = std::collections::HashMap::new();
            for t in db.iter() {
                let v: Vec<ItemId> = t.iter().copied().filter(|i| column.contains(i)).collect();
                *counts.entry(v).or_insert(0usize) += 1;
            }
            worst = worst.max(counts.values().copied().max().unwrap_or(0));
        }
        assert_eq!(l, db.len().checked_div(worst).unwrap_or(usize::MAX));
        worst
    }

    /// `count` seeded databases of `rows` records over `items` items, each item in a record
    /// with probability 1/3.
    fn random_dbs(seed: u64, count: usize, rows: usize, items: u32) -> Vec<TransactionDb> {
        let mut state = seed;
        let mut next = |k: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % k
        };
        (0..count)
            .map(|_| {
                let rows: Vec<Vec<u32>> =
                    (0..rows).map(|_| (0..items).filter(|_| next(3) == 0).collect()).collect();
                TransactionDb::from_int_transactions(rows)
            })
            .collect()
    }

    #[test]
    fn the_builder_ends_where_no_move_or_swap_helps() {
        for (round, d) in random_dbs(11, 20, 60, 9).into_iter().enumerate() {
            let p = 2 + round % 3;
            if d.num_items() < p {
                continue;
            }
            let built = diverse_partition(&d, p);
            let items: usize = built.iter().map(Vec::len).sum();
            assert_eq!(items, d.num_items(), "every item in one column");
            let mut padded = built.clone();
            padded.resize(p, Vec::new());
            let now = worst(&d, &padded);
            // No single move or swap out of a worst column lowers the worst top count.
            for w in 0..p {
                for &i in &padded[w] {
                    for j in (0..p).filter(|&j| j != w) {
                        let mut targets: Vec<Option<ItemId>> = vec![None];
                        targets.extend(padded[j].iter().map(|&k| Some(k)));
                        for k in targets {
                            let mut c = padded.clone();
                            c[w].retain(|&x| x != i);
                            c[j].push(i);
                            if let Some(k) = k {
                                c[j].retain(|&x| x != k);
                                c[w].push(k);
                            }
                            assert!(
                                worst(&d, &c) >= now,
                                "round {round}: moving {i} ({k:?}) from {w} to {j} helps"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn no_partition_exceeds_the_bound() {
        for d in random_dbs(7, 30, 40, 6) {
            if d.num_items() < 2 {
                continue;
            }
            for p in 1..=3 {
                let best = best_l(&d, p);
                let bound = l_bound(&d, p);
                assert!(best as f64 <= bound + 1e-9, "bound {bound} < best {best}");
            }
        }
    }
}
