//! Every record's value in every column, interned exactly.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use txanon_data::{ItemId, TransactionDb};

use crate::algorithm::ItemPartition;

/// Records per rayon task where records are taken in blocks.
const RECORDS_PER_BLOCK: usize = 16_384;

/// The distinct values of one column, their items stored back to back.
#[derive(Debug, Default)]
struct Arena {
    offsets: Vec<u32>,
    items: Vec<ItemId>,
}

/// Each record's value in each column, interned: `value(r, j)` is the id of the itemset
/// `t_r ∩ C_j` among column `j`'s distinct values. The empty itemset is a value like any other.
#[derive(Debug)]
pub(crate) struct ColumnValues {
    p: usize,
    /// Row-major: `ids[r * p + j]`.
    ids: Vec<u32>,
    arenas: Vec<Arena>,
}

/// A value of at most three items as one word: each item's place in its column (`item −
/// first`) plus one, 21 bits apiece from the lowest, zero past the last; `None` for a longer
/// value or a place beyond 21 bits. Places are ascending, so distinct values get distinct
/// keys.
fn short_key(value: &[u32], first: u32) -> Option<u64> {
    const BITS: u32 = 21;
    if value.len() > 3 {
        return None;
    }
    let mut key = 0u64;
    for (slot, &k) in value.iter().enumerate() {
        let place = u64::from(k - first) + 1;
        if place >= 1 << BITS {
            return None;
        }
        key |= place << (BITS * slot as u32);
    }
    Some(key)
}

impl ColumnValues {
    /// Interns the values of `db` in `columns`.
    ///
    /// Items are renumbered so that each column's items are contiguous and in their original
    /// order; a renumbered, sorted record then holds each `t ∩ C_j` as one contiguous slice,
    /// which is interned as a borrowed slice: no allocation per record, none per lookup, and no
    /// hash of a value standing in for the value (interning is exact). Columns are interned in
    /// parallel.
    ///
    /// # Complexity
    /// `O(Σ|t| log max|t|)` for the sorted renumbered records, then `O(Σ|t| + n·p)` expected
    /// time for the interning; `Σ|t| + n·(p + 1)` words of extra space.
    pub fn new(db: &TransactionDb, columns: &ItemPartition) -> Self {
        let p = columns.len();
        let n = db.len();
        let mut renumbered = vec![0u32; db.num_items()];
        let mut original = Vec::with_capacity(db.num_items());
        let mut first_of_column = Vec::with_capacity(p + 1);
        for column in columns {
            first_of_column.push(original.len() as u32);
            for &i in column {
                renumbered[i as usize] = original.len() as u32;
                original.push(i);
            }
        }
        first_of_column.push(original.len() as u32);
        let offsets = db.offsets();
        let mut items: Vec<u32> = db.items().par_iter().map(|&i| renumbered[i as usize]).collect();
        // bounds[r * (p + 1) + j]: where column j's slice of record r starts in `items`.
        let mut bounds = vec![0u32; n * (p + 1)];
        // Records in blocks on rayon, each block's items and bounds split off as its own.
        let mut blocks = Vec::with_capacity(n.div_ceil(RECORDS_PER_BLOCK));
        let (mut rest_items, mut rest_bounds) = (&mut items[..], &mut bounds[..]);
        for first in (0..n).step_by(RECORDS_PER_BLOCK) {
            let last = n.min(first + RECORDS_PER_BLOCK);
            let (block_items, tail_items) =
                std::mem::take(&mut rest_items).split_at_mut(offsets[last] - offsets[first]);
            let (block_bounds, tail_bounds) =
                std::mem::take(&mut rest_bounds).split_at_mut((last - first) * (p + 1));
            blocks.push((first..last, block_items, block_bounds));
            (rest_items, rest_bounds) = (tail_items, tail_bounds);
        }
        blocks.into_par_iter().for_each(|(records, block_items, block_bounds)| {
            let base = offsets[records.start];
            for (at, r) in records.enumerate() {
                let t = &mut block_items[offsets[r] - base..offsets[r + 1] - base];
                t.sort_unstable();
                let mut k = 0;
                for j in 0..=p {
                    while k < t.len() && t[k] < first_of_column[j] {
                        k += 1;
                    }
                    block_bounds[at * (p + 1) + j] = (offsets[r] + k) as u32;
                }
            }
        });
        let per_column: Vec<(Vec<u32>, Arena)> = (0..p)
            .into_par_iter()
            .map(|j| {
                let first = first_of_column[j];
                // Values of up to three items (nearly all in sparse data) by a key in one
                // word, hashed and compared without reading the items again.
                let mut by_key: FxHashMap<u64, u32> = FxHashMap::default();
                let mut by_items: FxHashMap<&[u32], u32> = FxHashMap::default();
                let mut arena = Arena { offsets: vec![0], items: Vec::new() };
                let fresh = |arena: &mut Arena, value: &[u32]| {
                    arena.items.extend(value.iter().map(|&k| original[k as usize]));
                    arena.offsets.push(arena.items.len() as u32);
                    (arena.offsets.len() - 2) as u32
                };
                let ids = (0..n)
                    .map(|r| {
                        let at = r * (p + 1) + j;
                        let value = &items[bounds[at] as usize..bounds[at + 1] as usize];
                        match short_key(value, first) {
                            Some(key) => {
                                *by_key.entry(key).or_insert_with(|| fresh(&mut arena, value))
                            }
                            None => {
                                *by_items.entry(value).or_insert_with(|| fresh(&mut arena, value))
                            }
                        }
                    })
                    .collect();
                (ids, arena)
            })
            .collect();
        let (column_ids, arenas): (Vec<Vec<u32>>, Vec<Arena>) = per_column.into_iter().unzip();
        let mut ids = vec![0u32; n * p];
        ids.par_chunks_mut(p.max(1) * RECORDS_PER_BLOCK).enumerate().for_each(|(block, rows)| {
            let first = block * RECORDS_PER_BLOCK;
            for (at, row) in rows.chunks_mut(p.max(1)).enumerate() {
                for (j, id) in row.iter_mut().enumerate() {
                    *id = column_ids[j][first + at];
                }
            }
        });
        Self { p, ids, arenas }
    }

    /// Number of columns.
    pub fn columns(&self) -> usize {
        self.p
    }

    /// The id of record `record`'s value in `column`.
    pub fn value(&self, record: u32, column: usize) -> u32 {
        self.ids[record as usize * self.p + column]
    }

    /// Number of distinct values of `column`.
    pub fn distinct(&self, column: usize) -> usize {
        self.arenas[column].offsets.len() - 1
    }

    /// The most frequent value of `column` and its count over every record (the last value
    /// id among equally frequent ones); `(0, 0)` with no records.
    pub fn most_frequent(&self, column: usize) -> (u32, usize) {
        let mut counts = vec![0usize; self.distinct(column)];
        for r in 0..self.ids.len() / self.p.max(1) {
            counts[self.ids[r * self.p + column] as usize] += 1;
        }
        counts.iter().enumerate().max_by_key(|&(_, &c)| c).map_or((0, 0), |(v, &c)| (v as u32, c))
    }

    /// The items (ascending, original ids) of value `id` of `column`.
    pub fn items(&self, column: usize, id: u32) -> &[ItemId] {
        let a = &self.arenas[column];
        &a.items[a.offsets[id as usize] as usize..a.offsets[id as usize + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of up to four places from the edges of the key's range: short ones get
    /// distinct keys, the rest (four items, a place past 21 bits) none.
    #[test]
    fn short_keys_tell_values_apart() {
        let first = 7u32;
        let edge = [0u32, 1, 2, (1 << 21) - 2, (1 << 21) - 1, u32::MAX - first];
        let mut values: Vec<Vec<u32>> = vec![vec![]];
        for len in 1..=4 {
            let longer: Vec<Vec<u32>> = values
                .iter()
                .filter(|v| v.len() == len - 1)
                .flat_map(|v| {
                    edge.iter().filter(|&&k| v.last().is_none_or(|&l| k > l)).map(|&k| {
                        let mut w = v.clone();
                        w.push(k);
                        w
                    })
                })
                .collect();
            values.extend(longer);
        }
        let mut seen = FxHashMap::default();
        let mut keyed = 0;
        for places in &values {
            let value: Vec<u32> = places.iter().map(|&k| k + first).collect();
            let fits = places.len() <= 3 && places.iter().all(|&k| k < (1 << 21) - 1);
            let key = short_key(&value, first);
            assert_eq!(key.is_some(), fits, "{places:?}");
            if let Some(key) = key {
                keyed += 1;
                assert_eq!(seen.insert(key, places.clone()), None, "{places:?} shares a key");
            }
        }
        // The four places that fit, taken up to three at a time: 1 + 4 + 6 + 4.
        assert_eq!(keyed, 15, "of {} values", values.len());
    }

    #[test]
    fn values_are_the_column_projections() {
        let db =
            txanon_data::QuestParams::new(300, 8.0, 3.0, 40).seed(4).check().unwrap().generate();
        let m = db.num_items() as u32;
        // Interleaved columns, so that renumbering matters.
        let columns: ItemPartition =
            (0..3).map(|j| (0..m).filter(|i| i % 3 == j).collect()).collect();
        let values = ColumnValues::new(&db, &columns);
        for (r, t) in db.iter().enumerate() {
            for (j, column) in columns.iter().enumerate() {
                let expected: Vec<ItemId> =
                    t.iter().copied().filter(|i| column.contains(i)).collect();
                assert_eq!(values.items(j, values.value(r as u32, j)), expected.as_slice());
            }
        }
        // Equal projections share an id, different ones do not.
        for j in 0..3 {
            let mut seen: FxHashMap<Vec<ItemId>, u32> = FxHashMap::default();
            for r in 0..db.len() as u32 {
                let id = values.value(r, j);
                let v = values.items(j, id).to_vec();
                assert_eq!(*seen.entry(v).or_insert(id), id);
            }
            assert_eq!(seen.len(), values.distinct(j));
        }
    }
}
