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
    stop(&mut log)?;
    // Dimension d: column d's attributes (the last column's without the sensitive one), as
    // positions in a published row and as attribute indices of the original.
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
    // Sensitive values as ids.
    let mut s_ids: HashMap<&str, u32> = HashMap::new();
    let mut s_names: Vec<&str> = Vec::new();
    // Each published row as (bucket index, cell id per dimension, sensitive id).
    let mut resolvers: Vec<Resolver> = (0..c).map(|_| Resolver::default()).collect();
    let mut bucket_of: HashMap<u32, usize> = HashMap::new();
    let mut bucket_ids: Vec<u32> = Vec::new();
    let mut rows: Vec<(usize, Vec<usize>, u32)> = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let b = *bucket_of.entry(row.bucket).or_insert_with(|| {
            bucket_ids.push(row.bucket);
            bucket_ids.len() - 1
        });
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
    let buckets = bucket_ids.len();
    // Every original tuple resolved to its key: cell ids per dimension and sensitive value.
    let mut tuple_keys: Vec<Option<Key>> = Vec::with_capacity(original.len());
    let s_attr = original.sensitive();
    for r in 0..original.len() {
        let mut key = Vec::with_capacity(c);
        for d in 0..c {
            let values: Vec<String> =
                attrs[d].iter().map(|&a| original.text(a, r).to_string()).collect();
            match resolvers[d].resolve(&values) {
                Some(id) => key.push(id),
                None => break,
            }
        }
        let sid = s_ids.get(original.text(s_attr, r)).copied();
        match sid {
            Some(sid) if key.len() == c => tuple_keys.push(Some((key, sid))),
            _ => tuple_keys.push(None),
        }
    }
    // 2. Column multisets over the whole table.
    for d in 0..c {
        let mut balance: HashMap<(usize, u32), i64> = HashMap::new();
        let last = d + 1 == c;
        for (_, ids, sid) in &rows {
            *balance.entry((ids[d], if last { *sid } else { 0 })).or_default() -= 1;
        }
        let mut unresolved = false;
        for key in &tuple_keys {
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
    stop(&mut log)?;
    let tuple_keys: Vec<Key> = tuple_keys.into_iter().map(|k| k.expect("resolved")).collect();

    // Per bucket: its size, per dimension < c − 1 the count of each cell id, and for the last
    // the count of each (cell id, sensitive id).
    let mut sizes = vec![0u64; buckets];
    let mut counts: Vec<Vec<HashMap<usize, u64>>> = vec![vec![HashMap::new(); c - 1]; buckets];
    // Ordered, so that every sum below adds its terms in one order: the same figures for the
    // same publication, run after run.
    let mut last_counts: Vec<BTreeMap<(usize, u32), u64>> = vec![BTreeMap::new(); buckets];
    for (b, ids, sid) in &rows {
        sizes[*b] += 1;
        for d in 0..c - 1 {
            *counts[*b][d].entry(ids[d]).or_default() += 1;
        }
        *last_counts[*b].entry((ids[c - 1], *sid)).or_default() += 1;
    }
    // Which buckets hold each cell id, per dimension.
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
    // Distinct keys, with their first tuple and multiplicity.
    let mut keys: HashMap<&Key, (usize, u64)> = HashMap::new();
    for (r, key) in tuple_keys.iter().enumerate() {
        keys.entry(key).or_insert((r, 0)).1 += 1;
    }
    let mut key_list: Vec<(&Key, (usize, u64))> = keys.iter().map(|(k, v)| (*k, *v)).collect();
    key_list.sort_by_key(|(_, (r, _))| *r);

    // 3. Place the tuples in buckets.
    let candidates_of = |key: &Key| -> Vec<usize> {
        let (ids, sid) = key;
        let shortest = (0..c).min_by_key(|&d| holders[d].get(&ids[d]).map_or(0, Vec::len));
        let list = shortest.and_then(|d| holders[d].get(&ids[d])).cloned().unwrap_or_default();
        list.into_iter()
            .filter(|&b| {
                (0..c - 1).all(|d| counts[b][d].contains_key(&ids[d]))
                    && last_counts[b].contains_key(&(ids[c - 1], *sid))
            })
            .collect()
    };
    let mut remaining_counts = counts.clone();
    let mut remaining_last = last_counts.clone();
    let mut placed: Vec<HashMap<&Key, u64>> = vec![HashMap::new(); buckets];
    // (candidates' count, candidates, key, tuples of that key, first tuple).
    type Placing<'a> = (usize, Vec<usize>, &'a Key, u64, usize);
    let mut order: Vec<Placing<'_>> = key_list
        .iter()
        .map(|&(key, (r, m))| {
            let cands = candidates_of(key);
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
    stop(&mut log)?;

    // 4. The permutation test.
    let placed_keys: Vec<HashSet<u64>> =
        placed.iter().map(|p| p.keys().map(|(ids, sid)| key_hash(ids, *sid)).collect()).collect();
    let (identical, expected, spread) = permutation_test(&rows, &placed_keys, buckets, c);
    let threshold = expected + 6.0 * spread + 3.0;
    if identical as f64 > threshold {
        log.push(SlicingViolation::Unpermuted { identical, expected, threshold });
    }

    // 5. p(t, s) for every distinct key.
    let l = claim.l();
    let bound = 1.0 / l as f64 * (1.0 + TOLERANCE);
    let mut worst = 0.0f64;
    let mut matching_total = 0u64;
    for (key, (r, tuples)) in key_list {
        if log.is_full() {
            break;
        }
        let (ids, _) = key;
        let shortest = (0..c).min_by_key(|&d| holders[d].get(&ids[d]).map_or(0, Vec::len));
        let candidates =
            shortest.and_then(|d| holders[d].get(&ids[d])).cloned().unwrap_or_default();
        let mut den = 0.0;
        let mut num: HashMap<u32, f64> = HashMap::new();
        let mut matching = 0u64;
        for b in candidates {
            let size = sizes[b] as f64;
            let mut p = 1.0;
            for d in 0..c - 1 {
                p *= counts[b][d].get(&ids[d]).copied().unwrap_or(0) as f64 / size;
            }
            if p == 0.0 {
                continue;
            }
            let mut any = false;
            for (&(id, s), &k) in &last_counts[b] {
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
    log.finish(SlicingAuditReport {
        tuples: original.len(),
        buckets,
        l,
        table_claims_l: meta.l,
        worst,
        mean_matching_buckets: matching_total as f64 / original.len().max(1) as f64,
        identical_rows: identical,
        identical_rows_expected: expected,
    })
    .map_err(SlicingError::Audit)
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
