//! The checker of Mondrian's generalized table: classes of at least `k` rows with no sensitive
//! value above `1/ℓ`, and, against the original, every tuple covered by a class that holds its
//! sensitive value.

use std::collections::HashMap;

use serde::Serialize;
use txanon_data::audit::ViolationLog;

use super::{SlicingClaim, SlicingViolation};
use crate::cell::Cell;
use crate::error::SlicingError;
use crate::generalized::GeneralizedTable;
use crate::microdata::Microdata;

/// What the Mondrian audit found.
#[derive(Debug, Clone, Serialize)]
pub struct MondrianAuditReport {
    /// Rows.
    pub rows: usize,
    /// Equivalence classes.
    pub classes: usize,
    /// The smallest class (at least k).
    pub smallest_class: u64,
    /// The largest share of one sensitive value in a class (at most 1/ℓ).
    pub worst: f64,
    /// What the table claims, `(k, ℓ)` (printed, never used).
    pub table_claims: (usize, usize),
}

/// Verifies a generalized table under `claim` (its `k` defaults to 2 when the claim has none):
/// rows with equal quasi-identifying cells form a class; every class holds at least `k` rows
/// and no sensitive value in more than `1/ℓ` of them. Against `original`: as many rows, and
/// every original tuple placed in a class whose every cell covers the tuple's value and which
/// has a row of the tuple's sensitive value left (so the classes generalize a partition of the
/// tuples, and the sensitive values are the original's).
///
/// # Errors
/// [`SlicingError::Audit`] with the violations found.
pub fn audit_generalized(
    table: &GeneralizedTable,
    original: &Microdata,
    claim: &SlicingClaim,
) -> Result<MondrianAuditReport, SlicingError> {
    let (l, k) = (claim.l(), claim.k().unwrap_or(2));
    let mut log = ViolationLog::new();
    let meta = &table.meta;
    let expected = &original.names()[original.sensitive()];
    let Some(s) = meta.attributes.iter().position(|a| a == &meta.sensitive) else {
        log.push(SlicingViolation::SensitiveAttribute {
            found: meta.sensitive.clone(),
            expected: expected.clone(),
        });
        return Err(SlicingError::Audit(log.finish(()).expect_err("a violation")));
    };
    if &meta.sensitive != expected {
        log.push(SlicingViolation::SensitiveAttribute {
            found: meta.sensitive.clone(),
            expected: expected.clone(),
        });
    }
    let mut published: Vec<&String> = meta.attributes.iter().collect();
    published.sort();
    let mut names: Vec<&String> = original.names().iter().collect();
    names.sort();
    if published != names {
        log.push(SlicingViolation::Attributes {
            published: published.into_iter().cloned().collect(),
            original: names.into_iter().cloned().collect(),
        });
    }
    if table.rows.len() != original.len() {
        log.push(SlicingViolation::RowCount {
            published: table.rows.len(),
            original: original.len(),
        });
    }
    log.stop_if_any().map_err(SlicingError::Audit)?;
    let class_list = classes(table, s);
    let (smallest, worst) = classes_are_k_anonymous_and_diverse(&class_list, k, l, &mut log);
    log.stop_if_any().map_err(SlicingError::Audit)?;
    every_tuple_covered(table, original, s, &class_list, &mut log);
    log.finish(MondrianAuditReport {
        rows: table.rows.len(),
        classes: class_list.len(),
        smallest_class: if class_list.is_empty() { 0 } else { smallest },
        worst,
        table_claims: (meta.k, meta.l),
    })
    .map_err(SlicingError::Audit)
}

/// A class: its quasi-identifying cells, and its rows by sensitive value.
type Class<'t> = (Vec<&'t str>, HashMap<&'t str, u64>);

/// The table's classes (rows with equal quasi-identifying cells), in order of their cells.
/// `s` is the sensitive attribute's position.
fn classes(table: &GeneralizedTable, s: usize) -> Vec<Class<'_>> {
    let mut classes: HashMap<Vec<&str>, HashMap<&str, u64>> = HashMap::new();
    for row in &table.rows {
        let qi: Vec<&str> =
            row.iter().enumerate().filter(|&(a, _)| a != s).map(|(_, c)| c.as_str()).collect();
        *classes.entry(qi).or_default().entry(&row[s]).or_default() += 1;
    }
    let mut class_list: Vec<(Vec<&str>, HashMap<&str, u64>)> = classes.into_iter().collect();
    class_list.sort_by(|a, b| a.0.cmp(&b.0));
    class_list
}

/// Check: every class holds at least `k` rows and no sensitive value in more than `1/l` of
/// them. Returns the smallest class and the largest share of one value.
fn classes_are_k_anonymous_and_diverse(
    class_list: &[Class<'_>],
    k: u64,
    l: u64,
    log: &mut ViolationLog<SlicingViolation>,
) -> (u64, f64) {
    let mut smallest = u64::MAX;
    let mut worst = 0.0f64;
    for (qi, dist) in class_list {
        let size: u64 = dist.values().sum();
        let max = dist.values().copied().max().unwrap_or(0);
        smallest = smallest.min(size);
        worst = worst.max(max as f64 / size as f64);
        let class = || format!("[{}]", qi.join(", "));
        if size < k {
            log.push(SlicingViolation::ClassTooSmall { class: class(), size, k });
        }
        if u128::from(max) * u128::from(l) > u128::from(size) {
            log.push(SlicingViolation::ShareAboveBound { class: class(), count: max, size, l });
        }
    }
    (smallest, worst)
}

/// Check: every original tuple is placed in a class whose every cell covers the tuple's value
/// and which has a row of the tuple's sensitive value left (tuples covered by fewest classes
/// first): the classes generalize a partition of the tuples.
fn every_tuple_covered(
    table: &GeneralizedTable,
    original: &Microdata,
    s: usize,
    class_list: &[Class<'_>],
    log: &mut ViolationLog<SlicingViolation>,
) {
    let meta = &table.meta;
    let qi_attrs: Vec<usize> = (0..meta.attributes.len()).filter(|&a| a != s).collect();
    let original_index: Vec<usize> = qi_attrs
        .iter()
        .map(|&a| original.index_of(&meta.attributes[a]).expect("the same attributes"))
        .collect();
    let parsed: Vec<Vec<Cell>> =
        class_list.iter().map(|(qi, _)| qi.iter().map(|c| Cell::parse(c)).collect()).collect();
    let mut left: Vec<HashMap<&str, u64>> = class_list.iter().map(|(_, d)| d.clone()).collect();
    let os = original.sensitive();
    // A tuple's quasi-identifying values and sensitive value.
    type Tuple<'a> = (Vec<&'a str>, &'a str);
    let mut tuples: HashMap<Tuple<'_>, (usize, u64)> = HashMap::new();
    for r in 0..original.len() {
        let values: Vec<&str> = original_index.iter().map(|&a| original.text(a, r)).collect();
        tuples.entry((values, original.text(os, r))).or_insert((r, 0)).1 += 1;
    }
    let mut tuple_list: Vec<(Tuple<'_>, (usize, u64))> = tuples.into_iter().collect();
    // Tuples covered by fewest classes first.
    let mut with_cover: Vec<(Vec<usize>, Tuple<'_>, usize, u64)> = tuple_list
        .drain(..)
        .map(|((values, sv), (r, m))| {
            let cover: Vec<usize> = (0..parsed.len())
                .filter(|&x| parsed[x].iter().zip(&values).all(|(cell, v)| cell.covers(v)))
                .collect();
            (cover, (values, sv), r, m)
        })
        .collect();
    with_cover.sort_by_key(|(cover, _, r, _)| (cover.len(), *r));
    for (cover, (_, sv), r, mut m) in with_cover {
        for x in cover {
            if let Some(room) = left[x].get_mut(sv) {
                let take = (*room).min(m);
                *room -= take;
                m -= take;
            }
            if m == 0 {
                break;
            }
        }
        if m > 0 && !log.push(SlicingViolation::NotCovered { tuple: r + 1 }) {
            break;
        }
    }
}
