//! The published anatomized table and its flattened form.

use std::sync::Arc;

use rand::Rng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use txanon_data::TransactionDbBuilder;
use txanon_data::{BlockRows, RowWriter, TransactionDb, fetch, push_decimal, write_json_elements};

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
        let mut json = Vec::new();
        self.write_json(&mut json).expect("a table serializes");
        String::from_utf8(json).expect("JSON is UTF-8")
    }

    /// Writes the table as compact JSON, the same bytes as its `Serialize`: the buckets are
    /// formatted in blocks on rayon and written in order, a wave at a time (at 10⁷ records
    /// the table is about 600 MB, and serde formatting it on one thread was about a tenth of
    /// anatomy's profile).
    ///
    /// # Errors
    /// Writing to `w`.
    pub fn write_json<W: std::io::Write + ?Sized>(&self, w: &mut W) -> serde_json::Result<()> {
        #[derive(Serialize)]
        struct Head<'a> {
            format: &'a str,
            l: usize,
            diversity: Diversity,
            columns: &'a [Vec<String>],
        }
        let head = Head {
            format: &self.format,
            l: self.l,
            diversity: self.diversity,
            columns: &self.columns,
        };
        let mut head = serde_json::to_vec(&head)?;
        head.pop(); // the closing brace: the buckets follow
        head.extend_from_slice(b",\"buckets\":[");
        w.write_all(&head).map_err(serde_json::Error::io)?;
        write_json_elements(
            w,
            &self.buckets,
            (WRITTEN_PER_BLOCK, WRITTEN_BLOCKS_PER_WAVE),
            push_bucket,
        )
        .map_err(serde_json::Error::io)?;
        w.write_all(b"]}").map_err(serde_json::Error::io)
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

/// Appends `bucket` as `Serialize` writes it compact:
/// `{"size":5,"columns":[[[2,[0,1]],[3,[0]]],[[1,[]],[4,[0]]]]}`.
fn push_bucket(text: &mut Vec<u8>, bucket: &Bucket) {
    text.extend_from_slice(b"{\"size\":");
    push_decimal(text, bucket.size as u64);
    text.extend_from_slice(b",\"columns\":[");
    for (j, multiset) in bucket.columns.iter().enumerate() {
        if j > 0 {
            text.push(b',');
        }
        text.push(b'[');
        for (v, ValueCount(count, positions)) in multiset.iter().enumerate() {
            // A value's positions are shared with the other buckets that take it, scattered
            // over the heap: at 10⁷ records each was a cache miss waited on in turn, four
            // fifths of the formatting's time. A batch's first lines are loaded together.
            if v % fetch::BATCH == 0 {
                let batch = multiset[v..(v + fetch::BATCH).min(multiset.len())].iter();
                fetch::fetch_each(batch, |value| &value.1, fetch::FIRST_LINE);
            }
            if v > 0 {
                text.push(b',');
            }
            text.push(b'[');
            push_decimal(text, *count as u64);
            text.extend_from_slice(b",[");
            for (k, &position) in positions.iter().enumerate() {
                if k > 0 {
                    text.push(b',');
                }
                push_decimal(text, position.into());
            }
            text.extend_from_slice(b"]]");
        }
        text.push(b']');
    }
    text.extend_from_slice(b"]}");
}

/// Publishes `buckets`: buckets in random order, each column's multiset of values in canonical
/// order; and the flattened records, bucket after bucket in the table's order, made by
/// permuting every column's values of the bucket independently and joining the `k`-th values of
/// all columns into record `k`. Also returns each input record's bucket in the table
/// (`u32::MAX` for a record in no bucket).
///
/// The buckets are made in waves: the wave's shuffles are drawn first, in the order of the
/// table (a shuffle's permutation depends only on its length and the generator, so drawing it
/// over the indices `0..size` and applying it to the sorted values is the shuffle of the
/// values), then its buckets are built in blocks on rayon and joined in order. The same seed
/// gives the same table and records as one bucket after the other would.
pub(crate) fn publish(
    db: &TransactionDb,
    columns: &ItemPartition,
    values: &ColumnValues,
    buckets: &[Vec<u32>],
    (diversity, l): (Diversity, usize),
    rng: &mut impl Rng,
) -> (AnatomizedTable, TransactionDb, Vec<u32>) {
    let shared = SharedValues::new(db, columns, values);
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
    let mut bucket_of = vec![u32::MAX; db.len()];
    for (at, &b) in order.iter().enumerate() {
        for &r in &buckets[b] {
            bucket_of[r as usize] = at as u32;
        }
    }
    let p = columns.len();
    // Each block's rows and items counted first, so that blocks write their flattened records
    // straight into the database's arrays.
    let sizes: Vec<(usize, usize)> = order
        .par_chunks(BUCKETS_PER_BLOCK)
        .map(|chunk| {
            let members = chunk.iter().flat_map(|&b| &buckets[b]);
            let items = members
                .clone()
                .map(|&r| (0..p).map(|j| values.items(j, values.value(r, j)).len()).sum::<usize>())
                .sum();
            (members.count(), items)
        })
        .collect();
    let mut flattened = BlockRows::new(sizes);
    let mut writers = flattened.writers().into_iter();
    let mut permutations: Vec<u32> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    for wave in order.chunks(BUCKETS_PER_BLOCK * BLOCKS_PER_WAVE) {
        permutations.clear();
        starts.clear();
        for &b in wave {
            starts.push(permutations.len());
            let size = buckets[b].len() as u32;
            for _ in 0..p {
                let start = permutations.len();
                permutations.extend(0..size);
                permutations[start..].shuffle(rng);
            }
        }
        starts.push(permutations.len());
        let wave_writers: Vec<RowWriter<'_>> =
            writers.by_ref().take(wave.len().div_ceil(BUCKETS_PER_BLOCK)).collect();
        let blocks: Vec<Vec<Bucket>> = wave
            .par_chunks(BUCKETS_PER_BLOCK)
            .zip(wave_writers)
            .enumerate()
            .map(|(block, (chunk, mut rows))| {
                let first = block * BUCKETS_PER_BLOCK;
                let mut builder = BucketBuilder::new(p);
                let mut made = Vec::with_capacity(chunk.len());
                for (k, &b) in chunk.iter().enumerate() {
                    let permutation = &permutations[starts[first + k]..starts[first + k + 1]];
                    made.push(builder.build(&buckets[b], permutation, values, &shared, &mut rows));
                }
                made
            })
            .collect();
        for made in blocks {
            table.buckets.extend(made);
        }
    }
    drop(writers);
    // Most values are shared with the table's buckets: dropping them is a decrement each,
    // scattered over gigabytes at 10⁷ records, so on every core.
    shared.positions.into_par_iter().for_each(|column| column.into_par_iter().for_each(drop));
    (table, flattened.finish(db.labels().clone()), bucket_of)
}

/// Buckets built (or formatted) per rayon task: enough to amortize a task. Fewer under test,
/// so that a test's few thousand buckets cross blocks and waves.
const BUCKETS_PER_BLOCK: usize = if cfg!(test) { 1024 } else { 4096 };
/// Blocks per wave: the wave's shuffles (a few words per record) are held at once.
const BLOCKS_PER_WAVE: usize = if cfg!(test) { 2 } else { 64 };
/// Buckets formatted per rayon task when the table is written, and blocks per wave (the text
/// held at once): a bucket is about 3 KB at 10⁷ Quest records, so a wave is about 25 MB and
/// the table two dozen waves, each written while the next is formatted. (One wave of 600 MB,
/// as the table's own blocks and waves made it, was formatted whole before a byte was written.)
/// Fewer under test, so that a test's buckets cross blocks and waves.
const WRITTEN_PER_BLOCK: usize = if cfg!(test) { 3 } else { 256 };
const WRITTEN_BLOCKS_PER_WAVE: usize = if cfg!(test) { 2 } else { 32 };

/// Each column value's positions, made once and shared by the buckets that take it, and its
/// rank in the canonical order (by positions), so that a multiset is ordered by ranks rather
/// than by comparing the positions' slices.
struct SharedValues {
    positions: Vec<Vec<Arc<[u32]>>>,
    rank: Vec<Vec<u32>>,
}

impl SharedValues {
    fn new(db: &TransactionDb, columns: &ItemPartition, values: &ColumnValues) -> Self {
        let mut position = vec![0u32; db.num_items()];
        for column in columns {
            for (k, &i) in column.iter().enumerate() {
                position[i as usize] = k as u32;
            }
        }
        // Column after column, each on every thread: a column's values run to millions at
        // 10⁷ records, and five columns on two threads would wait on the third.
        let (positions, rank) = (0..columns.len())
            .map(|j| {
                let positions: Vec<Arc<[u32]>> = (0..values.distinct(j) as u32)
                    .into_par_iter()
                    .map(|id| values.items(j, id).iter().map(|&i| position[i as usize]).collect())
                    .collect();
                // Distinct values have distinct positions: the order is total.
                let mut canonical: Vec<u32> = (0..positions.len() as u32).collect();
                canonical.par_sort_unstable_by(|&a, &b| {
                    positions[a as usize].cmp(&positions[b as usize])
                });
                let mut rank = vec![0u32; positions.len()];
                for (r, &id) in canonical.iter().enumerate() {
                    rank[id as usize] = r as u32;
                }
                (positions, rank)
            })
            .unzip();
        Self { positions, rank }
    }
}

/// One task's working memory for building buckets.
struct BucketBuilder {
    /// Per column, the bucket's value ids, sorted.
    sorted: Vec<Vec<u32>>,
    /// Per column, the bucket's value ids in their published (shuffled) order.
    shuffled: Vec<Vec<u32>>,
    /// A column's distinct values as (rank, count, id).
    runs: Vec<(u32, u32, u32)>,
}

impl BucketBuilder {
    fn new(p: usize) -> Self {
        Self { sorted: vec![Vec::new(); p], shuffled: vec![Vec::new(); p], runs: Vec::new() }
    }

    /// The table's bucket of `members`, its flattened records pushed to `rows`; `permutation`
    /// holds each column's shuffle of `0..members.len()`, one after the other.
    fn build(
        &mut self,
        members: &[u32],
        permutation: &[u32],
        values: &ColumnValues,
        shared: &SharedValues,
        rows: &mut RowWriter<'_>,
    ) -> Bucket {
        let size = members.len();
        let mut multisets = Vec::with_capacity(self.sorted.len());
        for (j, (sorted, shuffled)) in self.sorted.iter_mut().zip(&mut self.shuffled).enumerate() {
            sorted.clear();
            sorted.extend(members.iter().map(|&r| values.value(r, j)));
            sorted.sort_unstable();
            self.runs.clear();
            self.runs.extend(
                sorted
                    .chunk_by(|a, b| a == b)
                    .map(|run| (shared.rank[j][run[0] as usize], run.len() as u32, run[0])),
            );
            self.runs.sort_unstable();
            multisets.push(
                self.runs
                    .iter()
                    .map(|&(_, count, id)| {
                        ValueCount(count as usize, shared.positions[j][id as usize].clone())
                    })
                    .collect(),
            );
            shuffled.clear();
            shuffled
                .extend(permutation[j * size..(j + 1) * size].iter().map(|&k| sorted[k as usize]));
        }
        for k in 0..size {
            for (j, shuffled) in self.shuffled.iter().enumerate() {
                rows.extend_row(values.items(j, shuffled[k]));
            }
            rows.end_row();
        }
        Bucket { size, columns: multisets }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use txanon_data::QuestParams;

    use super::*;

    /// The publication one bucket after the other, as it was before the waves: each column's
    /// values sorted, counted, ordered by their positions and shuffled in place.
    fn one_by_one(
        db: &TransactionDb,
        columns: &ItemPartition,
        values: &ColumnValues,
        buckets: &[Vec<u32>],
        rng: &mut impl Rng,
    ) -> (AnatomizedTable, TransactionDb, Vec<u32>) {
        let mut position = vec![0u32; db.num_items()];
        for column in columns {
            for (k, &i) in column.iter().enumerate() {
                position[i as usize] = k as u32;
            }
        }
        let mut order: Vec<usize> = (0..buckets.len()).collect();
        order.shuffle(rng);
        let mut table = AnatomizedTable {
            format: TABLE_FORMAT.into(),
            l: 2,
            diversity: Diversity::Frequency,
            columns: columns
                .iter()
                .map(|c| c.iter().map(|&i| db.label(i).to_string()).collect())
                .collect(),
            buckets: Vec::new(),
        };
        let mut flattened = TransactionDbBuilder::default();
        let mut bucket_of = vec![u32::MAX; db.len()];
        for b in order {
            let members = &buckets[b];
            let mut shuffled = Vec::new();
            let mut multisets = Vec::new();
            for j in 0..columns.len() {
                let mut ids: Vec<u32> = members.iter().map(|&r| values.value(r, j)).collect();
                ids.sort_unstable();
                let mut multiset: Vec<ValueCount> = ids
                    .chunk_by(|a, b| a == b)
                    .map(|run| {
                        let items = values.items(j, run[0]);
                        ValueCount(run.len(), items.iter().map(|&i| position[i as usize]).collect())
                    })
                    .collect();
                multiset.sort_unstable_by(|a, b| a.1.cmp(&b.1));
                multisets.push(multiset);
                ids.shuffle(rng);
                shuffled.push(ids);
            }
            for &r in members {
                bucket_of[r as usize] = table.buckets.len() as u32;
            }
            table.buckets.push(Bucket { size: members.len(), columns: multisets });
            for k in 0..members.len() {
                for (j, ids) in shuffled.iter().enumerate() {
                    flattened.extend_row(values.items(j, ids[k]));
                }
                flattened.end_row();
            }
        }
        (table, flattened.finish(db.labels().clone()), bucket_of)
    }

    /// The waves give the same table, records and linkage as one bucket after the other, for
    /// the same seed, over several blocks and waves; and the table's JSON is serde's.
    #[test]
    fn waves_publish_what_one_bucket_after_the_other_does() {
        let db = QuestParams::new(30_000, 8.0, 3.0, 300).seed(9).check().unwrap().generate();
        let m = db.num_items() as u32;
        let columns: ItemPartition =
            (0..3).map(|j| (0..m).filter(|i| i % 3 == j).collect()).collect();
        let values = ColumnValues::new(&db, &columns);
        // Buckets of 1 to 6 records over a shuffled order; some records in none.
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let mut records: Vec<u32> = (0..db.len() as u32).collect();
        records.shuffle(&mut rng);
        let mut buckets = Vec::new();
        let mut rest = &records[..records.len() - 100];
        while !rest.is_empty() {
            let size = rest.len().min(rng.random_range(1..=6));
            buckets.push(rest[..size].to_vec());
            rest = &rest[size..];
        }
        let waves = BUCKETS_PER_BLOCK * BLOCKS_PER_WAVE;
        assert!(buckets.len() > 2 * waves, "{} buckets cross waves", buckets.len());
        let claim = (Diversity::Frequency, 2);
        let ours =
            publish(&db, &columns, &values, &buckets, claim, &mut ChaCha20Rng::seed_from_u64(1));
        let theirs =
            one_by_one(&db, &columns, &values, &buckets, &mut ChaCha20Rng::seed_from_u64(1));
        assert_eq!(ours.0, theirs.0);
        assert_eq!(ours.1, theirs.1);
        assert_eq!(ours.2, theirs.2);
        assert_eq!(ours.0.to_json(), serde_json::to_string(&theirs.0).unwrap());
    }

    /// The hand-written JSON is serde's for labels that need escaping, empty values, an
    /// empty table and one bucket.
    #[test]
    fn json_is_serdes() {
        let value = |count, positions: &[u32]| ValueCount(count, positions.into());
        let mut table = AnatomizedTable {
            format: TABLE_FORMAT.into(),
            l: 3,
            diversity: Diversity::Distinct,
            columns: vec![vec!["a\"b".into(), "é\n".into()], vec![]],
            buckets: vec![],
        };
        for _ in 0..3 {
            assert_eq!(table.to_json(), serde_json::to_string(&table).unwrap());
            let n = table.buckets.len();
            table.buckets.push(Bucket {
                size: 3 + n,
                columns: vec![vec![value(1, &[]), value(2 + n, &[0, 1])], vec![value(3 + n, &[])]],
            });
        }
    }
}
