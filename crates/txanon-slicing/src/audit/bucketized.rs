//! The checker of Anatomy's two tables: groups whose sensitive counts add up to their QIT rows
//! with no value above `1/ℓ`, and, against the original, the tuples' quasi-identifiers and
//! sensitive values exactly.

use std::collections::HashMap;

use serde::Serialize;
use txanon_data::audit::ViolationLog;

use super::{SlicingClaim, SlicingViolation};
use crate::bucketized::AnatomyTables;
use crate::error::SlicingError;
use crate::microdata::Microdata;

/// What the anatomy audit found.
#[derive(Debug, Clone, Serialize)]
pub struct AnatomyBaselineAuditReport {
    /// Groups.
    pub groups: usize,
    /// QIT rows.
    pub rows: usize,
    /// The largest share of one sensitive value in a group (at most 1/ℓ).
    pub worst: f64,
    /// What the tables claim (printed, never used).
    pub table_claims_l: usize,
}

/// Verifies Anatomy's tables under `claim`: every group's sensitive counts add up to its QIT
/// rows (in 64 bits, checked), no value above `1/ℓ` of its group, no group without values;
/// against `original`: the QIT rows are the tuples' quasi-identifiers and the ST counts their
/// sensitive values, as multisets.
///
/// # Errors
/// [`SlicingError::Audit`] with the violations found.
pub fn audit_anatomy(
    tables: &AnatomyTables,
    original: &Microdata,
    claim: &SlicingClaim,
) -> Result<AnatomyBaselineAuditReport, SlicingError> {
    let l = claim.l();
    let mut log = ViolationLog::new();
    let expected = &original.names()[original.sensitive()];
    if &tables.meta.sensitive != expected {
        log.push(SlicingViolation::SensitiveAttribute {
            found: tables.meta.sensitive.clone(),
            expected: expected.clone(),
        });
    }
    let mut sizes: HashMap<u32, u64> = HashMap::new();
    for (g, _) in &tables.qit {
        *sizes.entry(*g).or_default() += 1;
    }
    // Per group: the counts' sum (None past 64 bits) and the largest count.
    let mut totals: HashMap<u32, (Option<u64>, u64)> = HashMap::new();
    for (g, _, c) in &tables.st {
        let t = totals.entry(*g).or_insert((Some(0), 0));
        t.0 = t.0.and_then(|sum| sum.checked_add(u64::from(*c)));
        t.1 = t.1.max(u64::from(*c));
    }
    let mut groups: Vec<u32> = sizes.keys().chain(totals.keys()).copied().collect();
    groups.sort_unstable();
    groups.dedup();
    let mut worst = 0.0f64;
    for g in groups {
        let rows = sizes.get(&g).copied().unwrap_or(0);
        let (total, max) = totals.get(&g).copied().unwrap_or((Some(0), 0));
        if total != Some(rows) {
            log.push(SlicingViolation::GroupSize {
                group: g,
                values: total.unwrap_or(u64::MAX),
                rows,
            });
            continue;
        }
        if rows == 0 {
            continue;
        }
        worst = worst.max(max as f64 / rows as f64);
        if u128::from(max) * u128::from(l) > u128::from(rows) {
            log.push(SlicingViolation::ShareAboveBound {
                class: format!("group {g}"),
                count: max,
                size: rows,
                l,
            });
        }
    }
    log.stop_if_any().map_err(SlicingError::Audit)?;
    let s = original.sensitive();
    let qi_index: Option<Vec<usize>> =
        tables.meta.quasi_identifiers.iter().map(|n| original.index_of(n).ok()).collect();
    let Some(qi_index) = qi_index else {
        log.push(SlicingViolation::TablesNotFromOriginal);
        return Err(SlicingError::Audit(log.finish(()).expect_err("a violation")));
    };
    let mut want: HashMap<Vec<&str>, i64> = HashMap::new();
    let mut want_s: HashMap<&str, i128> = HashMap::new();
    for r in 0..original.len() {
        *want.entry(qi_index.iter().map(|&a| original.text(a, r)).collect()).or_default() += 1;
        *want_s.entry(original.text(s, r)).or_default() += 1;
    }
    for (_, qi) in &tables.qit {
        *want.entry(qi.iter().map(String::as_str).collect()).or_default() -= 1;
    }
    for (_, v, c) in &tables.st {
        *want_s.entry(v).or_default() -= i128::from(*c);
    }
    if want.values().any(|&v| v != 0) {
        log.push(SlicingViolation::TablesNotFromOriginal);
    }
    if want_s.values().any(|&v| v != 0) {
        log.push(SlicingViolation::SensitiveValues);
    }
    if log.is_empty() {
        check_groups(tables, original, &qi_index, &mut log);
    }
    log.finish(AnatomyBaselineAuditReport {
        groups: totals.len(),
        rows: tables.qit.len(),
        worst,
        table_claims_l: tables.meta.l,
    })
    .map_err(SlicingError::Audit)
}

/// Each group's sensitive counts against what its tuples can hold. A quasi-identifier `q` held
/// by `n` original tuples, `k` of them with sensitive value `v`, and published in `c` QIT rows of
/// a group, brings that group between `max(0, c − (n − k))` and `min(c, k)` tuples with `v`,
/// whichever of `q`'s tuples it holds: summed over the group's rows, the bounds its ST count of
/// `v` must lie within. Where `q` identifies tuples that agree on `v` the bounds meet, so values
/// moved between groups are caught.
fn check_groups(
    tables: &AnatomyTables,
    original: &Microdata,
    qi_index: &[usize],
    log: &mut ViolationLog<SlicingViolation>,
) {
    let s = original.sensitive();
    // Per quasi-identifier: its tuples, and how many hold each sensitive value.
    let mut held: HashMap<Vec<&str>, (u64, HashMap<&str, u64>)> = HashMap::new();
    for r in 0..original.len() {
        let entry =
            held.entry(qi_index.iter().map(|&a| original.text(a, r)).collect()).or_default();
        entry.0 += 1;
        *entry.1.entry(original.text(s, r)).or_default() += 1;
    }
    // Per group and quasi-identifier: its QIT rows.
    let mut rows: HashMap<(u32, Vec<&str>), u64> = HashMap::new();
    for (g, qi) in &tables.qit {
        *rows.entry((*g, qi.iter().map(String::as_str).collect())).or_default() += 1;
    }
    let mut bounds: HashMap<(u32, &str), (u64, u64)> = HashMap::new();
    for ((g, qi), c) in &rows {
        let Some((n, values)) = held.get(qi) else { continue };
        for (&v, &k) in values {
            let entry = bounds.entry((*g, v)).or_default();
            entry.0 += c.saturating_sub(n - k);
            entry.1 += (*c).min(k);
        }
    }
    let mut found: Vec<(u32, String, u64, u64, u64)> = Vec::new();
    for (g, v, c) in &tables.st {
        let (least, most) = bounds.remove(&(*g, v.as_str())).unwrap_or((0, 0));
        let c = u64::from(*c);
        if c < least || c > most {
            found.push((*g, v.clone(), c, least, most));
        }
    }
    found.extend(
        bounds
            .into_iter()
            .filter(|&(_, (least, _))| least > 0)
            .map(|((g, v), (least, most))| (g, v.to_string(), 0, least, most)),
    );
    found.sort_unstable();
    for (group, value, published, least, most) in found {
        if !log.push(SlicingViolation::GroupSensitive { group, value, published, least, most }) {
            return;
        }
    }
}
