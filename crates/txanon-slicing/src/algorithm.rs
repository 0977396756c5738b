//! Slicing: attribute partition, tuple partition under the diversity check, publication, audit.

use crate::Slicing;
use std::collections::VecDeque;
use std::time::{Duration, Instant};
use txanon_data::Family;

use serde::Serialize;

use crate::attributes::partition_attributes;
use crate::audit::{SlicingAuditReport, audit};
use crate::diversity::{BucketCounts, DiversityState, Keys, naive_check};
use crate::encode::Encoding;
use crate::error::SlicingError;
use crate::microdata::Microdata;
use crate::params::publication_rng;
use crate::params::{CutPolicy, ValidSlicingParams};
use crate::sliced::SlicedTable;
use crate::split::Splitter;

/// What the tuple partition did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SlicingStats {
    /// Distinct keys (a tuple's column values outside the sensitive attribute).
    pub keys: usize,
    /// Splits attempted (each one diversity check).
    pub splits_tried: usize,
    /// Splits kept.
    pub splits_kept: usize,
    /// Final buckets.
    pub buckets: usize,
    /// Time in the diversity check (finding matching keys and updating their sums). Never
    /// serialized: a publication describes the data, not the run.
    #[serde(skip)]
    pub check_time: Duration,
    /// Time of the whole tuple partition, the check included (not serialized either).
    #[serde(skip)]
    pub partition_time: Duration,
    /// The largest `p(t, s)` of the final buckets, as the incremental state has it.
    pub worst: f64,
}

/// The result of [`anonymize`].
#[derive(Debug, Clone)]
pub struct SlicingPublication {
    /// The publication.
    pub table: SlicedTable,
    /// The attribute partition, as attribute indices of the input.
    pub columns: Vec<Vec<usize>>,
    /// What the tuple partition did.
    pub stats: SlicingStats,
    /// The independent check of the publication against the input.
    pub audit: SlicingAuditReport,
}

/// Slices `data` into ℓ-diverse buckets (the TKDE paper's Algorithms 1 and 2), publishes the
/// result with every column permuted within its bucket, and audits the publication.
///
/// Tuple partition: a queue starts with the whole table; the first bucket is cut as Mondrian
/// would (widest non-sensitive attribute, at its median); the two halves replace it if every
/// tuple stays ℓ-diverse over all buckets, else the bucket is final (or, with
/// [`CutPolicy::AnyCut`], the next widest attribute's cut is tried).
///
/// # Errors
/// [`SlicingError::Schema`] for columns that do not fit the data; [`SlicingError::Infeasible`]
/// when even the whole table as one bucket is not ℓ-diverse; [`SlicingError::Audit`] if the
/// publication fails its check (a bug: nothing should be published then).
pub fn anonymize(
    data: &Microdata,
    params: &ValidSlicingParams,
) -> Result<SlicingPublication, SlicingError> {
    if data.is_empty() {
        return Err(SlicingError::Infeasible("the table has no row".into()));
    }
    let columns = partition_attributes(data, params.columns(), params.bins())?;
    let enc = Encoding::new(data, columns.clone(), params.generalize());
    let (buckets, stats) =
        partition_tuples(data, &enc, params.l(), params.cut(), params.cross_check())?;
    let mut rng = publication_rng(params.seed(), data);
    let table =
        SlicedTable::publish(data, &enc, &buckets, params.l(), params.generalize(), &mut rng);
    let audit = audit(&table, data, &Slicing::claim(params, data)?)?;
    Ok(SlicingPublication { table, columns, stats, audit })
}

/// Algorithm 1 with the incremental check; buckets as row lists.
pub(crate) fn partition_tuples(
    data: &Microdata,
    enc: &Encoding,
    l: usize,
    policy: CutPolicy,
    cross_check: bool,
) -> Result<(Vec<Vec<u32>>, SlicingStats), SlicingError> {
    let started = Instant::now();
    let dims: Vec<usize> = (0..data.attributes()).filter(|&a| a != data.sensitive()).collect();
    let mut splitter = Splitter::new(data, dims);
    let keys = Keys::new(enc);
    let all: Vec<u32> = (0..data.len() as u32).collect();
    let whole = BucketCounts::new(enc, &all);
    let mut stats = SlicingStats { keys: keys.len(), ..SlicingStats::default() };
    let mut state = DiversityState::new(&keys, &whole, l, enc.s_domain);
    if !state.holds() {
        let last = enc.columns.last().expect("two columns at least");
        let mates: Vec<&str> = last
            .iter()
            .filter(|&&a| a != data.sensitive())
            .map(|&a| data.names()[a].as_str())
            .collect();
        let why = if mates.is_empty() {
            "a sensitive value is held by more than 1/l of the tuples".to_string()
        } else {
            format!(
                "the sensitive attribute's column also holds {}, whose values predict it; \
                 put it alone (--sensitive-alone), choose the columns, or generalize them",
                mates.join(", ")
            )
        };
        return Err(SlicingError::Infeasible(format!(
            "even the whole table as one bucket gives some tuple p(t, s) = {:.4} > 1/{l}, so \
             no bucketing of these columns is {l}-diverse: {why}",
            state.worst()
        )));
    }
    let mut queue = VecDeque::from([(all, whole)]);
    let mut done: Vec<Vec<u32>> = Vec::new();
    while let Some((rows, counts)) = queue.pop_front() {
        let mut dims = splitter.by_width(&rows);
        if policy == CutPolicy::FirstCut {
            dims.truncate(1);
        }
        let mut kept = None;
        for a in dims {
            let Some((left, right)) = splitter.cut(&rows, a) else { continue };
            let checked = Instant::now();
            let left_counts = BucketCounts::new(enc, &left);
            let right_counts = BucketCounts::new(enc, &right);
            let passed = state.try_split(&keys, &counts, &left_counts, &right_counts);
            stats.check_time += checked.elapsed();
            stats.splits_tried += 1;
            if cross_check {
                let mut candidate: Vec<Vec<u32>> = done.clone();
                candidate.extend(queue.iter().map(|(r, _)| r.clone()));
                candidate.push(left.clone());
                candidate.push(right.clone());
                let naive = naive_check(enc, &candidate, l);
                assert_eq!(passed, naive, "incremental and naive checks differ");
            }
            if passed {
                kept = Some(((left, left_counts), (right, right_counts)));
                break;
            }
        }
        match kept {
            Some((left, right)) => {
                stats.splits_kept += 1;
                queue.push_back(left);
                queue.push_back(right);
            }
            None => done.push(rows),
        }
    }
    stats.buckets = done.len();
    stats.worst = state.worst();
    stats.partition_time = started.elapsed();
    Ok((done, stats))
}
