//! Item partition, record partition (the paper's Figure 2) and publication.

use crate::Anatomy;
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rustc_hash::FxHashMap;
use txanon_correlate::{KMedoids, KMedoidsParams, item_distances};
use txanon_data::Family;
use txanon_data::progress::{Progress, Unit};
use txanon_data::{ItemId, TransactionDb};

use crate::audit::{AnatomyAuditReport, audit};
use crate::error::AnatomyError;
use crate::params::{Diversity, ItemPartitioning, ValidAnatomyParams};
use crate::repair::repair;
use crate::table::AnatomizedTable;
use crate::values::ColumnValues;

/// Items grouped into columns: `columns[j]` holds the sorted item ids of column `j`.
pub type ItemPartition = Vec<Vec<ItemId>>;

/// The item partition, how it was reached, and the records' values in it.
#[derive(Debug)]
struct Partitioned {
    columns: ItemPartition,
    /// Items the repair moved, as (item, from column, to column).
    moved: Vec<(ItemId, usize, usize)>,
    values: ColumnValues,
    /// Whether some record partition could be diverse with these columns.
    feasible: Result<(), AnatomyError>,
}

/// Clusters the items of `db` into `columns` columns by k-medoids on `d = 1 − φ²` (the paper's
/// eq. 4), BUILD initialization, then, with [`ItemPartitioning::Repaired`] and
/// [`Diversity::Frequency`], moves items until every column admits l (see
/// [`ItemPartitioning::Repaired`]). Columns are ordered by their medoid's item id (the repair
/// never moves a medoid). This is the partition [`anonymize`] uses with the same seed; with
/// given columns ([`AnatomyParams::item_columns`](crate::AnatomyParams::item_columns)), those
/// columns over `db`'s item ids.
///
/// # Errors
/// [`AnatomyError::TooManyColumns`] when there are fewer items than columns;
/// [`AnatomyError::NotInColumns`] when given columns leave an item of `db` out.
pub fn item_partition(
    db: &TransactionDb,
    params: &ValidAnatomyParams,
) -> Result<ItemPartition, AnatomyError> {
    Ok(partition_items(db, params, &mut rng_of(params, db), &Progress::default())?.columns)
}

/// The run's random source: ChaCha20 from the seed, or from the operating system.
fn rng_of(params: &ValidAnatomyParams, db: &TransactionDb) -> ChaCha20Rng {
    txanon_data::publication_rng(params.seed(), db)
}

/// Records the repair searches on. Shares of values are proportions: on this many records the
/// standard error of a 10% share is 0.3 percentage points, and four of them stay inside the
/// margin the default headroom leaves below `1/l` (2 points at l = 10); each move costs time
/// proportional to the records searched.
const REPAIR_SAMPLE: usize = 10_000;

fn partition_items(
    db: &TransactionDb,
    params: &ValidAnatomyParams,
    rng: &mut ChaCha20Rng,
    progress: &Progress,
) -> Result<Partitioned, AnatomyError> {
    if let Some(given) = params.item_columns() {
        let columns = given_partition(db, given)?;
        progress.begin("anatomy: the records' column values", Unit::Items, 0);
        let values = ColumnValues::new(db, &columns);
        let feasible = check_feasible(db, &columns, &values, params.diversity(), params.l());
        return Ok(Partitioned { columns, moved: Vec::new(), values, feasible });
    }
    let m = db.num_items();
    let p = params.columns();
    if p > m {
        return Err(AnatomyError::TooManyColumns { columns: p, items: m });
    }
    if params.partitioning() == ItemPartitioning::Diverse {
        // Shares of values are proportions: searched on a sample, as the repair's, and checked
        // exactly below.
        progress.begin("anatomy: item columns by diversity, on a sample", Unit::Items, 0);
        let sample = sample_records(db, REPAIR_SAMPLE, rng);
        let columns = crate::reach::diverse_partition(&sample, p);
        if columns.len() < p {
            return Err(AnatomyError::TooManyColumns { columns: p, items: columns.len() });
        }
        progress.begin("anatomy: the records' column values", Unit::Items, 0);
        let values = ColumnValues::new(db, &columns);
        let feasible = check_feasible(db, &columns, &values, params.diversity(), params.l());
        return Ok(Partitioned { columns, moved: Vec::new(), values, feasible });
    }
    progress.begin("anatomy: item pairs and distances (1 − φ²)", Unit::Items, 0);
    let distances = item_distances(db)?;
    progress.begin("anatomy: item columns (k-medoids)", Unit::Items, 0);
    let clustering =
        KMedoids::new(KMedoidsParams::new(p).medoid_search(params.medoid_search()).check()?)
            .fit(&distances)?;
    let mut order: Vec<usize> = (0..p).collect();
    order.sort_by_key(|&c| clustering.medoids[c]);
    let mut cluster_to_column = vec![0; p];
    for (j, &c) in order.iter().enumerate() {
        cluster_to_column[c] = j;
    }
    let medoids: Vec<usize> = order.iter().map(|&c| clustering.medoids[c]).collect();
    let mut columns: ItemPartition = vec![Vec::new(); p];
    for (item, &cluster) in clustering.labels.iter().enumerate() {
        columns[cluster_to_column[cluster]].push(item as ItemId);
    }
    let (diversity, l) = (params.diversity(), params.l());
    let repairing = params.partitioning() == ItemPartitioning::Repaired
        && diversity == Diversity::Frequency
        && !db.is_empty();
    let (mut moved, mut reached) = (Vec::new(), false);
    if repairing {
        progress.begin("anatomy: column repair, on a sample", Unit::Items, 0);
        // Search towards the headroom target on a sample; the exact check on every record
        // follows, and only if the sample misled it does the repair go on over all records.
        let sample = sample_records(db, REPAIR_SAMPLE, rng);
        let cap = (sample.len() as f64 / (l as f64 * (1.0 + params.headroom()))) as u32;
        let searched = repair(&sample, &mut columns, &distances, &medoids, cap);
        moved = searched.moves;
        reached = searched.reached;
    }
    progress.begin("anatomy: the records' column values", Unit::Items, 0);
    let mut values = ColumnValues::new(db, &columns);
    let mut feasible = check_feasible(db, &columns, &values, diversity, l);
    // Only a sampling error is worth a search over every record: a repair that could not reach
    // its target on the sample will not reach the bound on the whole.
    if repairing && reached && feasible.is_err() {
        progress.begin("anatomy: column repair, on every record", Unit::Items, 0);
        let cap = (db.len() / l) as u32;
        let more = repair(db, &mut columns, &distances, &medoids, cap).moves;
        if !more.is_empty() {
            moved.extend(more);
            progress.begin("anatomy: the records' column values", Unit::Items, 0);
            values = ColumnValues::new(db, &columns);
            feasible = check_feasible(db, &columns, &values, diversity, l);
        }
    }
    Ok(Partitioned { columns, moved, values, feasible })
}

/// The given partition (by label) over `db`'s item ids, each column sorted; labels `db` does
/// not hold are passed over.
fn given_partition(
    db: &TransactionDb,
    given: &[Vec<String>],
) -> Result<ItemPartition, AnatomyError> {
    let mut placed = vec![false; db.num_items()];
    let columns: ItemPartition = given
        .iter()
        .map(|labels| {
            let (ids, _absent) = txanon_data::resolve_labels(db, labels);
            for &i in &ids {
                placed[i as usize] = true;
            }
            ids
        })
        .collect();
    let missing: Vec<ItemId> =
        (0..db.num_items() as ItemId).filter(|&i| !placed[i as usize]).collect();
    if let Some(&first) = missing.first() {
        return Err(AnatomyError::NotInColumns {
            missing: missing.len(),
            first: db.label(first).to_string(),
        });
    }
    Ok(columns)
}

/// Completes a partition built from a sample with the items the sample did not hold, so that
/// it covers every item of `supports` (each item's support in the whole data): each missing
/// item, in decreasing support (then label), joins the column with the fewest occurrences so
/// far (the column's items' supports summed; the lowest index on a tie). A column's most
/// frequent value is most often the empty set, held by the records that have none of its
/// items, and adding occurrences to the column with the fewest lowers it where it is highest;
/// the items a sample misses are rare, so they move no share much either way.
///
/// Returns how many items were added. Items of `columns` that `supports` does not name count
/// as zero occurrences.
pub fn complete_partition(columns: &mut [Vec<String>], supports: &[(String, u64)]) -> usize {
    if columns.is_empty() {
        return 0;
    }
    let support: FxHashMap<&str, u64> = supports.iter().map(|(l, s)| (l.as_str(), *s)).collect();
    let mut occurrences: Vec<u64> = columns
        .iter()
        .map(|c| c.iter().map(|l| support.get(l.as_str()).copied().unwrap_or(0)).sum())
        .collect();
    // Held items are passed over, and an item named twice in `supports` is placed once.
    let mut held: std::collections::HashSet<&str> =
        columns.iter().flatten().map(String::as_str).collect();
    let mut missing: Vec<(&str, u64)> = supports
        .iter()
        .filter(|(l, _)| held.insert(l.as_str()))
        .map(|(l, s)| (l.as_str(), *s))
        .collect();
    missing.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let missing: Vec<(String, u64)> =
        missing.into_iter().map(|(l, s)| (l.to_string(), s)).collect();
    for (label, s) in &missing {
        let j = (0..occurrences.len()).min_by_key(|&j| (occurrences[j], j)).expect("columns");
        occurrences[j] += s;
        columns[j].push(label.clone());
    }
    missing.len()
}

/// At most `size` records of `db` drawn uniformly without replacement (all of them if fewer),
/// as a database over the same item ids.
fn sample_records(db: &TransactionDb, size: usize, rng: &mut impl Rng) -> TransactionDb {
    let mut chosen: Vec<usize> = if db.len() <= size {
        (0..db.len()).collect()
    } else {
        rand::seq::index::sample(rng, db.len(), size).into_vec()
    };
    chosen.sort_unstable();
    db.select(chosen)
}

/// The records of each bucket, and what happened to those that fit in no bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RecordPartition {
    /// Record indices of each bucket.
    pub buckets: Vec<Vec<u32>>,
    /// Leftover records placed into an existing bucket that stayed l-diverse (Figure 2, line 12).
    pub leftovers_placed: usize,
    /// Leftover records that fit no bucket alone and were published in one more bucket, with
    /// the buckets they absorbed.
    pub leftovers_merged: usize,
    /// Buckets merged into the leftovers' bucket to make it diverse.
    pub buckets_absorbed: usize,
    /// Leftover records that no merge could keep, suppressed (not published): only when the
    /// whole input is not diverse.
    pub suppressed: Vec<u32>,
}

/// Counts of each column's values in one group of records, and whether the group is diverse.
#[derive(Debug)]
struct GroupCounts {
    diversity: Diversity,
    l: usize,
    /// `counts[j][v]`: records of the group with value `v` in column `j`.
    counts: Vec<Vec<u32>>,
    /// Largest count over all columns (for [`Diversity::Frequency`]).
    max_count: u32,
    /// Distinct values per column, and columns with at least `l` of them (for
    /// [`Diversity::Distinct`]).
    distinct: Vec<usize>,
    columns_with_l: usize,
    size: usize,
}

impl GroupCounts {
    fn new(values: &ColumnValues, diversity: Diversity, l: usize) -> Self {
        Self {
            diversity,
            l,
            counts: (0..values.columns()).map(|j| vec![0u32; values.distinct(j)]).collect(),
            max_count: 0,
            distinct: vec![0; values.columns()],
            columns_with_l: 0,
            size: 0,
        }
    }

    fn add(&mut self, values: &ColumnValues, r: u32) {
        self.size += 1;
        for (j, c) in self.counts.iter_mut().enumerate() {
            let slot = &mut c[values.value(r, j) as usize];
            *slot += 1;
            self.max_count = self.max_count.max(*slot);
            if *slot == 1 {
                self.distinct[j] += 1;
                if self.distinct[j] == self.l {
                    self.columns_with_l += 1;
                }
            }
        }
    }

    fn is_diverse(&self) -> bool {
        self.size > 0
            && match self.diversity {
                Diversity::Frequency => self.max_count as usize * self.l <= self.size,
                Diversity::Distinct => self.columns_with_l == self.distinct.len(),
            }
    }

    /// Empties the group, touching only the slots its `members` used.
    fn clear(&mut self, values: &ColumnValues, members: &[u32]) {
        for &g in members {
            for (j, c) in self.counts.iter_mut().enumerate() {
                c[values.value(g, j) as usize] = 0;
            }
        }
        self.max_count = 0;
        self.distinct.iter_mut().for_each(|d| *d = 0);
        self.columns_with_l = 0;
        self.size = 0;
    }
}

/// The paper's Figure 2: scan the records once (in `order`), counting each column's values in
/// the open group; when the group is diverse (every column's most frequent value is at most
/// `1/l` of the group, or every column has `l` distinct values), it becomes a bucket. Each
/// record left in the last open group then goes to the first bucket, from a random starting
/// point, that stays diverse with it. Leftovers that fit nowhere alone become one more bucket,
/// absorbing as few existing buckets as make it diverse (the paper suppresses them; a union of
/// diverse buckets is diverse, so a record is suppressed only when the whole input is not
/// diverse). No bucket is ever published that violates l-diversity.
///
/// Long as one function: the paper's Figure 2 scan as one loop; the scan, the leftovers and the
/// merge share the buckets' state.
pub(crate) fn record_partition(
    values: &ColumnValues,
    diversity: Diversity,
    l: usize,
    order: &[u32],
    rng: &mut impl Rng,
    progress: &Progress,
) -> RecordPartition {
    let p = values.columns();
    let mut open = GroupCounts::new(values, diversity, l);
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    let mut group: Vec<u32> = Vec::new();
    for (done, &r) in order.iter().enumerate() {
        if done % 65_536 == 65_535 {
            progress.advance(65_536);
        }
        group.push(r);
        open.add(values, r);
        if open.is_diverse() {
            open.clear(values, &group);
            buckets.push(std::mem::take(&mut group));
        }
    }

    // Each leftover goes to the first bucket, from a random start, that stays diverse with it.
    // Under the distinct reading that is always the first bucket tried; under the frequency
    // bound a bucket's value counts are taken when a leftover is first tried against it (most
    // leftovers fit the first bucket they meet, so most buckets are never counted).
    let mut counted: FxHashMap<usize, Vec<FxHashMap<u32, u32>>> = FxHashMap::default();
    let mut placed = 0;
    let mut unplaced = Vec::new();
    let total = buckets.len();
    for &r in &group {
        let start = if total > 0 { rng.random_range(0..total) } else { 0 };
        let mut home = None;
        for b in (0..total).map(|k| (start + k) % total) {
            if diversity == Diversity::Distinct {
                home = Some(b);
                break;
            }
            let counts = counted.entry(b).or_insert_with(|| {
                (0..p)
                    .map(|j| {
                        let mut c: FxHashMap<u32, u32> = FxHashMap::default();
                        for &m in &buckets[b] {
                            *c.entry(values.value(m, j)).or_default() += 1;
                        }
                        c
                    })
                    .collect()
            });
            let size = buckets[b].len() + 1;
            let fits = counts.iter().enumerate().all(|(j, c)| {
                (c.get(&values.value(r, j)).copied().unwrap_or(0) as usize + 1) * l <= size
            });
            if fits {
                for (j, c) in counts.iter_mut().enumerate() {
                    *c.entry(values.value(r, j)).or_default() += 1;
                }
                home = Some(b);
                break;
            }
        }
        match home {
            Some(b) => {
                buckets[b].push(r);
                placed += 1;
            }
            None => unplaced.push(r),
        }
    }
    let (mut merged, mut absorbed, mut suppressed) = (0, 0, Vec::new());
    if !unplaced.is_empty() {
        let mut together = GroupCounts::new(values, diversity, l);
        for &r in &unplaced {
            together.add(values, r);
        }
        match absorbing(values, &buckets, together) {
            Some(chosen) => {
                merged = unplaced.len();
                absorbed = chosen.len();
                let mut group = unplaced;
                for &b in &chosen {
                    group.extend_from_slice(&buckets[b]);
                }
                let mut gone = chosen;
                gone.sort_unstable_by(|a, b| b.cmp(a));
                for b in gone {
                    buckets.remove(b);
                }
                buckets.push(group);
            }
            None => {
                suppressed = unplaced;
                suppressed.sort_unstable();
            }
        }
    }
    RecordPartition {
        buckets,
        leftovers_placed: placed,
        leftovers_merged: merged,
        buckets_absorbed: absorbed,
        suppressed,
    }
}

/// How far a group is from diverse: under [`Diversity::Frequency`], `max(0, l·c − |G|)` for the
/// largest count `c` of a value in any column; under [`Diversity::Distinct`], the values missing
/// to `l` summed over the columns. Zero exactly when the group is diverse (and not empty).
fn shortfall(
    diversity: Diversity,
    l: usize,
    size: usize,
    max_count: usize,
    distinct: &[usize],
) -> usize {
    match diversity {
        Diversity::Frequency => (max_count * l).saturating_sub(size),
        Diversity::Distinct => distinct.iter().map(|&d| l.saturating_sub(d)).sum(),
    }
}

/// The buckets whose union with the leftovers (counted in `union`) is diverse, chosen
/// greedily: each round adds the bucket that leaves the smallest [`shortfall`], the smaller
/// bucket on a tie, then the earlier. `None` when even every bucket together with the leftovers
/// is not diverse. The union of diverse groups is diverse, so when the whole input is (which
/// [`anonymize`] checks first), this always succeeds and nothing is suppressed.
///
/// Under the frequency bound only the leftovers' own values can exceed `1/l` of a union with a
/// diverse bucket (any other value is at most `|B|/l`), so a candidate is scored by counting
/// just those values in it (under the distinct reading, just the values the union lacks):
/// `O(n·p)` a round, and a round rarely follows the first.
///
/// Missed optimization: every round recounts every remaining bucket; the counts of the
/// leftovers' values in each bucket change only by the bucket absorbed, and could be kept.
fn absorbing(
    values: &ColumnValues,
    buckets: &[Vec<u32>],
    mut union: GroupCounts,
) -> Option<Vec<usize>> {
    let (diversity, l) = (union.diversity, union.l);
    let mut chosen: Vec<usize> = Vec::new();
    let mut taken = vec![false; buckets.len()];
    // A candidate's counts of the values that decide its score, in one column.
    let mut extra: FxHashMap<u32, usize> = FxHashMap::default();
    while !union.is_diverse() {
        let mut best: Option<(usize, usize, usize)> = None;
        for (b, bucket) in buckets.iter().enumerate().filter(|(b, _)| !taken[*b]) {
            let (mut most, mut distinct) = (union.max_count as usize, union.distinct.clone());
            for (j, counts) in union.counts.iter().enumerate() {
                extra.clear();
                for &m in bucket {
                    let v = values.value(m, j);
                    let held = counts[v as usize] > 0;
                    if held == (diversity == Diversity::Frequency) {
                        *extra.entry(v).or_default() += 1;
                    }
                }
                match diversity {
                    Diversity::Frequency => {
                        for (&v, &e) in &extra {
                            most = most.max(counts[v as usize] as usize + e);
                        }
                    }
                    Diversity::Distinct => distinct[j] += extra.len(),
                }
            }
            let size = union.size + bucket.len();
            let score = (shortfall(diversity, l, size, most, &distinct), bucket.len(), b);
            if best.is_none_or(|s| score < s) {
                best = Some(score);
            }
        }
        let (_, _, b) = best?;
        taken[b] = true;
        chosen.push(b);
        for &m in &buckets[b] {
            union.add(values, m);
        }
    }
    Some(chosen)
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

/// Fails when no record partition can be diverse with these columns: under
/// [`Diversity::Frequency`], when some column's most frequent value is held by more than `1/l`
/// of all records (the buckets' counts of that value sum to more than `n/l`); under
/// [`Diversity::Distinct`], when some column has fewer than `l` distinct values in all.
/// [`AnatomyError::TooShort`] when records too short to fill `p` columns make every item
/// partition infeasible for l under Definition 5.
///
/// A record of `|r| < p` items is non-empty in at most `|r|` columns, so the columns' empty
/// counts sum to at least `D = Σ_r max(0, p − |r|)` and the emptiest column holds at least
/// `⌈D/p⌉` records with the empty value; l is out of reach when `⌈D/p⌉ · l > n`, the test
/// [`check_feasible`] applies to each column's most frequent value.
fn too_short(db: &TransactionDb, p: usize, l: usize) -> Result<(), AnatomyError> {
    let n = db.len();
    let (mut deficit, mut short) = (0usize, 0usize);
    for t in db.iter() {
        if t.len() < p {
            deficit += p - t.len();
            short += 1;
        }
    }
    let emptiest = deficit.div_ceil(p);
    if emptiest == 0 || emptiest.saturating_mul(l) <= n {
        return Ok(());
    }
    Err(AnatomyError::TooShort {
        l,
        columns: p,
        short: 100.0 * short as f64 / n as f64,
        share: 100.0 * emptiest as f64 / n as f64,
        max_l: n / emptiest,
    })
}

fn check_feasible(
    db: &TransactionDb,
    columns: &ItemPartition,
    values: &ColumnValues,
    diversity: Diversity,
    l: usize,
) -> Result<(), AnatomyError> {
    let n = db.len();
    if diversity == Diversity::Distinct {
        return match (0..columns.len()).find(|&j| values.distinct(j) < l) {
            Some(column) => Err(AnatomyError::TooFewValues {
                l,
                column,
                items: columns[column].len(),
                distinct: values.distinct(column),
            }),
            None => Ok(()),
        };
    }
    let mut worst: Option<(usize, u32, usize)> = None;
    for j in 0..columns.len() {
        let (value, most) = values.most_frequent(j);
        if worst.is_none_or(|(_, _, w)| most > w) {
            worst = Some((j, value, most));
        }
    }
    match worst {
        Some((column, value, most)) if most * l > n => {
            let labels: Vec<String> =
                values.items(column, value).iter().map(|&i| db.label(i).to_string()).collect();
            Err(AnatomyError::Infeasible {
                l,
                column,
                items: columns[column].len(),
                value: if labels.is_empty() {
                    "empty (none of its items)".to_string()
                } else {
                    format!("{{{}}}", labels.join(","))
                },
                share: 100.0 * most as f64 / n as f64,
                max_l: n / most,
            })
        }
        _ => Ok(()),
    }
}

/// What [`anonymize`] produced: the published forms and the run's figures.
#[derive(Debug)]
pub struct AnatomyPublication {
    /// The item partition (not secret: it is in the published table).
    pub columns: ItemPartition,
    /// Items the repair moved out of their k-medoids column, as (item, from, to) in the
    /// numbering of `columns` ([`ItemPartitioning::Repaired`]).
    pub items_moved: Vec<(ItemId, usize, usize)>,
    /// The published anatomized table.
    pub table: AnatomizedTable,
    /// The published flattened records (each bucket's columns permuted and re-joined), with the
    /// input's item labels.
    pub flattened: TransactionDb,
    /// Number of buckets.
    pub buckets: usize,
    /// Leftovers placed in existing buckets.
    pub leftovers_placed: usize,
    /// Leftovers that fit no bucket alone, published in one more bucket.
    pub leftovers_merged: usize,
    /// Buckets that bucket absorbed to be diverse.
    pub buckets_absorbed: usize,
    /// For each input record, the index of its bucket in `table` (`u32::MAX` if suppressed):
    /// the link between a person and a bucket, the data holder's secret like swap's key, never
    /// published; an attack on the publication needs it to know whose record is whose.
    pub bucket_of: Vec<u32>,
    /// Records suppressed (not published). Zero: the input is refused when it is not diverse as
    /// a whole, and otherwise every leftover is merged (kept for callers that count records).
    pub suppressed: usize,
    /// `ln` of the number of records the table reconstructs to (Theorem 2).
    pub ln_faked_records: f64,
    /// The audit the publication passed: the table against the parameters' claim, the
    /// flattened records against the table, and both against the input.
    pub audit: AnatomyAuditReport,
}

/// Anatomizes `db`: item partition, record partition, publication with permuted columns.
///
/// Randomness (scan order, leftover placement, bucket order, permutations) comes from ChaCha20
/// seeded from the operating system, or from `params.seed()`. The scan order is a random
/// permutation, so which records share a bucket does not follow the input order; the buckets
/// and each bucket's column values are shuffled before publication.
///
/// # Errors
/// [`AnatomyError::TooManyColumns`], clustering errors, [`AnatomyError::NotInColumns`] when
/// given columns leave an item of `db` out, [`AnatomyError::TooShort`] when records
/// with fewer items than columns leave some column empty too often under any item partition,
/// [`AnatomyError::Infeasible`] when a
/// column's most frequent value exceeds `1/l` of all records even after the repair (no
/// partition can then be l-diverse), [`AnatomyError::TooFewValues`] when under
/// [`Diversity::Distinct`] a column has fewer than `l` values in all, and
/// [`AnatomyError::NotDiverse`] when no diverse bucket can be formed at all (or the input is
/// empty); [`AnatomyError::Audit`] if the publication fails its audit (a bug: nothing is
/// returned to publish).
pub fn anonymize(
    db: &TransactionDb,
    params: &ValidAnatomyParams,
) -> Result<AnatomyPublication, AnatomyError> {
    let mut rng = rng_of(params, db);
    // Nobody watching costs an atomic addition per block.
    let progress = params.progress_handle().cloned().unwrap_or_default();
    if db.is_empty() {
        return Err(AnatomyError::NotDiverse {
            l: params.l(),
            records: 0,
            columns: params.columns(),
        });
    }
    if params.diversity() == Diversity::Frequency && params.columns() <= db.num_items() {
        // Before any clustering or repair: searching for item partitions that cannot exist
        // took half a minute on retail.
        too_short(db, params.columns(), params.l())?;
    }
    let Partitioned { columns, moved, values, feasible } =
        partition_items(db, params, &mut rng, &progress)?;
    feasible?;
    let mut order: Vec<u32> = (0..db.len() as u32).collect();
    order.shuffle(&mut rng);
    progress.begin("anatomy: l-diverse buckets (records scanned)", Unit::Items, db.len() as u64);
    let partition =
        record_partition(&values, params.diversity(), params.l(), &order, &mut rng, &progress);
    if partition.buckets.is_empty() {
        return Err(AnatomyError::NotDiverse {
            l: params.l(),
            records: db.len(),
            columns: columns.len(),
        });
    }
    progress.begin("anatomy: publishing the table", Unit::Items, 0);
    let (table, flattened, bucket_of) = crate::table::publish(
        db,
        &columns,
        &values,
        &partition.buckets,
        (params.diversity(), params.l()),
        &mut rng,
    );
    let claim = Anatomy::claim(params, db)?;
    progress.begin("anatomy: auditing the publication", Unit::Items, 0);
    let audit = audit(&table, &claim, Some(&flattened), Some(db))?;
    Ok(AnatomyPublication {
        audit,
        ln_faked_records: ln_faked_records(partition.buckets.iter().map(Vec::len), columns.len()),
        buckets: partition.buckets.len(),
        leftovers_placed: partition.leftovers_placed,
        leftovers_merged: partition.leftovers_merged,
        buckets_absorbed: partition.buckets_absorbed,
        suppressed: partition.suppressed.len(),
        columns,
        items_moved: moved,
        table,
        flattened,
        bucket_of,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::{ProptestConfig, any, prop, prop_assert_eq, proptest};
    use rand::SeedableRng;

    use super::*;

    /// Figure 2 by brute force: every diversity test recounts the group from scratch.
    fn reference(
        db: &TransactionDb,
        columns: &ItemPartition,
        diversity: Diversity,
        l: usize,
        order: &[u32],
        rng: &mut impl rand::Rng,
    ) -> RecordPartition {
        let value = |r: u32, j: usize| -> Vec<ItemId> {
            db.transaction(r as usize).iter().copied().filter(|i| columns[j].contains(i)).collect()
        };
        let is_diverse = |group: &[u32]| {
            !group.is_empty()
                && (0..columns.len()).all(|j| {
                    let mut counts: FxHashMap<Vec<ItemId>, usize> = FxHashMap::default();
                    for &r in group {
                        *counts.entry(value(r, j)).or_default() += 1;
                    }
                    match diversity {
                        Diversity::Frequency => counts.values().all(|&c| c * l <= group.len()),
                        Diversity::Distinct => counts.len() >= l,
                    }
                })
        };
        let (mut buckets, mut group) = (Vec::new(), Vec::new());
        for &r in order {
            group.push(r);
            if is_diverse(&group) {
                buckets.push(std::mem::take(&mut group));
            }
        }
        let (mut placed, mut unplaced) = (0, Vec::new());
        let total = buckets.len();
        for &r in &group {
            let start = if total > 0 { rng.random_range(0..total) } else { 0 };
            let home = (0..total).map(|k| (start + k) % total).find(|&b| {
                let mut with: Vec<u32> = buckets[b].clone();
                with.push(r);
                is_diverse(&with)
            });
            match home {
                Some(b) => {
                    buckets[b].push(r);
                    placed += 1;
                }
                None => unplaced.push(r),
            }
        }
        // The merge, recounting every candidate union from scratch.
        let shortfall = |group: &[u32]| -> usize {
            (0..columns.len())
                .map(|j| {
                    let mut counts: FxHashMap<Vec<ItemId>, usize> = FxHashMap::default();
                    for &r in group {
                        *counts.entry(value(r, j)).or_default() += 1;
                    }
                    match diversity {
                        Diversity::Frequency => {
                            let most = counts.values().copied().max().unwrap_or(0);
                            (most * l).saturating_sub(group.len())
                        }
                        Diversity::Distinct => l.saturating_sub(counts.len()),
                    }
                })
                .fold(0, |a, s| match diversity {
                    Diversity::Frequency => a.max(s),
                    Diversity::Distinct => a + s,
                })
        };
        let (mut merged, mut absorbed, mut suppressed) = (0, 0, Vec::new());
        if !unplaced.is_empty() {
            let mut union = unplaced.clone();
            let mut chosen: Vec<usize> = Vec::new();
            while !is_diverse(&union) {
                let best = (0..buckets.len())
                    .filter(|b| !chosen.contains(b))
                    .map(|b| {
                        let mut with = union.clone();
                        with.extend_from_slice(&buckets[b]);
                        (shortfall(&with), buckets[b].len(), b)
                    })
                    .min();
                let Some((_, _, b)) = best else { break };
                chosen.push(b);
                union.extend_from_slice(&buckets[b]);
            }
            if is_diverse(&union) {
                merged = unplaced.len();
                absorbed = chosen.len();
                let kept: Vec<Vec<u32>> = (0..buckets.len())
                    .filter(|b| !chosen.contains(b))
                    .map(|b| buckets[b].clone())
                    .collect();
                buckets = kept;
                buckets.push(union);
            } else {
                suppressed = unplaced;
                suppressed.sort_unstable();
            }
        }
        RecordPartition {
            buckets,
            leftovers_placed: placed,
            leftovers_merged: merged,
            buckets_absorbed: absorbed,
            suppressed,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn scan_matches_the_brute_force(
            ts in prop::collection::vec(prop::collection::btree_set(0u32..8, 0..5), 1..60),
            p in 2usize..4,
            l in 2usize..4,
            distinct in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let db = TransactionDb::from_int_transactions(ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()));
            let m = db.num_items() as u32;
            let columns: ItemPartition =
                (0..p as u32).map(|j| (0..m).filter(|i| i % p as u32 == j).collect()).collect();
            let diversity = if distinct { Diversity::Distinct } else { Diversity::Frequency };
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let mut order: Vec<u32> = (0..db.len() as u32).collect();
            order.shuffle(&mut rng);
            let values = ColumnValues::new(&db, &columns);
            let fast =
                record_partition(&values, diversity, l, &order, &mut rng.clone(), &Progress::new());
            let slow = reference(&db, &columns, diversity, l, &order, &mut rng);
            prop_assert_eq!(fast, slow);
        }
    }
}
