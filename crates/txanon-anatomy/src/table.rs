//! The published anatomized table and its flattened form.

use std::sync::Arc;

use rand::Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};
use txanon_data::{TransactionDb, TransactionDbBuilder};

use crate::algorithm::ItemPartition;
use crate::params::Diversity;
use crate::values::ColumnValues;

/// Identifies the table format in its JSON.
pub const TABLE_FORMAT: &str = "txanon-anatomy-table/1";

/// An anatomized table as published: the item columns and, for every bucket and column, the
/// multiset of the bucket's values in that column.
///
/// A multiset is written as its distinct values with their counts, in canonical order (by the
/// value's items), so the table carries no order at all: not the input's, not the scan's. A value
/// is an itemset given by the positions of its items in the column's item list; the empty set
/// is a value like any other.
///
/// JSON (compact, one line):
/// `{"format":"txanon-anatomy-table/1","l":2,"diversity":"frequency",
///   "columns":[["a","c"],["b","e","g"]],
///   "buckets":[{"size":5,"columns":[[[2,[0,1]],[3,[0]]],[[1,[]],[4,[0]]]]}]}`
/// reads: column 0 holds items a and c; in the first bucket (5 records), column 0 takes the
/// value {a,c} twice and {a} three times, column 1 the empty set once and {b} four times.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnatomizedTable {
    /// Always [`TABLE_FORMAT`].
    pub format: String,
    /// The diversity the table claims.
    pub l: usize,
    /// The reading of l-diversity it claims.
    pub diversity: Diversity,
    /// The items of each column, as labels.
    pub columns: Vec<Vec<String>>,
    /// The buckets, in random order.
    pub buckets: Vec<Bucket>,
}

/// One bucket of an [`AnatomizedTable`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    /// Its number of records.
    pub size: usize,
    /// `columns[j]`: the multiset of the bucket's values in column `j`.
    pub columns: Vec<Vec<ValueCount>>,
}

/// A value and how many records of the bucket take it: `[count, [positions]]` in JSON, the
/// positions indexing the column's item list, ascending. The buckets that take one value
/// share its positions: at 10⁷ records a vector per value per column per bucket was about
/// 50 million allocations and a third of anatomy's time.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ValueCount(pub usize, pub Arc<[u32]>);

impl AnatomizedTable {
    /// The table as compact JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a table serializes")
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
        self.buckets.iter().map(|b| b.size).sum()
    }
}

/// Publishes `buckets`: buckets in random order, each column's multiset of values in canonical
/// order; and the flattened records, bucket after bucket in the table's order, made by
/// permuting every column's values of the bucket independently and joining the `k`-th values of
/// all columns into record `k`. Also returns each input record's bucket in the table
/// (`u32::MAX` for a record in no bucket).
pub(crate) fn publish(
    db: &TransactionDb,
    columns: &ItemPartition,
    values: &ColumnValues,
    buckets: &[Vec<u32>],
    (diversity, l): (Diversity, usize),
    rng: &mut impl Rng,
) -> (AnatomizedTable, TransactionDb, Vec<u32>) {
    let mut position = vec![0u32; db.num_items()];
    for column in columns {
        for (k, &i) in column.iter().enumerate() {
            position[i as usize] = k as u32;
        }
    }
    // Every value of every column as positions, once, shared by the buckets that take it.
    let mut positions: Vec<Vec<Option<Arc<[u32]>>>> =
        (0..columns.len()).map(|j| vec![None; values.distinct(j)]).collect();
    let mut position_of = |j: usize, id: u32| -> Arc<[u32]> {
        positions[j][id as usize]
            .get_or_insert_with(|| {
                values.items(j, id).iter().map(|&i| position[i as usize]).collect()
            })
            .clone()
    };
    let mut order: Vec<usize> = (0..buckets.len()).collect();
    order.shuffle(rng);
    let mut table = AnatomizedTable {
        format: TABLE_FORMAT.into(),
        l,
        diversity,
        columns: columns
            .iter()
            .map(|c| c.iter().map(|&i| db.label(i).to_string()).collect())
            .collect(),
        buckets: Vec::with_capacity(buckets.len()),
    };
    let mut flattened = TransactionDbBuilder::with_capacity(db.len(), db.occurrences());
    let mut ids: Vec<Vec<u32>> = vec![Vec::new(); columns.len()];
    let mut bucket_of = vec![u32::MAX; db.len()];
    for b in order {
        let members = &buckets[b];
        for &r in members {
            bucket_of[r as usize] = table.buckets.len() as u32;
        }
        let mut multisets = Vec::with_capacity(columns.len());
        for (j, column_ids) in ids.iter_mut().enumerate() {
            column_ids.clear();
            column_ids.extend(members.iter().map(|&r| values.value(r, j)));
            column_ids.sort_unstable();
            let mut multiset: Vec<ValueCount> =
                Vec::with_capacity(column_ids.chunk_by(|a, b| a == b).count());
            multiset.extend(
                column_ids
                    .chunk_by(|a, b| a == b)
                    .map(|run| ValueCount(run.len(), position_of(j, run[0]))),
            );
            multiset.sort_unstable_by(|a, b| a.1.cmp(&b.1));
            multisets.push(multiset);
            column_ids.shuffle(rng);
        }
        table.buckets.push(Bucket { size: members.len(), columns: multisets });
        for k in 0..members.len() {
            for (j, column_ids) in ids.iter().enumerate() {
                flattened.extend_row(values.items(j, column_ids[k]));
            }
            flattened.end_row();
        }
    }
    (table, flattened.finish(db.labels().clone()), bucket_of)
}
