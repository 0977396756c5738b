//! Every record's value in every column, interned exactly.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use txanon_data::{ItemId, TransactionDb};

use crate::algorithm::ItemPartition;

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
        let mut items: Vec<u32> = db.items().iter().map(|&i| renumbered[i as usize]).collect();
        // bounds[r * (p + 1) + j]: where column j's slice of record r starts in `items`.
        let mut bounds = vec![0u32; n * (p + 1)];
        for r in 0..n {
            let t = &mut items[offsets[r]..offsets[r + 1]];
            t.sort_unstable();
            let mut k = 0;
            for j in 0..=p {
                while k < t.len() && t[k] < first_of_column[j] {
                    k += 1;
                }
                bounds[r * (p + 1) + j] = (offsets[r] + k) as u32;
            }
        }
        let per_column: Vec<(Vec<u32>, Arena)> = (0..p)
            .into_par_iter()
            .map(|j| {
                let mut interner: FxHashMap<&[u32], u32> = FxHashMap::default();
                let mut arena = Arena { offsets: vec![0], items: Vec::new() };
                let ids = (0..n)
                    .map(|r| {
                        let at = r * (p + 1) + j;
                        let value = &items[bounds[at] as usize..bounds[at + 1] as usize];
                        *interner.entry(value).or_insert_with(|| {
                            arena.items.extend(value.iter().map(|&k| original[k as usize]));
                            arena.offsets.push(arena.items.len() as u32);
                            (arena.offsets.len() - 2) as u32
                        })
                    })
                    .collect();
                (ids, arena)
            })
            .collect();
        let mut ids = vec![0u32; n * p];
        let mut arenas = Vec::with_capacity(p);
        for (j, (column_ids, arena)) in per_column.into_iter().enumerate() {
            for (r, id) in column_ids.into_iter().enumerate() {
                ids[r * p + j] = id;
            }
            arenas.push(arena);
        }
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
