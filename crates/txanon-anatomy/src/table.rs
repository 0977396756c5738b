//! The published anatomized table and its flattened form.

use rand::Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};
use txanon_data::{ItemId, TransactionDb};

use crate::algorithm::{ColumnValues, ItemPartition};

/// An anatomized table as published: the item columns and, for every bucket and column, the
/// multiset of the bucket's values in that column (each value an itemset, the empty one
/// included), in random order. Items are written as their labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnatomizedTable {
    /// The diversity the table claims.
    pub l: usize,
    /// The items of each column.
    pub columns: Vec<Vec<String>>,
    /// `buckets[b][j][k]`: the `k`-th value of column `j` in bucket `b`.
    pub buckets: Vec<Vec<Vec<Vec<String>>>>,
}

impl AnatomizedTable {
    /// The table as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a table serializes")
    }

    /// Reads a table from JSON.
    ///
    /// # Errors
    /// [`serde_json::Error`] for malformed JSON.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Number of published records.
    pub fn records(&self) -> usize {
        self.buckets.iter().map(|b| b.first().map_or(0, Vec::len)).sum()
    }
}

/// Publishes `buckets`: buckets in random order, and within each bucket every column's values
/// permuted independently; the flattened form re-joins the `k`-th value of every column into
/// record `k`, so its records are exactly the rows of the published table.
pub(crate) fn publish(
    db: &TransactionDb,
    columns: &ItemPartition,
    values: &ColumnValues,
    buckets: &[Vec<u32>],
    l: usize,
    rng: &mut impl Rng,
) -> (AnatomizedTable, TransactionDb) {
    let label = |i: ItemId| db.label(i).to_string();
    let mut order: Vec<usize> = (0..buckets.len()).collect();
    order.shuffle(rng);
    let mut table = AnatomizedTable {
        l,
        columns: columns.iter().map(|c| c.iter().map(|&i| label(i)).collect()).collect(),
        buckets: Vec::with_capacity(buckets.len()),
    };
    let mut offsets = vec![0usize];
    let mut items: Vec<ItemId> = Vec::new();
    for b in order {
        let members = &buckets[b];
        let permuted: Vec<Vec<u32>> = (0..columns.len())
            .map(|j| {
                let mut v: Vec<u32> = members.iter().map(|&r| values.value(r, j)).collect();
                v.shuffle(rng);
                v
            })
            .collect();
        table.buckets.push(
            permuted
                .iter()
                .enumerate()
                .map(|(j, v)| {
                    v.iter()
                        .map(|&id| {
                            values.values[j][id as usize].iter().map(|&i| label(i)).collect()
                        })
                        .collect()
                })
                .collect(),
        );
        for k in 0..members.len() {
            let start = items.len();
            for (j, v) in permuted.iter().enumerate() {
                items.extend_from_slice(&values.values[j][v[k] as usize]);
            }
            items[start..].sort_unstable();
            offsets.push(items.len());
        }
    }
    let flattened = TransactionDb::from_parts(offsets, items, db.labels().clone());
    (table, flattened)
}
