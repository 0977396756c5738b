//! The independent checker of a sliced table: `p(t, s)` recomputed from the published rows and
//! the original tuples' values alone, as text. It shares no code with the algorithm's
//! incremental check (which works on interned ids and sums kept across splits).

use std::collections::HashMap;

use serde::Serialize;

use crate::cell::Resolver;
use crate::diversity::TOLERANCE;
use crate::error::SlicingError;
use crate::microdata::Microdata;
use crate::sliced::SlicedTable;

/// What the audit found.
#[derive(Debug, Clone, Serialize)]
pub struct SlicingAudit {
    /// Original tuples checked.
    pub tuples: usize,
    /// Buckets published.
    pub buckets: usize,
    /// ℓ verified.
    pub l: usize,
    /// The largest `p(t, s)` over all tuples and sensitive values.
    pub worst: f64,
    /// Mean number of matching buckets of an original tuple.
    pub mean_matching_buckets: f64,
}

/// Verifies that `table` is an ℓ-diverse slicing of `original`: the same attributes, one
/// published row per original tuple with each column's values accounted for, and for every
/// original tuple `t` and sensitive value `s`, `p(t, s) ≤ 1/ℓ` over `t`'s matching buckets.
///
/// # Errors
/// [`SlicingError::Audit`] naming the first violation.
pub fn audit_sliced(
    table: &SlicedTable,
    original: &Microdata,
    l: usize,
) -> Result<SlicingAudit, SlicingError> {
    let fail = |m: String| Err(SlicingError::Audit(m));
    let meta = &table.meta;
    let sensitive_name = &original.names()[original.sensitive()];
    if &meta.sensitive != sensitive_name {
        return fail(format!(
            "sensitive attribute {:?}, expected {sensitive_name:?}",
            meta.sensitive
        ));
    }
    if !meta.columns.last().is_some_and(|c| c.contains(&meta.sensitive)) {
        return fail("the sensitive attribute is not in the last column".into());
    }
    let mut published: Vec<&String> = meta.columns.iter().flatten().collect();
    published.sort();
    let mut names: Vec<&String> = original.names().iter().collect();
    names.sort();
    if published != names {
        return fail(format!("published attributes {published:?}, original {names:?}"));
    }
    if table.rows.len() != original.len() {
        return fail(format!("{} rows published for {} tuples", table.rows.len(), original.len()));
    }
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
                attrs[d]
                    .push(original.index_of(name).map_err(|e| SlicingError::Audit(e.to_string()))?);
            }
            at += 1;
        }
    }
    // Buckets: per dimension < c − 1 the count of each cell id; the last: (q id, s) counts.
    let mut resolvers: Vec<Resolver> = (0..c).map(|_| Resolver::default()).collect();
    let mut bucket_of: HashMap<u32, usize> = HashMap::new();
    let mut sizes: Vec<f64> = Vec::new();
    let mut counts: Vec<Vec<HashMap<usize, f64>>> = Vec::new();
    let mut sensitive: Vec<HashMap<usize, HashMap<&str, f64>>> = Vec::new();
    let mut published_total: Vec<HashMap<usize, usize>> = vec![HashMap::new(); c];
    for row in &table.rows {
        let b = *bucket_of.entry(row.bucket).or_insert_with(|| {
            sizes.push(0.0);
            counts.push(vec![HashMap::new(); c - 1]);
            sensitive.push(HashMap::new());
            sizes.len() - 1
        });
        sizes[b] += 1.0;
        for d in 0..c {
            let cells: Vec<String> = positions[d].iter().map(|&p| row.cells[p].clone()).collect();
            let id = resolvers[d].id_of_cells(&cells);
            *published_total[d].entry(id).or_default() += 1;
            if d + 1 < c {
                *counts[b][d].entry(id).or_default() += 1.0;
            } else {
                *sensitive[b].entry(id).or_default().entry(&row.cells[s_position]).or_default() +=
                    1.0;
            }
        }
    }
    // Which buckets hold each cell id, per dimension.
    let mut holders: Vec<HashMap<usize, Vec<usize>>> = vec![HashMap::new(); c];
    for b in 0..sizes.len() {
        for d in 0..c - 1 {
            for &id in counts[b][d].keys() {
                holders[d].entry(id).or_default().push(b);
            }
        }
        for &id in sensitive[b].keys() {
            holders[c - 1].entry(id).or_default().push(b);
        }
    }
    // Every original tuple resolved; the published counts must be the original's.
    let mut original_total: Vec<HashMap<usize, usize>> = vec![HashMap::new(); c];
    // Each distinct key: its first row and how many tuples share it.
    let mut keys: HashMap<Vec<usize>, (usize, usize)> = HashMap::new();
    for r in 0..original.len() {
        let mut key = Vec::with_capacity(c);
        for d in 0..c {
            let values: Vec<String> =
                attrs[d].iter().map(|&a| original.text(a, r).to_string()).collect();
            let Some(id) = resolvers[d].resolve(&values) else {
                return fail(format!(
                    "tuple {} has column values {values:?} published nowhere",
                    r + 1
                ));
            };
            *original_total[d].entry(id).or_default() += 1;
            key.push(id);
        }
        keys.entry(key).or_insert((r, 0)).1 += 1;
    }
    if original_total != published_total {
        return fail("the published column values are not the original tuples' values".into());
    }
    let bound = 1.0 / l as f64 * (1.0 + TOLERANCE);
    let mut worst = 0.0f64;
    let mut matching_total = 0usize;
    let mut key_list: Vec<(&Vec<usize>, &(usize, usize))> = keys.iter().collect();
    key_list.sort_by_key(|(_, (r, _))| *r);
    for (key, &(r, tuples)) in key_list {
        let shortest = (0..c).min_by_key(|&d| holders[d].get(&key[d]).map_or(0, Vec::len));
        let candidates =
            shortest.and_then(|d| holders[d].get(&key[d])).cloned().unwrap_or_default();
        let mut den = 0.0;
        let mut num: HashMap<&str, f64> = HashMap::new();
        let mut matching = 0usize;
        for b in candidates {
            let mut p = 1.0;
            for d in 0..c - 1 {
                p *= counts[b][d].get(&key[d]).copied().unwrap_or(0.0) / sizes[b];
            }
            let Some(dist) = sensitive[b].get(&key[c - 1]) else { continue };
            if p == 0.0 {
                continue;
            }
            matching += 1;
            for (&s, &k) in dist {
                let term = p * k / sizes[b];
                den += term;
                *num.entry(s).or_default() += term;
            }
        }
        if matching == 0 {
            return fail(format!("tuple {} matches no bucket", r + 1));
        }
        matching_total += matching * tuples;
        for (s, x) in num {
            let p = x / den;
            worst = worst.max(p);
            if p > bound {
                return fail(format!(
                    "tuple {} has p(t, {s:?}) = {p:.6} > 1/{l} over {matching} matching buckets",
                    r + 1
                ));
            }
        }
    }
    Ok(SlicingAudit {
        tuples: original.len(),
        buckets: sizes.len(),
        l,
        worst,
        mean_matching_buckets: matching_total as f64 / original.len() as f64,
    })
}
