//! The checker of a sliced table: the buckets re-derived as a partition of the original tuples,
//! the columns tested for permutation, and `p(t, s)` recomputed from the published rows and the
//! original tuples' values alone, as text. It shares no code with the algorithm's incremental
//! check (which works on interned ids and sums kept across splits).

use std::collections::{BTreeMap, HashMap, HashSet};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde::Serialize;
use txanon_data::audit::ViolationLog;

use super::{SlicingClaim, SlicingViolation};
use crate::cell::Resolver;
use crate::error::SlicingError;
use crate::microdata::Microdata;
use crate::params::TOLERANCE;
use crate::sliced::SlicedTable;

/// What the audit found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlicingAuditReport {
    /// Original tuples checked.
    pub tuples: usize,
    /// Buckets published.
    pub buckets: usize,
    /// ℓ verified.
    pub l: u64,
    /// What the publication claims (printed, never used).
    pub table_claims_l: usize,
    /// The largest `p(t, s)` over all tuples and sensitive values.
    pub worst: f64,
    /// Mean number of matching buckets of an original tuple.
    pub mean_matching_buckets: f64,
    /// Published rows equal to an original tuple of their bucket.
    pub identical_rows: u64,
    /// What independent permutations of the columns give on average.
    pub identical_rows_expected: f64,
}

/// A tuple's (or a published row's) resolved values: the cell id of each dimension, and the
/// sensitive value's id.
type Key = (Vec<usize>, u32);

/// Replicates of the permutation test: enough for a stable mean and spread, cheap beside the
/// diversity check.
const REPLICATES: usize = 100;

/// Verifies that `table` is an ℓ-diverse slicing of `original` under `claim`:
/// 1. the same attributes, the sensitive one in the last column, one row per tuple;
/// 2. every column's values over the table are the original tuples' (the last column's with
///    their sensitive values: none invented, none dropped);
/// 3. the tuples can be placed in the buckets, each in one holding all its column values, so
///    that every bucket's column values are exactly its tuples' (found by placing the tuples
///    that fit one bucket only, then the others, fewest candidates first; a publication whose
///    buckets are a partition of the tuples passes unless many tuples fit several buckets in
///    a way this order cannot untangle);
/// 4. the columns are permuted: the rows equal to an original tuple of their bucket number at
///    most what independent permutations of the bucket's columns give (mean plus six standard
///    deviations over 100 seeded replicates, plus 3);
/// 5. for every tuple `t` and sensitive value `s`, `p(t, s) ≤ 1/ℓ` over `t`'s matching
///    buckets (within a relative 10⁻⁹ for floating-point sums).
///
/// # Errors
/// [`SlicingError::Audit`] with the violations found.
pub fn audit(
    table: &SlicedTable,
    original: &Microdata,
    claim: &SlicingClaim,
) -> Result<SlicingAuditReport, SlicingError> {
    let mut log = ViolationLog::new();
    let stop =
        |log: &mut ViolationLog<SlicingViolation>| log.stop_if_any().map_err(SlicingError::Audit);
    shape_is_the_originals(table, original, &mut log);
    stop(&mut log)?;
    let mut resolved = Resolved::of(table, original);
    column_values_are_the_tuples(&resolved, &mut log);
    stop(&mut log)?;
    // Resolved above, every one (check 2 stops otherwise): taken, not cloned.
    let tuple_keys: Vec<Key> = std::mem::take(&mut resolved.tuple_keys)
        .into_iter()
        .map(|k| k.expect("resolved"))
        .collect();
    let buckets = Buckets::count(&resolved);
    let keys = distinct_keys(&tuple_keys);
    let placed = tuples_placed_in_buckets(&buckets, &keys, &mut log);
    stop(&mut log)?;
    let permutation = columns_are_permuted(&resolved, &placed, &buckets, &mut log);
    let diversity = every_tuple_diverse(&buckets, &keys, &resolved.s_names, claim.l(), &mut log);
    log.finish(SlicingAuditReport {
        tuples: original.len(),
        buckets: buckets.len(),
        l: claim.l(),
        table_claims_l: table.meta.l,
        worst: diversity.worst,
        mean_matching_buckets: diversity.matching_total as f64 / original.len().max(1) as f64,
        identical_rows: permutation.identical,
        identical_rows_expected: permutation.expected,
    })
    .map_err(SlicingError::Audit)
}

/// Check 1: the same attributes, the sensitive one in the last column, one row per tuple.
fn shape_is_the_originals(
    table: &SlicedTable,
    original: &Microdata,
    log: &mut ViolationLog<SlicingViolation>,
) {
    let meta = &table.meta;
    let sensitive_name = &original.names()[original.sensitive()];
    if &meta.sensitive != sensitive_name {
        log.push(SlicingViolation::SensitiveAttribute {
            found: meta.sensitive.clone(),
            expected: sensitive_name.clone(),
        });
    }
    if !meta.columns.last().is_some_and(|c| c.contains(&meta.sensitive)) {
        log.push(SlicingViolation::SensitiveNotLast);
    }
    let mut published: Vec<String> = meta.columns.iter().flatten().cloned().collect();
    published.sort();
    let mut names: Vec<String> = original.names().to_vec();
    names.sort();
    if published != names {
        log.push(SlicingViolation::Attributes { published, original: names });
    }
    if table.rows.len() != original.len() {
        log.push(SlicingViolation::RowCount {
            published: table.rows.len(),
            original: original.len(),
        });
    }
}

/// The published rows and the original tuples in one vocabulary: per dimension (column `d`'s
/// attributes, the last column's without the sensitive one) a cell id, and the sensitive
/// value's id.
struct Resolved<'a> {
    /// Dimensions: the published columns.
    c: usize,
    /// Each published row as (bucket index, cell id per dimension, sensitive id).
    rows: Vec<(usize, Vec<usize>, u32)>,
    /// Buckets, in order of first appearance.
    buckets: usize,
    /// Each original tuple's key, or `None` when a value of it is in no published cell.
    tuple_keys: Vec<Option<Key>>,
    /// The sensitive values by id.
    s_names: Vec<&'a str>,
}

impl<'a> Resolved<'a> {
    fn of(table: &'a SlicedTable, original: &Microdata) -> Self {
        let meta = &table.meta;
        // Dimension d's attributes as positions in a published row and as attribute indices
        // of the original.
        let c = meta.columns.len();
        let mut positions: Vec<Vec<usize>> = vec![Vec::new(); c];
        let mut attrs: Vec<Vec<usize>> = vec![Vec::new(); c];
        let mut s_position = 0;
        let mut at = 0;
        for (d, column) in meta.columns.iter().enumerate() {
            for name in column {
                if name == &meta.sensitive {
                    s_position = at;
                } else {
                    positions[d].push(at);
                    attrs[d].push(original.index_of(name).expect("the same attributes"));
                }
                at += 1;
            }
        }
        let mut s_ids: HashMap<&str, u32> = HashMap::new();
        let mut s_names: Vec<&str> = Vec::new();
        let mut resolvers: Vec<Resolver> = (0..c).map(|_| Resolver::default()).collect();
        let mut bucket_of: HashMap<u32, usize> = HashMap::new();
        let mut rows: Vec<(usize, Vec<usize>, u32)> = Vec::with_capacity(table.rows.len());
        for row in &table.rows {
            let next = bucket_of.len();
            let b = *bucket_of.entry(row.bucket).or_insert(next);
            let ids: Vec<usize> = (0..c)
                .map(|d| {
                    let cells: Vec<String> =
                        positions[d].iter().map(|&p| row.cells[p].clone()).collect();
                    resolvers[d].id_of_cells(&cells)
                })
                .collect();
            let value = row.cells[s_position].as_str();
            let sid = *s_ids.entry(value).or_insert_with(|| {
                s_names.push(value);
                s_names.len() as u32 - 1
            });
            rows.push((b, ids, sid));
        }
        let s_attr = original.sensitive();
        let tuple_keys = (0..original.len())
            .map(|r| {
                let mut key = Vec::with_capacity(c);
                for d in 0..c {
                    let values: Vec<String> =
                        attrs[d].iter().map(|&a| original.text(a, r).to_string()).collect();
                    match resolvers[d].resolve(&values) {
                        Some(id) => key.push(id),
                        None => break,
                    }
                }
                match s_ids.get(original.text(s_attr, r)).copied() {
                    Some(sid) if key.len() == c => Some((key, sid)),
                    _ => None,
                }
            })
            .collect();
        Resolved { c, rows, buckets: bucket_of.len(), tuple_keys, s_names }
    }
}

/// Check 2: every column's values over the table are the original tuples' (the last column's
/// with their sensitive values): none invented, none dropped.
fn column_values_are_the_tuples(resolved: &Resolved<'_>, log: &mut ViolationLog<SlicingViolation>) {
    let c = resolved.c;
    for d in 0..c {
        let mut balance: HashMap<(usize, u32), i64> = HashMap::new();
        let last = d + 1 == c;
        for (_, ids, sid) in &resolved.rows {
            *balance.entry((ids[d], if last { *sid } else { 0 })).or_default() -= 1;
        }
        let mut unresolved = false;
        for key in &resolved.tuple_keys {
            match key {
                Some((ids, sid)) => {
                    *balance.entry((ids[d], if last { *sid } else { 0 })).or_default() += 1
                }
                None => unresolved = true,
            }
        }
        if unresolved || balance.values().any(|&v| v != 0) {
            log.push(SlicingViolation::ColumnValues { column: d });
        }
    }
}

/// The published buckets counted: per bucket its size, per dimension but the last the count
/// of each cell id, for the last the count of each (cell id, sensitive id); and which buckets
/// hold each cell id, per dimension.
struct Buckets {
    c: usize,
    sizes: Vec<u64>,
    counts: Vec<Vec<HashMap<usize, u64>>>,
    /// Ordered, so that every sum over it adds its terms in one order: the same figures for
    /// the same publication, run after run.
    last_counts: Vec<BTreeMap<(usize, u32), u64>>,
    holders: Vec<HashMap<usize, Vec<usize>>>,
}

impl Buckets {
    fn count(resolved: &Resolved<'_>) -> Self {
        let (c, buckets) = (resolved.c, resolved.buckets);
        let mut sizes = vec![0u64; buckets];
        let mut counts: Vec<Vec<HashMap<usize, u64>>> = vec![vec![HashMap::new(); c - 1]; buckets];
        let mut last_counts: Vec<BTreeMap<(usize, u32), u64>> = vec![BTreeMap::new(); buckets];
        for (b, ids, sid) in &resolved.rows {
            sizes[*b] += 1;
            for d in 0..c - 1 {
                *counts[*b][d].entry(ids[d]).or_default() += 1;
            }
            *last_counts[*b].entry((ids[c - 1], *sid)).or_default() += 1;
        }
        let mut holders: Vec<HashMap<usize, Vec<usize>>> = vec![HashMap::new(); c];
        for b in 0..buckets {
            for d in 0..c - 1 {
                for &id in counts[b][d].keys() {
                    holders[d].entry(id).or_default().push(b);
                }
            }
            let mut seen = HashSet::new();
            for &(id, _) in last_counts[b].keys() {
                if seen.insert(id) {
                    holders[c - 1].entry(id).or_default().push(b);
                }
            }
        }
        Buckets { c, sizes, counts, last_counts, holders }
    }

    fn len(&self) -> usize {
        self.sizes.len()
    }

    /// The buckets holding every value of `key`'s dimension with the fewest holders.
    fn holding(&self, key: &Key) -> Vec<usize> {
        let (ids, _) = key;
        let shortest =
            (0..self.c).min_by_key(|&d| self.holders[d].get(&ids[d]).map_or(0, Vec::len));
        shortest.and_then(|d| self.holders[d].get(&ids[d])).cloned().unwrap_or_default()
    }

    /// The buckets that hold every value of `key`, its sensitive value with its last column's.
    fn candidates(&self, key: &Key) -> Vec<usize> {
        let (ids, sid) = key;
        let c = self.c;
        self.holding(key)
            .into_iter()
            .filter(|&b| {
                (0..c - 1).all(|d| self.counts[b][d].contains_key(&ids[d]))
                    && self.last_counts[b].contains_key(&(ids[c - 1], *sid))
            })
            .collect()
    }
}

/// The distinct keys of the tuples, each with its first tuple and multiplicity, in order of
/// first tuple.
fn distinct_keys(tuple_keys: &[Key]) -> Vec<(&Key, (usize, u64))> {
    let mut keys: HashMap<&Key, (usize, u64)> = HashMap::new();
    for (r, key) in tuple_keys.iter().enumerate() {
        keys.entry(key).or_insert((r, 0)).1 += 1;
    }
    let mut key_list: Vec<(&Key, (usize, u64))> = keys.into_iter().collect();
    key_list.sort_by_key(|(_, (r, _))| *r);
    key_list
}

/// Check 3: the tuples can be placed in the buckets, each in one holding all its column
/// values, so that every bucket's column values are exactly its tuples'. Returns the keys
/// placed in each bucket.
fn tuples_placed_in_buckets<'k>(
    buckets: &Buckets,
    keys: &[(&'k Key, (usize, u64))],
    log: &mut ViolationLog<SlicingViolation>,
) -> Vec<HashMap<&'k Key, u64>> {
    let c = buckets.c;
    let mut remaining_counts = buckets.counts.clone();
    let mut remaining_last = buckets.last_counts.clone();
    let mut placed: Vec<HashMap<&Key, u64>> = vec![HashMap::new(); buckets.len()];
    // (candidates' count, candidates, key, tuples of that key, first tuple).
    type Placing<'a> = (usize, Vec<usize>, &'a Key, u64, usize);
    let mut order: Vec<Placing<'_>> = keys
        .iter()
        .map(|&(key, (r, m))| {
            let cands = buckets.candidates(key);
            (cands.len(), cands, key, m, r)
        })
        .collect();
    order.sort_by_key(|o| (o.0, o.4));
    for (_, cands, key, mut m, r) in order {
        let (ids, sid) = key;
        for b in cands {
            if m == 0 {
                break;
            }
            let room = (0..c - 1)
                .map(|d| remaining_counts[b][d].get(&ids[d]).copied().unwrap_or(0))
                .chain([remaining_last[b].get(&(ids[c - 1], *sid)).copied().unwrap_or(0)])
                .min()
                .unwrap_or(0);
            let take = room.min(m);
            if take == 0 {
                continue;
            }
            for d in 0..c - 1 {
                *remaining_counts[b][d].get_mut(&ids[d]).expect("room") -= take;
            }
            *remaining_last[b].get_mut(&(ids[c - 1], *sid)).expect("room") -= take;
            *placed[b].entry(key).or_default() += take;
            m -= take;
        }
        if m > 0 && !log.push(SlicingViolation::NoBucketFor { tuple: r + 1 }) {
            break;
        }
    }
    placed
}

/// What the permutation test found.
struct Permutation {
    identical: u64,
    expected: f64,
}

/// Check 4: the columns are permuted: the rows equal to an original tuple of their bucket
/// number at most what independent permutations of the bucket's columns give (mean plus six
/// standard deviations over the replicates, plus 3).
fn columns_are_permuted(
    resolved: &Resolved<'_>,
    placed: &[HashMap<&Key, u64>],
    buckets: &Buckets,
    log: &mut ViolationLog<SlicingViolation>,
) -> Permutation {
    let placed_keys: Vec<HashSet<u64>> =
        placed.iter().map(|p| p.keys().map(|(ids, sid)| key_hash(ids, *sid)).collect()).collect();
    let (identical, expected, spread) =
        permutation_test(&resolved.rows, &placed_keys, buckets.len(), resolved.c);
    let threshold = expected + 6.0 * spread + 3.0;
    if identical as f64 > threshold {
        log.push(SlicingViolation::Unpermuted { identical, expected, threshold });
    }
    Permutation { identical, expected }
}

/// What the diversity check found.
struct Diversity {
    worst: f64,
    matching_total: u64,
}

/// Check 5: for every tuple `t` and sensitive value `s`, `p(t, s) ≤ 1/ℓ` over `t`'s matching
/// buckets (within a relative tolerance for floating-point sums).
fn every_tuple_diverse(
    buckets: &Buckets,
    keys: &[(&Key, (usize, u64))],
    s_names: &[&str],
    l: u64,
    log: &mut ViolationLog<SlicingViolation>,
) -> Diversity {
    let c = buckets.c;
    let bound = 1.0 / l as f64 * (1.0 + TOLERANCE);
    let mut worst = 0.0f64;
    let mut matching_total = 0u64;
    for &(key, (r, tuples)) in keys {
        if log.is_full() {
            break;
        }
        let (ids, _) = key;
        let mut den = 0.0;
        let mut num: HashMap<u32, f64> = HashMap::new();
        let mut matching = 0u64;
        for b in buckets.holding(key) {
            let size = buckets.sizes[b] as f64;
            let mut p = 1.0;
            for (d, id) in ids.iter().enumerate().take(c - 1) {
                p *= buckets.counts[b][d].get(id).copied().unwrap_or(0) as f64 / size;
            }
            if p == 0.0 {
                continue;
            }
            let mut any = false;
            for (&(id, s), &k) in &buckets.last_counts[b] {
                if id != ids[c - 1] {
                    continue;
                }
                any = true;
                let term = p * k as f64 / size;
                den += term;
                *num.entry(s).or_default() += term;
            }
            matching += u64::from(any);
        }
        matching_total += matching * tuples;
        let mut num: Vec<(u32, f64)> = num.into_iter().collect();
        num.sort_by_key(|&(s, _)| s);
        for (s, x) in num {
            let p = x / den;
            worst = worst.max(p);
            if p > bound {
                log.push(SlicingViolation::Inference {
                    tuple: r + 1,
                    value: s_names[s as usize].to_string(),
                    probability: p,
                    l,
                });
                break;
            }
        }
    }
    Diversity { worst, matching_total }
}

/// One column's value of a row, mixed into 64 bits with its dimension: a row's key is the
/// wrapping sum of its columns' mixes (a collision, at odds of 2⁻⁶⁴, would only count a row
/// as identical in the test and its replicates alike).
fn mix(d: usize, id: usize, sid: u32) -> u64 {
    txanon_data::mix64((d as u64) << 56 ^ (id as u64) << 20 ^ u64::from(sid))
}

/// The row key's hash: see [`mix`].
fn key_hash(ids: &[usize], sid: u32) -> u64 {
    let c = ids.len();
    ids.iter()
        .enumerate()
        .map(|(d, &id)| mix(d, id, if d + 1 == c { sid } else { 0 }))
        .fold(0u64, u64::wrapping_add)
}

/// The number of rows equal to an original tuple of their bucket (`placed`, by key hash), and
/// its mean and standard deviation over seeded replicates in which every column of every bucket
/// is permuted independently.
fn permutation_test(
    rows: &[(usize, Vec<usize>, u32)],
    placed: &[HashSet<u64>],
    buckets: usize,
    c: usize,
) -> (u64, f64, f64) {
    // Each bucket's columns as mixes; the last column's with the sensitive value.
    let mut columns: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); c]; buckets];
    let mut observed = 0u64;
    for (b, ids, sid) in rows {
        for (d, column) in columns[*b].iter_mut().enumerate() {
            column.push(mix(d, ids[d], if d + 1 == c { *sid } else { 0 }));
        }
        observed += u64::from(placed[*b].contains(&key_hash(ids, *sid)));
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed);
    let mut samples = Vec::with_capacity(REPLICATES);
    for _ in 0..REPLICATES {
        let mut identical = 0u64;
        for (b, bucket) in columns.iter_mut().enumerate() {
            for column in bucket.iter_mut() {
                column.shuffle(&mut rng);
            }
            let rows = bucket.first().map_or(0, Vec::len);
            identical += (0..rows)
                .filter(|&j| {
                    let key = bucket.iter().map(|column| column[j]).fold(0u64, u64::wrapping_add);
                    placed[b].contains(&key)
                })
                .count() as u64;
        }
        samples.push(identical as f64);
    }
    let mean = samples.iter().sum::<f64>() / REPLICATES as f64;
    let variance =
        samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (REPLICATES - 1) as f64;
    (observed, mean, variance.sqrt())
}
