//! Item partition, record partition (the paper's Figure 2) and publication.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rustc_hash::FxHashMap;
use txanon_correlate::{KMedoids, KMedoidsParams, item_distances};
use txanon_data::{ItemId, TransactionDb};

use crate::error::AnatomyError;
use crate::params::ValidAnatomyParams;
use crate::table::AnatomizedTable;

/// Items grouped into columns: `columns[j]` holds the sorted item ids of column `j`.
pub type ItemPartition = Vec<Vec<ItemId>>;

/// Clusters the items of `db` into `columns` columns by k-medoids on `d = 1 − φ²` (the paper's
/// eq. 4), BUILD initialization. Columns are ordered by their smallest item.
///
/// # Errors
/// [`AnatomyError::TooManyColumns`] when there are fewer items than columns.
pub fn item_partition(
    db: &TransactionDb,
    params: &ValidAnatomyParams,
) -> Result<ItemPartition, AnatomyError> {
    let m = db.num_items();
    let p = params.columns();
    if p > m {
        return Err(AnatomyError::TooManyColumns { columns: p, items: m });
    }
    let distances = item_distances(db)?;
    let clustering =
        KMedoids::new(KMedoidsParams::new(p).swap(params.swap()).check()?).fit(&distances)?;
    let mut columns: ItemPartition = vec![Vec::new(); p];
    for (item, &cluster) in clustering.labels.iter().enumerate() {
        columns[cluster].push(item as ItemId);
    }
    columns.sort();
    Ok(columns)
}

/// Each record's value in each column, interned: `value(r, j)` is the id of the itemset
/// `t_r ∩ C_j` among column `j`'s distinct values. The empty itemset is a value like any other.
#[derive(Debug)]
pub(crate) struct ColumnValues {
    p: usize,
    ids: Vec<u32>,
    /// Per column, the distinct values in id order.
    pub values: Vec<Vec<Vec<ItemId>>>,
}

impl ColumnValues {
    pub fn new(db: &TransactionDb, columns: &ItemPartition) -> Self {
        let p = columns.len();
        let mut column_of = vec![0usize; db.num_items()];
        for (j, items) in columns.iter().enumerate() {
            for &i in items {
                column_of[i as usize] = j;
            }
        }
        let mut interners: Vec<FxHashMap<Vec<ItemId>, u32>> = vec![FxHashMap::default(); p];
        let mut values: Vec<Vec<Vec<ItemId>>> = vec![Vec::new(); p];
        let mut parts: Vec<Vec<ItemId>> = vec![Vec::new(); p];
        let mut ids = Vec::with_capacity(db.len() * p);
        for t in db.iter() {
            parts.iter_mut().for_each(Vec::clear);
            for &i in t {
                parts[column_of[i as usize]].push(i);
            }
            for j in 0..p {
                let id = match interners[j].get(parts[j].as_slice()) {
                    Some(&id) => id,
                    None => {
                        let id = values[j].len() as u32;
                        values[j].push(parts[j].clone());
                        interners[j].insert(parts[j].clone(), id);
                        id
                    }
                };
                ids.push(id);
            }
        }
        Self { p, ids, values }
    }

    pub fn value(&self, record: u32, column: usize) -> u32 {
        self.ids[record as usize * self.p + column]
    }
}

/// The records of each bucket, and what happened to those that fit in no bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RecordPartition {
    /// Record indices of each bucket.
    pub buckets: Vec<Vec<u32>>,
    /// Leftover records placed into an existing bucket that stayed l-diverse (Figure 2, line 12).
    pub leftovers_placed: usize,
    /// Leftover records that fit no bucket but together formed one more l-diverse bucket.
    pub leftovers_merged: usize,
    /// Leftover records that fit nowhere and were suppressed (not published).
    pub suppressed: Vec<u32>,
}

/// True when a group of `size` records whose most frequent value (over all columns) occurs
/// `max_count` times is l-diverse: `max_count / size ≤ 1/l`, in integers.
fn diverse(max_count: u32, size: usize, l: usize) -> bool {
    max_count as usize * l <= size
}

/// The paper's Figure 2: scan the records once (in `order`), counting each column's values in
/// the open group; when every column's most frequent value is at most `1/l` of the group, the
/// group becomes a bucket. Each record left in the last open group then goes to the first
/// bucket, from a random starting point, that stays l-diverse with it. Leftovers that fit
/// nowhere become one more bucket if they are l-diverse together, and are suppressed otherwise:
/// no bucket is ever published that violates l-diversity.
pub(crate) fn record_partition(
    values: &ColumnValues,
    l: usize,
    order: &[u32],
    rng: &mut impl Rng,
) -> RecordPartition {
    let p = values.p;
    let mut counts: Vec<Vec<u32>> = values.values.iter().map(|v| vec![0u32; v.len()]).collect();
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    let mut group: Vec<u32> = Vec::new();
    let mut max_count = 0u32;
    for &r in order {
        group.push(r);
        for (j, c) in counts.iter_mut().enumerate() {
            let slot = &mut c[values.value(r, j) as usize];
            *slot += 1;
            max_count = max_count.max(*slot);
        }
        if diverse(max_count, group.len(), l) {
            for &g in &group {
                for (j, c) in counts.iter_mut().enumerate() {
                    c[values.value(g, j) as usize] = 0;
                }
            }
            buckets.push(std::mem::take(&mut group));
            max_count = 0;
        }
    }

    // Counts of each (bucket, column value), for placing leftovers.
    let mut in_bucket: Vec<FxHashMap<(u32, u32), u32>> = vec![FxHashMap::default(); p];
    for (b, members) in buckets.iter().enumerate() {
        for &r in members {
            for (j, map) in in_bucket.iter_mut().enumerate() {
                *map.entry((b as u32, values.value(r, j))).or_default() += 1;
            }
        }
    }
    let mut placed = 0;
    let mut unplaced = Vec::new();
    let total = buckets.len();
    for &r in &group {
        let start = if total > 0 { rng.random_range(0..total) } else { 0 };
        let fits = |b: usize, buckets: &[Vec<u32>]| {
            let size = buckets[b].len() + 1;
            (0..p).all(|j| {
                let c = in_bucket[j].get(&(b as u32, values.value(r, j))).copied().unwrap_or(0) + 1;
                diverse(c, size, l)
            })
        };
        match (0..total).map(|k| (start + k) % total).find(|&b| fits(b, &buckets)) {
            Some(b) => {
                for (j, map) in in_bucket.iter_mut().enumerate() {
                    *map.entry((b as u32, values.value(r, j))).or_default() += 1;
                }
                buckets[b].push(r);
                placed += 1;
            }
            None => unplaced.push(r),
        }
    }
    let (mut merged, mut suppressed) = (0, Vec::new());
    if !unplaced.is_empty() {
        let mut c: Vec<FxHashMap<u32, u32>> = vec![FxHashMap::default(); p];
        let mut most = 0;
        for &r in &unplaced {
            for (j, map) in c.iter_mut().enumerate() {
                let slot = map.entry(values.value(r, j)).or_default();
                *slot += 1;
                most = most.max(*slot);
            }
        }
        if diverse(most, unplaced.len(), l) {
            merged = unplaced.len();
            buckets.push(unplaced);
        } else {
            suppressed = unplaced;
            suppressed.sort_unstable();
        }
    }
    RecordPartition { buckets, leftovers_placed: placed, leftovers_merged: merged, suppressed }
}

/// `ln Σ_B |B|^p`: the natural logarithm of the number of records the buckets reconstruct to
/// (the paper's Theorem 2: a bucket of `|B|` records and `p` columns combines into `|B|^p`),
/// summed with log-sum-exp so that no power overflows.
pub fn ln_faked_records(bucket_sizes: impl IntoIterator<Item = usize>, columns: usize) -> f64 {
    let logs: Vec<f64> = bucket_sizes
        .into_iter()
        .filter(|&s| s > 0)
        .map(|s| columns as f64 * (s as f64).ln())
        .collect();
    let Some(max) = logs.iter().copied().reduce(f64::max) else { return f64::NEG_INFINITY };
    max + logs.iter().map(|x| (x - max).exp()).sum::<f64>().ln()
}

/// Fails when some column's most frequent value is held by more than `1/l` of all records: then
/// no record partition can be l-diverse (the buckets' counts of that value sum to more than
/// `n/l`), and scanning for buckets would only suppress records.
fn check_feasible(
    db: &TransactionDb,
    columns: &ItemPartition,
    values: &ColumnValues,
    l: usize,
) -> Result<(), AnatomyError> {
    let n = db.len();
    let mut worst: Option<(usize, u32, usize)> = None;
    for j in 0..columns.len() {
        let mut counts = vec![0usize; values.values[j].len()];
        for r in 0..n as u32 {
            counts[values.value(r, j) as usize] += 1;
        }
        let (value, &most) =
            counts.iter().enumerate().max_by_key(|(_, c)| **c).expect("n ≥ 1 gives a value");
        if worst.is_none_or(|(_, _, w)| most > w) {
            worst = Some((j, value as u32, most));
        }
    }
    match worst {
        Some((column, value, most)) if most * l > n => {
            let labels: Vec<String> = values.values[column][value as usize]
                .iter()
                .map(|&i| db.label(i).to_string())
                .collect();
            Err(AnatomyError::Infeasible {
                l,
                column,
                items: columns[column].len(),
                value: format!("{{{}}}", labels.join(",")),
                share: 100.0 * most as f64 / n as f64,
                max_l: n / most,
            })
        }
        _ => Ok(()),
    }
}

/// What [`anatomize`] produced: the published forms and the run's figures.
#[derive(Debug)]
pub struct Anatomized {
    /// The item partition (not secret: it is in the published table).
    pub columns: ItemPartition,
    /// The published anatomized table.
    pub table: AnatomizedTable,
    /// The published flattened records (each bucket's columns permuted and re-joined), with the
    /// input's item labels.
    pub flattened: TransactionDb,
    /// Number of buckets.
    pub buckets: usize,
    /// Leftovers placed in existing buckets.
    pub leftovers_placed: usize,
    /// Leftovers published as one extra bucket.
    pub leftovers_merged: usize,
    /// Records suppressed (fit no l-diverse bucket).
    pub suppressed: usize,
    /// `ln` of the number of records the table reconstructs to (Theorem 2).
    pub ln_faked_records: f64,
}

/// Anatomizes `db`: item partition, record partition, publication with permuted columns.
///
/// Randomness (scan order, leftover placement, bucket order, permutations) comes from ChaCha20
/// seeded from the operating system, or from `params.seed()`. The scan order is a random
/// permutation, so which records share a bucket does not follow the input order; the buckets
/// and each bucket's column values are shuffled before publication.
///
/// # Errors
/// [`AnatomyError::TooManyColumns`], clustering errors, [`AnatomyError::Infeasible`] when a
/// column's most frequent value exceeds `1/l` of all records (no partition can then be
/// l-diverse), and [`AnatomyError::NotDiverse`] when no l-diverse bucket can be formed at all.
pub fn anatomize(
    db: &TransactionDb,
    params: &ValidAnatomyParams,
) -> Result<Anatomized, AnatomyError> {
    let mut rng = match params.seed() {
        Some(seed) => ChaCha20Rng::seed_from_u64(seed),
        None => ChaCha20Rng::from_os_rng(),
    };
    let columns = item_partition(db, params)?;
    let values = ColumnValues::new(db, &columns);
    check_feasible(db, &columns, &values, params.l())?;
    let mut order: Vec<u32> = (0..db.len() as u32).collect();
    order.shuffle(&mut rng);
    let partition = record_partition(&values, params.l(), &order, &mut rng);
    if partition.buckets.is_empty() {
        return Err(AnatomyError::NotDiverse {
            l: params.l(),
            records: db.len(),
            columns: columns.len(),
        });
    }
    let (table, flattened) =
        crate::table::publish(db, &columns, &values, &partition.buckets, params.l(), &mut rng);
    Ok(Anatomized {
        ln_faked_records: ln_faked_records(partition.buckets.iter().map(Vec::len), columns.len()),
        buckets: partition.buckets.len(),
        leftovers_placed: partition.leftovers_placed,
        leftovers_merged: partition.leftovers_merged,
        suppressed: partition.suppressed.len(),
        columns,
        table,
        flattened,
    })
}
