//! The inverted index of a transaction database: for every item, the transactions holding it.

use crate::db::TransactionDb;
use crate::labels::ItemId;

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
        assert!(db.len() < u32::MAX as usize, "transaction ids are stored in 32 bits");
        let m = db.num_items();
        let mut offsets = Vec::with_capacity(m + 1);
        offsets.push(0);
        let mut running = 0;
        for &s in db.supports() {
            running += s as usize;
            offsets.push(running);
        }
        Self::fill(offsets, db.iter().map(|t| t.iter().copied()))
    }

    /// The transpose of any rows of item indices below `num_items` (a database's distinct
    /// rows, itemsets renumbered densely): for every item, the positions of the rows holding
    /// it, ascending. Two passes over `rows` (a count, then the fill).
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
}
