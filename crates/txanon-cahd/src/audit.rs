//! The independent checker: re-derives the privacy degree from the published groups alone.

use std::collections::HashSet;

use serde::Serialize;

use crate::error::CahdError;
use crate::publish::{GROUPS_FORMAT, PublishedGroups};

/// What the audit found in published groups that pass.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    /// The degree verified.
    pub p: usize,
    /// Groups.
    pub groups: usize,
    /// Published transactions.
    pub records: usize,
    /// The smallest group.
    pub smallest_group: usize,
    /// The achieved degree `min over groups and sensitive items of |G| / count` (the paper's
    /// `p^P`); infinite when no group holds a sensitive item.
    pub achieved: f64,
}

/// Verifies, from the published groups alone, privacy degree `p` (default: the one claimed):
/// the format is known; the sensitive items are listed once each; every group holds at least
/// one transaction; no QID itemset holds a sensitive item or an item twice; every group lists
/// each of its sensitive items once, with a count from 1 to the group's size; and every count
/// `c` satisfies `c · p ≤ |G|`, so no sensitive item is linked to a transaction of its group
/// with probability above `1/p`.
///
/// # Errors
/// [`CahdError::Audit`] naming the first violation found.
pub fn audit(published: &PublishedGroups, p: Option<usize>) -> Result<AuditReport, CahdError> {
    let p = p.unwrap_or(published.p);
    let fail = |msg: String| Err(CahdError::Audit(msg));
    if published.format != GROUPS_FORMAT {
        return fail(format!("format {:?}, expected {GROUPS_FORMAT:?}", published.format));
    }
    if p < 2 {
        return fail(format!("p = {p}: groups are only audited for p ≥ 2"));
    }
    let sensitive: HashSet<&str> = published.sensitive.iter().map(String::as_str).collect();
    if sensitive.len() != published.sensitive.len() {
        return fail("a sensitive item is listed twice".into());
    }
    if published.groups.is_empty() {
        return fail("no group".into());
    }
    let (mut records, mut smallest, mut achieved) = (0, usize::MAX, f64::INFINITY);
    for (g, group) in published.groups.iter().enumerate() {
        let size = group.qid.len();
        if size == 0 {
            return fail(format!("group {g} is empty"));
        }
        for t in &group.qid {
            let mut seen = HashSet::with_capacity(t.len());
            for item in t {
                if sensitive.contains(item.as_str()) {
                    return fail(format!("group {g}: sensitive item {item:?} among the QID items"));
                }
                if !seen.insert(item.as_str()) {
                    return fail(format!("group {g}: item {item:?} twice in one transaction"));
                }
            }
        }
        let mut listed = HashSet::new();
        for (item, count) in &group.sensitive {
            if !sensitive.contains(item.as_str()) {
                return fail(format!("group {g}: {item:?} is not a declared sensitive item"));
            }
            if !listed.insert(item.as_str()) {
                return fail(format!("group {g}: sensitive item {item:?} listed twice"));
            }
            if *count == 0 || *count > size {
                return fail(format!(
                    "group {g}: {item:?} counted {count} times in {size} transactions"
                ));
            }
            if count * p > size {
                return fail(format!(
                    "group {g}: {item:?} in {count} of {size} transactions, more than 1/{p}"
                ));
            }
            achieved = achieved.min(size as f64 / *count as f64);
        }
        records += size;
        smallest = smallest.min(size);
    }
    Ok(AuditReport {
        p,
        groups: published.groups.len(),
        records,
        smallest_group: smallest,
        achieved,
    })
}
