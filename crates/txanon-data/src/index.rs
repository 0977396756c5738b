//! The inverted index of a transaction database: for every item, the transactions holding it.

use crate::db::TransactionDb;
use crate::labels::ItemId;
use rayon::prelude::*;

/// Item → transactions, as compressed sparse rows: the transpose of a [`TransactionDb`].
///
/// Several methods walk the data by item rather than by transaction: a transaction's neighbours
/// in the similarity graph are the transactions of its items (cahd), the records that could
/// receive an item (swap), the records whose column value changes when an item moves between
/// columns (anatomy). Building it is one counting pass and one filling pass over the
/// occurrences, `O(Σ|t| + m)` time and `Σ|t| + m + 1` words of space; each list is ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemIndex {
    offsets: Vec<usize>,
    transactions: Vec<u32>,
}

impl ItemIndex {
    /// The index of `db`.
    ///
    /// # Panics
    /// When `db` has `u32::MAX` transactions or more (ids are stored in 32 bits).
    pub fn new(db: &TransactionDb) -> Self {
        Self::of_indexed_rows(db.num_items(), db.len(), |r| db.transaction(r))
    }

    /// The transpose of `rows` (each a set of ids below `num_items`): for every id, the
    /// positions of the rows holding it, ascending. In blocks on rayon ([`ItemIndex::transpose`]):
    /// for rows held in memory; [`ItemIndex::from_rows`] takes rows made on the fly.
    ///
    /// # Panics
    /// With `u32::MAX` rows or more, or an id not below `num_items`.
    pub fn of_rows<R: AsRef<[ItemId]> + Sync>(num_items: usize, rows: &[R]) -> Self {
        Self::of_indexed_rows(num_items, rows.len(), |r| rows[r].as_ref())
    }

    /// The transpose of rows `row(0..n)`, in blocks on rayon.
    fn of_indexed_rows<'a>(
        num_items: usize,
        n: usize,
        row: impl Fn(usize) -> &'a [ItemId] + Sync,
    ) -> Self {
        /// The rows in blocks, each pair an id and a row holding it.
        struct Rows<F> {
            n: usize,
            blocks: usize,
            row: F,
        }
        impl<'a, F: Fn(usize) -> &'a [ItemId] + Sync> PairBlocks for Rows<F> {
            fn blocks(&self) -> usize {
                self.blocks
            }
            fn each_pair(&self, block: usize, mut pair: impl FnMut(ItemId, u32)) {
                for r in block * self.n / self.blocks..(block + 1) * self.n / self.blocks {
                    for &i in (self.row)(r) {
                        pair(i, r as u32);
                    }
                }
            }
        }
        assert!(n < u32::MAX as usize, "row positions are stored in 32 bits");
        Self::transpose(num_items, &Rows { n, blocks: Self::blocks_for(n), row })
    }

    /// How many blocks to cut `n` rows into for [`ItemIndex::transpose`]: enough to balance
    /// rayon's threads, few enough that each block's counts (a word per id) cost little beside
    /// its rows.
    pub fn blocks_for(n: usize) -> usize {
        (4 * rayon::current_num_threads()).min(n.div_ceil(1 << 14)).max(1)
    }

    /// The lists of the pairs `table` gives, each `(id, value)` putting `value` in `id`'s
    /// list: counted and then filled in blocks on rayon, each block writing its own part of
    /// every list, so a list comes out in the order its values were given (with no sort and no
    /// copy), blocks in order.
    ///
    /// # Panics
    /// When an id is not below `num_ids`, or a block gives other pairs the second time.
    pub fn transpose(num_ids: usize, table: &impl PairBlocks) -> Self {
        let blocks = table.blocks();
        let counts: Vec<Vec<usize>> = (0..blocks)
            .into_par_iter()
            .map(|b| {
                let mut counts = vec![0usize; num_ids];
                table.each_pair(b, |i, _| counts[i as usize] += 1);
                counts
            })
            .collect();
        let mut offsets = Vec::with_capacity(num_ids + 1);
        offsets.push(0);
        for i in 0..num_ids {
            let total: usize = counts.iter().map(|c| c[i]).sum();
            offsets.push(offsets[i] + total);
        }
        let mut transactions = vec![0u32; offsets[num_ids]];
        // Each block's part of each list, cut from the one buffer in list order, then block
        // order.
        let mut parts: Vec<Vec<&mut [u32]>> =
            (0..blocks).map(|_| Vec::with_capacity(num_ids)).collect();
        let mut rest: &mut [u32] = &mut transactions;
        for i in 0..num_ids {
            for (block, block_counts) in parts.iter_mut().zip(&counts) {
                let (part, after) = std::mem::take(&mut rest).split_at_mut(block_counts[i]);
                block.push(part);
                rest = after;
            }
        }
        parts.into_par_iter().enumerate().for_each(|(b, mut lists)| {
            let mut filled = vec![0usize; num_ids];
            table.each_pair(b, |i, value| {
                let i = i as usize;
                lists[i][filled[i]] = value;
                filled[i] += 1;
            });
        });
        Self { offsets, transactions }
    }

    /// The transpose of any rows of item indices below `num_items` (a database's distinct
    /// rows, itemsets renumbered densely): for every item, the positions of the rows holding
    /// it, ascending. Two passes over `rows` (a count, then the fill), on one thread: for rows
    /// made on the fly; [`ItemIndex::of_rows`] transposes rows held in memory on rayon.
    ///
    /// # Panics
    /// With `u32::MAX` rows or more, or an item not below `num_items`.
    pub fn from_rows<R, I>(num_items: usize, rows: R) -> Self
    where
        R: Iterator<Item = I> + Clone,
        I: IntoIterator<Item = ItemId>,
    {
        let mut offsets = vec![0usize; num_items + 1];
        for row in rows.clone() {
            for i in row {
                offsets[i as usize + 1] += 1;
            }
        }
        for i in 0..num_items {
            offsets[i + 1] += offsets[i];
        }
        Self::fill(offsets, rows)
    }

    /// Fills the lists whose bounds `offsets` gives from `rows`.
    fn fill<R, I>(offsets: Vec<usize>, rows: R) -> Self
    where
        R: Iterator<Item = I>,
        I: IntoIterator<Item = ItemId>,
    {
        let m = offsets.len() - 1;
        let mut next = offsets[..m].to_vec();
        let mut transactions = vec![0u32; offsets[m]];
        for (tid, row) in rows.enumerate() {
            let tid = u32::try_from(tid).ok().filter(|&t| t < u32::MAX);
            let tid = tid.expect("row positions are stored in 32 bits");
            for i in row {
                transactions[next[i as usize]] = tid;
                next[i as usize] += 1;
            }
        }
        Self { offsets, transactions }
    }

    /// The transactions holding `item`, ascending.
    ///
    /// # Panics
    /// When `item` is not below the number of items of the indexed database.
    pub fn transactions(&self, item: ItemId) -> &[u32] {
        let i = item as usize;
        &self.transactions[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Number of items indexed.
    pub fn num_items(&self) -> usize {
        self.offsets.len() - 1
    }
}

/// A table cut into blocks for [`ItemIndex::transpose`], each block a list of `(id, value)`
/// pairs.
pub trait PairBlocks: Sync {
    /// How many blocks.
    fn blocks(&self) -> usize;

    /// Calls `pair(id, value)` for each pair of block `block`, the same pairs in the same
    /// order at each call: an id's values in the order its list is to hold them, those of a
    /// block after those of the blocks before it.
    fn each_pair(&self, block: usize, pair: impl FnMut(ItemId, u32));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_is_the_transpose() {
        let db = TransactionDb::from_int_transactions([vec![1, 2], vec![2, 3], vec![], vec![1, 3]]);
        let index = ItemIndex::new(&db);
        assert_eq!(index.num_items(), 3);
        assert_eq!(index.transactions(0), &[0, 3]);
        assert_eq!(index.transactions(1), &[0, 1]);
        assert_eq!(index.transactions(2), &[1, 3]);
        let rows: [&[u32]; 4] = [&[0, 1], &[1, 2], &[], &[0, 2]];
        let from_rows = ItemIndex::from_rows(3, rows.iter().map(|r| r.iter().copied()));
        assert_eq!(from_rows, index, "the rows of the database, renumbered from 0");
    }

    /// Over many blocks (rows past several times 2¹⁴), with ids given in any order and empty
    /// rows, the blocks' lists equal the one-pass fill's.
    #[test]
    fn blocks_fill_what_one_pass_fills() {
        struct Rows(Vec<Vec<u32>>, usize);
        impl PairBlocks for Rows {
            fn blocks(&self) -> usize {
                self.1
            }
            fn each_pair(&self, block: usize, mut pair: impl FnMut(ItemId, u32)) {
                let n = self.0.len();
                for r in block * n / self.1..(block + 1) * n / self.1 {
                    self.0[r].iter().for_each(|&i| pair(i, r as u32));
                }
            }
        }
        let rows: Vec<Vec<u32>> = (0..200_000u64)
            .map(|r| {
                let bits = crate::mix64(r) & crate::mix64(r ^ 0x5555);
                // Descending, so the order given is not the ids' order.
                (0..64u32).rev().filter(|&i| bits >> i & 1 == 1).collect()
            })
            .collect();
        assert!(rows.iter().any(Vec::is_empty));
        let one_pass = ItemIndex::from_rows(64, rows.iter().map(|r| r.iter().copied()));
        let blocks = ItemIndex::blocks_for(rows.len());
        assert!(blocks > 1, "{blocks} block");
        for blocks in [1, blocks, 13] {
            let transposed = ItemIndex::transpose(64, &Rows(rows.clone(), blocks));
            assert_eq!(transposed, one_pass, "{blocks} blocks");
        }
        assert!((0..64).all(|i| one_pass.transactions(i).windows(2).all(|w| w[0] < w[1])));
        assert_eq!(one_pass.transactions.len(), rows.iter().map(Vec::len).sum::<usize>());
    }
}
