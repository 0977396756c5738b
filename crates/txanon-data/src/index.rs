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
        let mut next = offsets[..m].to_vec();
        let mut transactions = vec![0u32; running];
        for (tid, t) in db.iter().enumerate() {
            for &i in t {
                transactions[next[i as usize]] = tid as u32;
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
    }
}
