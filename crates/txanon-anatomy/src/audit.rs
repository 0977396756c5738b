//! The independent checker: re-derives l-diversity, in the reading and for the `l` the auditor
//! names, from the published table, and checks the flattened records and the original against
//! it when given. It works from the publication format and Definition 5 alone: it imports
//! nothing from the algorithm, and every count read from the file is added and multiplied in
//! checked or widened arithmetic, so no value a file can hold wraps into a pass.

use std::collections::HashMap;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::fmt;

use serde::Serialize;
use txanon_data::audit::{MAX_VIOLATIONS, ViolationLog, Violations};
use txanon_data::{ItemId, ParamError, TransactionDb};

use crate::error::AnatomyError;
use crate::params::Diversity;
use crate::table::{AnatomizedTable, Bucket, TABLE_FORMAT, ValueCount};

mod columns;

/// The guarantee an auditor wants verified: l-diversity for this `l`, in this reading. The
/// table's own `l` and reading are printed beside the verdict, never used in its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AnatomyClaim {
    l: u64,
    diversity: Diversity,
}

impl AnatomyClaim {
    /// l-diversity in reading `diversity`.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `l < 2`, which protects nothing.
    pub fn new(l: u64, diversity: Diversity) -> Result<Self, ParamError> {
        if l < 2 {
            return Err(ParamError::OutOfRange {
                name: "l",
                value: l.to_string(),
                reason: "l-diversity protects only for l ≥ 2",
            });
        }
        Ok(Self { l, diversity })
    }

    /// The diversity.
    pub fn l(&self) -> u64 {
        self.l
    }

    /// The reading.
    pub fn diversity(&self) -> Diversity {
        self.diversity
    }
}

/// A way an anatomized publication breaks the claim. Buckets and columns are numbered from 0,
/// in the table's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
// Serialized with its kind, as front ends hand violations over as objects (Python).
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum AnatomyViolation {
    /// The table's format tag is not [`TABLE_FORMAT`].
    Format {
        /// The tag found.
        found: String,
    },
    /// An item listed in two columns, or twice in one.
    ItemInTwoColumns {
        /// The item.
        item: String,
        /// The first column listing it.
        first: usize,
        /// The second.
        second: usize,
    },
    /// A table without buckets.
    NoBucket,
    /// A bucket with another number of columns than the table.
    ColumnCount {
        /// The bucket.
        bucket: usize,
        /// Its columns.
        found: usize,
        /// The table's.
        expected: usize,
    },
    /// A bucket of size 0.
    EmptyBucket {
        /// The bucket.
        bucket: usize,
    },
    /// A value listed with count 0.
    ZeroCount {
        /// The bucket.
        bucket: usize,
        /// The column.
        column: usize,
    },
    /// A value that is not a strictly ascending list of positions within the column.
    MalformedValue {
        /// The bucket.
        bucket: usize,
        /// The column.
        column: usize,
    },
    /// Values not in canonical order (ascending, each once): the order could carry
    /// information, and a value listed twice hides its true count.
    NotCanonical {
        /// The bucket.
        bucket: usize,
        /// The column.
        column: usize,
    },
    /// A column's counts that do not add up to the bucket's size (or overflow doing so).
    SizeMismatch {
        /// The bucket.
        bucket: usize,
        /// The column.
        column: usize,
        /// The counts' sum, `None` beyond 64 bits.
        values: Option<u64>,
        /// The bucket's size.
        size: u64,
    },
    /// Under the frequency reading, a value held by more than `1/l` of its bucket.
    ShareAboveBound {
        /// The bucket.
        bucket: usize,
        /// The column.
        column: usize,
        /// The value, as labels.
        value: Vec<String>,
        /// Records holding it.
        count: u64,
        /// The bucket's size.
        size: u64,
        /// The claim's `l`.
        l: u64,
    },
    /// Under the distinct reading, fewer than `l` values in a bucket and column.
    TooFewDistinct {
        /// The bucket.
        bucket: usize,
        /// The column.
        column: usize,
        /// Distinct values.
        distinct: usize,
        /// The claim's `l`.
        l: u64,
    },
    /// The published records' total overflows 64 bits.
    RecordsOverflow,
    /// The flattened records are not as many as the table's.
    FlattenedRecords {
        /// Records of the table.
        table: u64,
        /// Records of the flattened file.
        flattened: usize,
    },
    /// A flattened record holds an item of no column.
    FlattenedItem {
        /// The item.
        item: String,
    },
    /// A bucket's flattened records whose values in a column are not the table's multiset.
    FlattenedBucket {
        /// The bucket.
        bucket: usize,
        /// The column.
        column: usize,
    },
    /// An item of a column that the original does not have.
    ItemNotInOriginal {
        /// The item.
        item: String,
    },
    /// An item of the original in no column: it would be lost without a word.
    ItemMissing {
        /// The item.
        item: String,
    },
    /// More records published than the original has.
    MoreRecordsThanOriginal {
        /// Published.
        published: u64,
        /// Original.
        original: usize,
    },
    /// A column whose values over the table are not the projection of original records on
    /// it (a sub-multiset, equal when nothing was suppressed).
    ColumnNotFromOriginal {
        /// The column.
        column: usize,
        /// A value published more often than the original holds it, as labels.
        value: Vec<String>,
    },
}

impl fmt::Display for AnatomyViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Format { found } => write!(f, "format {found:?}, expected {TABLE_FORMAT:?}"),
            Self::ItemInTwoColumns { item, first, second } => write!(
                f,
                "item {item:?} is listed in columns {first} and {second}: columns must be disjoint and list each item once"
            ),
            Self::NoBucket => write!(f, "the table has no bucket"),
            Self::ColumnCount { bucket, found, expected } => {
                write!(f, "bucket {bucket} has {found} columns, the table {expected}")
            }
            Self::EmptyBucket { bucket } => write!(f, "bucket {bucket} is empty"),
            Self::ZeroCount { bucket, column } => {
                write!(f, "bucket {bucket}, column {column}: a value with count 0")
            }
            Self::MalformedValue { bucket, column } => write!(
                f,
                "bucket {bucket}, column {column}: a value that is not an ascending list of the column's positions"
            ),
            Self::NotCanonical { bucket, column } => write!(
                f,
                "bucket {bucket}, column {column}: values out of canonical order (each once, ascending)"
            ),
            Self::SizeMismatch { bucket, column, values, size } => match values {
                Some(v) => write!(
                    f,
                    "bucket {bucket}, column {column}: counts add up to {v}, the bucket has {size} records"
                ),
                None => write!(
                    f,
                    "bucket {bucket}, column {column}: counts overflow 64 bits, the bucket has {size} records"
                ),
            },
            Self::ShareAboveBound { bucket, column, value, count, size, l } => write!(
                f,
                "bucket {bucket}, column {column}: value {{{}}} held by {count} of {size} records, more than 1/{l}",
                value.join(",")
            ),
            Self::TooFewDistinct { bucket, column, distinct, l } => write!(
                f,
                "bucket {bucket}, column {column}: {distinct} distinct values, fewer than l = {l}"
            ),
            Self::RecordsOverflow => write!(f, "the buckets' sizes add up beyond 64 bits"),
            Self::FlattenedRecords { table, flattened } => {
                write!(f, "the flattened file has {flattened} records, the table {table}")
            }
            Self::FlattenedItem { item } => {
                write!(f, "the flattened file holds item {item:?}, which no column lists")
            }
            Self::FlattenedBucket { bucket, column } => write!(
                f,
                "bucket {bucket}'s flattened records do not hold the table's values in column {column}"
            ),
            Self::ItemNotInOriginal { item } => {
                write!(f, "item {item:?} of the table is not an item of the original")
            }
            Self::ItemMissing { item } => {
                write!(f, "item {item:?} of the original is in no column")
            }
            Self::MoreRecordsThanOriginal { published, original } => {
                write!(f, "{published} records published, the original has {original}")
            }
            Self::ColumnNotFromOriginal { column, value } => write!(
                f,
                "column {column}: value {{{}}} is published more often than the original holds it",
                value.join(",")
            ),
        }
    }
}

/// Anatomy's violations, as the error carries them.
pub type AnatomyViolations = Violations<AnatomyViolation>;

/// What the audit found in a table that keeps the claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnatomyAuditReport {
    /// The diversity verified.
    pub l: u64,
    /// In which reading.
    pub diversity: Diversity,
    /// What the table claims of itself (printed, never used).
    pub table_claims: (usize, Diversity),
    /// Buckets.
    pub buckets: usize,
    /// Published records.
    pub records: u64,
    /// The smallest bucket.
    pub smallest_bucket: u64,
    /// The largest share of a bucket held by one value of one column (at most `1/l` under
    /// the frequency reading).
    pub worst_share: f64,
    /// Whether the flattened records were checked against the table.
    pub flattened_checked: bool,
    /// Records of the original not published (suppressed), when the original was given.
    pub suppressed: Option<u64>,
}

/// Verifies that `table` is an l-diverse multi-dimension anatomy under `claim`, from the
/// table alone: the format is known; the columns' items are pairwise disjoint, each listed
/// once; every bucket has one multiset per column, positive counts adding up to its size (at
/// least 1), values that are ascending lists of positions in their column, listed once each in
/// ascending order; and in every bucket and column the most frequent value (the empty set
/// included) is held by at most `1/l` of the bucket (frequency), or there are at least `l`
/// distinct values (distinct).
///
/// With `flattened` (the published records, `anonymized.dat`): as many records as the table,
/// no item outside the columns, and each bucket's records (bucket after bucket, in the table's
/// order) hold in every column exactly the table's multiset. With `original`: every item of
/// the original in a column and every column item in the original, no more records than the
/// original, and each column's values over the table a sub-multiset of the original records'
/// projections on it (equal when nothing was suppressed).
///
/// # Errors
/// [`AnatomyError::Audit`] with the violations found.
///
/// # Complexity
/// `O(S + N)` expected time: the table's size plus the occurrences of the databases given.
pub fn audit(
    table: &AnatomizedTable,
    claim: &AnatomyClaim,
    flattened: Option<&TransactionDb>,
    original: Option<&TransactionDb>,
) -> Result<AnatomyAuditReport, AnatomyError> {
    let mut log = ViolationLog::new();
    let l = claim.l;
    if table.format != TABLE_FORMAT {
        log.push(AnatomyViolation::Format { found: table.format.clone() });
    }
    let positions = columns_are_disjoint(table, &mut log);
    if table.buckets.is_empty() {
        log.push(AnatomyViolation::NoBucket);
    }
    let mut records = Some(0u64);
    let (mut smallest, mut worst) = (u64::MAX, 0.0f64);
    // Buckets checked in blocks on rayon, each into its own log, joined in table order; the
    // check stops after the block that fills the log, which says so when that block held
    // more violations than the log had room for.
    const BLOCK: usize = 1 << 14;
    for (block, buckets) in table.buckets.chunks(BLOCK).enumerate() {
        if log.is_full() {
            break;
        }
        let checked: Vec<(f64, ViolationLog<AnatomyViolation>)> = (0..buckets.len())
            .into_par_iter()
            .map(|k| {
                let mut found = ViolationLog::new();
                let share = bucket_is_diverse(table, block * BLOCK + k, claim, &mut found);
                (share, found)
            })
            .collect();
        for (bucket, (share, found)) in buckets.iter().zip(checked) {
            let size = bucket.size as u64;
            records = records.and_then(|r| r.checked_add(size));
            smallest = smallest.min(size);
            worst = worst.max(share);
            log.append(found);
        }
    }
    let Some(records) = records else {
        log.push(AnatomyViolation::RecordsOverflow);
        return Err(AnatomyError::Audit(log.finish(()).expect_err("a violation")));
    };
    // The checks against other files assume a well-formed table.
    log.stop_if_any().map_err(AnatomyError::Audit)?;
    if let Some(flattened) = flattened {
        check_flattened(table, &positions, records, flattened, &mut log);
    }
    // Flattened records that passed hold exactly the table's multisets, bucket by bucket.
    let equal_to_table = flattened.filter(|_| log.is_empty());
    let mut suppressed = None;
    if let Some(original) = original {
        suppressed = check_original(table, &positions, records, original, equal_to_table, &mut log);
    }
    log.finish(AnatomyAuditReport {
        l,
        diversity: claim.diversity,
        table_claims: (table.l, table.diversity),
        buckets: table.buckets.len(),
        records,
        smallest_bucket: smallest,
        worst_share: worst,
        flattened_checked: flattened.is_some(),
        suppressed,
    })
    .map_err(AnatomyError::Audit)
}

/// Check: the columns' items are pairwise disjoint, each listed once. Returns each item
/// label's (column, position), for projecting the flattened and original records onto the
/// columns.
fn columns_are_disjoint<'t>(
    table: &'t AnatomizedTable,
    log: &mut ViolationLog<AnatomyViolation>,
) -> HashMap<&'t str, (usize, u32)> {
    let mut positions: HashMap<&str, (usize, u32)> = HashMap::new();
    for (j, items) in table.columns.iter().enumerate() {
        for (k, item) in items.iter().enumerate() {
            if let Some((first, _)) = positions.insert(item, (j, k as u32)) {
                log.push(AnatomyViolation::ItemInTwoColumns {
                    item: item.clone(),
                    first,
                    second: j,
                });
            }
        }
    }
    positions
}

/// Check: bucket `b` is not empty, has one multiset per column, and each is well formed and
/// diverse ([`column_is_diverse`]). Returns the largest share of one value in its columns.
fn bucket_is_diverse(
    table: &AnatomizedTable,
    b: usize,
    claim: &AnatomyClaim,
    log: &mut ViolationLog<AnatomyViolation>,
) -> f64 {
    let bucket = &table.buckets[b];
    let size = bucket.size as u64;
    if size == 0 {
        log.push(AnatomyViolation::EmptyBucket { bucket: b });
    }
    let p = table.columns.len();
    if bucket.columns.len() != p {
        log.push(AnatomyViolation::ColumnCount {
            bucket: b,
            found: bucket.columns.len(),
            expected: p,
        });
        return 0.0;
    }
    let mut worst = 0.0f64;
    for j in 0..p {
        if let Some(share) = column_is_diverse(table, b, j, claim, log) {
            worst = worst.max(share);
        }
    }
    worst
}

/// Check: column `j` of bucket `b` has positive counts of values that are ascending lists of
/// positions in the column, listed once each in ascending order, adding up to the bucket's
/// size; and its most frequent value is held by at most `1/l` of the bucket (frequency), or
/// it has at least `l` distinct values (distinct). Returns the most frequent value's share,
/// when the multiset is well formed.
fn column_is_diverse(
    table: &AnatomizedTable,
    b: usize,
    j: usize,
    claim: &AnatomyClaim,
    log: &mut ViolationLog<AnatomyViolation>,
) -> Option<f64> {
    let l = claim.l;
    let size = table.buckets[b].size as u64;
    let multiset = &table.buckets[b].columns[j];
    let width = table.columns[j].len() as u64;
    let (mut total, mut most) = (Some(0u64), (0u64, None::<&[u32]>));
    let (mut malformed, mut zero) = (false, false);
    for ValueCount(count, value) in multiset {
        let count = *count as u64;
        zero |= count == 0;
        malformed |= value.windows(2).any(|w| w[0] >= w[1])
            || value.last().is_some_and(|&k| u64::from(k) >= width);
        total = total.and_then(|t| t.checked_add(count));
        if count > most.0 {
            most = (count, Some(value));
        }
    }
    if zero {
        log.push(AnatomyViolation::ZeroCount { bucket: b, column: j });
    }
    if malformed {
        log.push(AnatomyViolation::MalformedValue { bucket: b, column: j });
        return None;
    }
    if multiset.windows(2).any(|w| w[0].1 >= w[1].1) {
        log.push(AnatomyViolation::NotCanonical { bucket: b, column: j });
    }
    if total != Some(size) {
        log.push(AnatomyViolation::SizeMismatch { bucket: b, column: j, values: total, size });
        return None;
    }
    match claim.diversity {
        Diversity::Frequency => {
            // count / size > 1 / l, in 128 bits: neither side can wrap.
            if u128::from(most.0) * u128::from(l) > u128::from(size) {
                let value = most.1.unwrap_or(&[]);
                log.push(AnatomyViolation::ShareAboveBound {
                    bucket: b,
                    column: j,
                    value: value.iter().map(|&k| table.columns[j][k as usize].clone()).collect(),
                    count: most.0,
                    size,
                    l,
                });
            }
        }
        Diversity::Distinct => {
            if (multiset.len() as u64) < l {
                log.push(AnatomyViolation::TooFewDistinct {
                    bucket: b,
                    column: j,
                    distinct: multiset.len(),
                    l,
                });
            }
        }
    }
    (size > 0).then(|| most.0 as f64 / size as f64)
}

fn check_flattened(
    table: &AnatomizedTable,
    positions: &HashMap<&str, (usize, u32)>,
    records: u64,
    flattened: &TransactionDb,
    log: &mut ViolationLog<AnatomyViolation>,
) {
    if flattened.len() as u64 != records {
        log.push(AnatomyViolation::FlattenedRecords { table: records, flattened: flattened.len() });
        return;
    }
    let at = positions_in(flattened, positions);
    let mut starts = Vec::with_capacity(table.buckets.len());
    table.buckets.iter().fold(0usize, |start, bucket| {
        starts.push(start);
        start + bucket.size
    });
    // Buckets in parallel, each checked in reused buffers, a block at a time so that a table
    // broken throughout stops the check (and bounds what it holds) once the log is full; the
    // violations in table order.
    const BLOCK: usize = 1 << 14;
    let indexed: Vec<(usize, &Bucket, usize)> = table
        .buckets
        .iter()
        .zip(starts)
        .enumerate()
        .map(|(b, (bucket, start))| (b, bucket, start))
        .collect();
    for block in indexed.chunks(BLOCK) {
        let found: Vec<AnatomyViolation> = block
            .par_iter()
            .map_init(
                || Projection::new(table.columns.len()),
                |projection, &(b, bucket, start)| {
                    projection.clear();
                    for r in start..start + bucket.size {
                        if let Err(item) = projection.push(flattened.transaction(r), &at) {
                            let item = flattened.label(item).to_string();
                            return vec![AnatomyViolation::FlattenedItem { item }];
                        }
                    }
                    // The table's multisets are canonical (checked above: ascending, distinct
                    // values), so the bucket's records hold one exactly when their sorted
                    // values run through it.
                    (0..bucket.columns.len())
                        .filter(|&j| {
                            let expected =
                                bucket.columns[j].iter().map(|ValueCount(c, v)| (&v[..], *c));
                            !projection.sorted_runs(j).eq(expected)
                        })
                        .map(|column| AnatomyViolation::FlattenedBucket { bucket: b, column })
                        .collect()
                },
            )
            .flatten_iter()
            .collect();
        for violation in found {
            if !log.push(violation) {
                return;
            }
        }
    }
}

/// Each item of `db`, by id: its (column, position) in the table, looked up by label once.
fn positions_in(
    db: &TransactionDb,
    positions: &HashMap<&str, (usize, u32)>,
) -> Vec<Option<(usize, u32)>> {
    (0..db.num_items() as ItemId)
        .map(|i| positions.get(db.label(i).to_string().as_str()).copied())
        .collect()
}

/// Records' values in each column, as sorted positions, in buffers reused from record to record
/// and bucket to bucket (a bucket's check allocates nothing once they have grown).
struct Projection {
    /// `values[j]`: the positions of every value pushed in column `j`, value after value.
    values: Vec<Vec<u32>>,
    /// `spans[j]`: each pushed value of column `j`, as a range of `values[j]`.
    spans: Vec<Vec<(u32, u32)>>,
    /// One record's (column, position) pairs.
    scratch: Vec<(usize, u32)>,
}

impl Projection {
    fn new(columns: usize) -> Self {
        Projection {
            values: vec![Vec::new(); columns],
            spans: vec![Vec::new(); columns],
            scratch: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.values.iter_mut().for_each(Vec::clear);
        self.spans.iter_mut().for_each(Vec::clear);
    }

    /// Adds record `t`'s value in every column; the first item of no column as the error.
    fn push(&mut self, t: &[ItemId], at: &[Option<(usize, u32)>]) -> Result<(), ItemId> {
        self.scratch.clear();
        for &i in t {
            let Some(place) = at[i as usize] else { return Err(i) };
            self.scratch.push(place);
        }
        self.scratch.sort_unstable();
        let mut rest = &self.scratch[..];
        for (j, (values, spans)) in self.values.iter_mut().zip(&mut self.spans).enumerate() {
            let here = rest.iter().take_while(|(c, _)| *c == j).count();
            let from = values.len() as u32;
            values.extend(rest[..here].iter().map(|&(_, k)| k));
            spans.push((from, values.len() as u32));
            rest = &rest[here..];
        }
        Ok(())
    }

    /// Column `j`'s distinct values in ascending order, each with how many records hold it.
    fn sorted_runs(&mut self, j: usize) -> impl Iterator<Item = (&[u32], usize)> + '_ {
        let values = &self.values[j];
        let value = move |&(from, to): &(u32, u32)| &values[from as usize..to as usize];
        self.spans[j].sort_unstable_by(|x, y| value(x).cmp(value(y)));
        self.spans[j]
            .chunk_by(move |x, y| value(x) == value(y))
            .map(move |run| (value(&run[0]), run.len()))
    }
}

/// The checks against the original; the number of records suppressed. `flattened`, when given,
/// holds exactly the table's multisets.
fn check_original(
    table: &AnatomizedTable,
    positions: &HashMap<&str, (usize, u32)>,
    records: u64,
    original: &TransactionDb,
    flattened: Option<&TransactionDb>,
    log: &mut ViolationLog<AnatomyViolation>,
) -> Option<u64> {
    for items in &table.columns {
        for item in items {
            if original.labels().find(item).is_none() {
                log.push(AnatomyViolation::ItemNotInOriginal { item: item.clone() });
            }
        }
    }
    for i in 0..original.num_items() as ItemId {
        let label = original.label(i).to_string();
        if !positions.contains_key(label.as_str()) {
            log.push(AnatomyViolation::ItemMissing { item: label });
        }
    }
    if records > original.len() as u64 {
        log.push(AnatomyViolation::MoreRecordsThanOriginal {
            published: records,
            original: original.len(),
        });
    }
    if !log.is_empty() {
        return None;
    }
    let at = positions_in(original, positions);
    // The table's values in a column are the flattened records' there, so the records, read
    // once and in file order, decide whether any value falls short; only then is the table
    // walked, in its order, to name the values that do.
    if let Some(flattened) = flattened {
        let widths: Vec<usize> = table.columns.iter().map(Vec::len).collect();
        let at_flattened = positions_in(flattened, positions);
        if !columns::falls_short(&widths, original, &at, flattened, &at_flattened, None) {
            return Some(original.len() as u64 - records);
        }
    }
    // Column by column in parallel: the original's values counted, then each bucket's taken
    // from them; the shortfalls as (bucket, column, value index), merged in table order.
    let mut short: Vec<(usize, usize, usize)> = (0..table.columns.len())
        .into_par_iter()
        .flat_map_iter(|j| {
            let mut available = ValueCounts::default();
            let mut value = Vec::new();
            for t in original.iter() {
                value.clear();
                value.extend(t.iter().filter_map(|&i| match at[i as usize] {
                    Some((c, k)) if c == j => Some(k),
                    _ => None,
                }));
                value.sort_unstable();
                available.add(&value);
            }
            let mut short = Vec::new();
            for (b, bucket) in table.buckets.iter().enumerate() {
                for (v, ValueCount(count, value)) in bucket.columns[j].iter().enumerate() {
                    if !available.take(value, *count as u64) && short.len() < MAX_VIOLATIONS {
                        short.push((b, j, v));
                    }
                }
            }
            short
        })
        .collect();
    short.sort_unstable();
    for (b, j, v) in short {
        let value = &table.buckets[b].columns[j][v].1;
        let labels = value.iter().map(|&k| table.columns[j][k as usize].clone()).collect();
        if !log.push(AnatomyViolation::ColumnNotFromOriginal { column: j, value: labels }) {
            return None;
        }
    }
    Some(original.len() as u64 - records)
}

/// How many records hold each value of one column. A value of at most three positions below
/// 2²⁰ (nearly every value of sparse data) is a key packed into one word, so counting ten
/// million records neither allocates nor follows a pointer per record.
#[derive(Default)]
struct ValueCounts {
    short: FxHashMap<u64, u64>,
    long: FxHashMap<Vec<u32>, u64>,
}

impl ValueCounts {
    /// `value` (ascending positions) as one word: its length in the top two bits, then 20 bits
    /// per position; `None` when it does not fit.
    fn packed(value: &[u32]) -> Option<u64> {
        const BITS: u32 = 20;
        if value.len() > 3 || value.iter().any(|&k| k >= 1 << BITS) {
            return None;
        }
        let positions = value.iter().fold(0u64, |key, &k| (key << BITS) | u64::from(k));
        Some(positions | (value.len() as u64) << 62)
    }

    fn add(&mut self, value: &[u32]) {
        match Self::packed(value) {
            Some(key) => *self.short.entry(key).or_default() += 1,
            None => match self.long.get_mut(value) {
                Some(count) => *count += 1,
                None => {
                    self.long.insert(value.to_vec(), 1);
                }
            },
        }
    }

    /// Takes `count` records of `value`; false (and none left) when fewer remain.
    fn take(&mut self, value: &[u32], count: u64) -> bool {
        let left = match Self::packed(value) {
            Some(key) => self.short.get_mut(&key),
            None => self.long.get_mut(value),
        };
        match left {
            Some(left) if *left >= count => {
                *left -= count;
                true
            }
            Some(left) => {
                *left = 0;
                false
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every strictly ascending value of at most `longest` positions drawn from `edge`
    /// (ascending), the empty one first.
    pub(super) fn ascending_values(edge: &[u32], longest: usize) -> Vec<Vec<u32>> {
        let mut values: Vec<Vec<u32>> = vec![vec![]];
        for len in 1..=longest {
            let mut next = Vec::new();
            for v in values.iter().filter(|v| v.len() == len - 1) {
                for &k in edge.iter().filter(|&&k| v.last().is_none_or(|&l| k > l)) {
                    let mut w = v.clone();
                    w.push(k);
                    next.push(w);
                }
            }
            values.extend(next);
        }
        values
    }

    /// Every value of at most three positions drawn from the edges of the packed range, and
    /// longer ones, counted and taken back: distinct values never share a count (the packed
    /// key keeps the length, so `[5]` and `[0, 5]` differ).
    #[test]
    fn value_counts_keep_distinct_values_apart() {
        let values = ascending_values(&[0, 1, 5, (1 << 20) - 1, 1 << 20, u32::MAX], 4);
        let mut counts = ValueCounts::default();
        for (n, v) in values.iter().enumerate() {
            for _ in 0..=n {
                counts.add(v);
            }
        }
        for (n, v) in values.iter().enumerate() {
            assert!(!counts.take(v, n as u64 + 2), "{v:?} holds only {}", n + 1);
        }
        let mut counts = ValueCounts::default();
        for (n, v) in values.iter().enumerate() {
            for _ in 0..=n {
                counts.add(v);
            }
        }
        for (n, v) in values.iter().enumerate() {
            assert!(counts.take(v, n as u64 + 1), "{v:?}");
            assert!(!counts.take(v, 1), "{v:?} was taken whole");
        }
    }
}
