//! The independent checker: from the original, the publication and (optionally) the key
//! linking published records to original ones, re-derive what the publication hides.

use serde::Serialize;
use txanon_data::{ItemCategories, TransactionDb};

use crate::algorithm::SwapStats;
use crate::error::SwapError;
use crate::params::Method;
use crate::tendency::{Tendency, dominant_category, tendency_of};

/// What [`audit`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SwapAudit {
    /// Records of the original.
    pub records: usize,
    /// Records published.
    pub published_records: usize,
    /// Occurrences of items in the original.
    pub occurrences: usize,
    /// Occurrences an item has fewer of in the publication than in the original (summed over
    /// items): collisions and suppressions.
    pub occurrences_lost: usize,
    /// Occurrences an item has more of in the publication: never legitimate.
    pub occurrences_gained: usize,
    /// Per-record findings; `None` without a key.
    pub records_checked: Option<RecordAudit>,
}

/// Per-record findings of [`audit`], through the key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RecordAudit {
    /// Original records showing a tendency: a category above the mean, or several items of a
    /// single category.
    pub with_tendency: usize,
    /// Original records whose published items differ.
    pub changed: usize,
    /// Records with a tendency that some published record of theirs still shows (the same
    /// category strictly heaviest): the tendency is exposed.
    pub exposed: usize,
    /// Changed records whose tendency is still exposed: swaps that are not true swaps.
    pub false_swaps: usize,
    /// Changed records that had no tendency to hide.
    pub changed_without_tendency: usize,
}

/// Audits `published` against `original`. With `key` (for each published record, the original
/// record it comes from) the per-record findings are derived too.
///
/// # Errors
/// [`SwapError::Mismatch`] when the two databases have different dictionaries, or the key
/// does not fit them (wrong length, a record out of range, an original record left out);
/// [`SwapError::Categories`] when the categorization does not cover the items.
pub fn audit(
    original: &TransactionDb,
    published: &TransactionDb,
    key: Option<&[u32]>,
    categories: &ItemCategories,
) -> Result<SwapAudit, SwapError> {
    let category_of = categories.categories();
    if category_of.len() != original.num_items() {
        return Err(SwapError::Categories {
            categorized: category_of.len(),
            items: original.num_items(),
        });
    }
    if original.labels() != published.labels() {
        return Err(SwapError::Mismatch(
            "the two files have different item dictionaries (read them with the same labels)"
                .into(),
        ));
    }
    let mut report = SwapAudit {
        records: original.len(),
        published_records: published.len(),
        occurrences: original.occurrences(),
        ..SwapAudit::default()
    };
    for (&before, &after) in original.supports().iter().zip(published.supports()) {
        if after > before {
            report.occurrences_gained += (after - before) as usize;
        } else {
            report.occurrences_lost += (before - after) as usize;
        }
    }
    let Some(key) = key else { return Ok(report) };
    if key.len() != published.len() {
        return Err(SwapError::Mismatch(format!(
            "the key has {} entries for {} published records",
            key.len(),
            published.len()
        )));
    }
    let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); original.len()];
    for (p, &o) in key.iter().enumerate() {
        let Some(rows) = rows_of.get_mut(o as usize) else {
            return Err(SwapError::Mismatch(format!(
                "key entry {} names record {o}, the original has {}",
                p + 1,
                original.len()
            )));
        };
        rows.push(p);
    }
    if let Some(o) = rows_of.iter().position(Vec::is_empty) {
        return Err(SwapError::Mismatch(format!("original record {} is not published", o + 1)));
    }
    let mut found = RecordAudit::default();
    let mut scratch = Vec::new();
    let mut merged = Vec::new();
    for (o, rows) in rows_of.iter().enumerate() {
        let t = original.transaction(o);
        let shown = match tendency_of(t, category_of, &mut scratch) {
            Tendency::Category(g) | Tendency::Single(g) => Some(g),
            Tendency::None => None,
        };
        merged.clear();
        for &p in rows {
            merged.extend_from_slice(published.transaction(p));
        }
        merged.sort_unstable();
        let changed = merged.as_slice() != t;
        let exposed = shown.is_some_and(|g| {
            rows.iter().any(|&p| {
                dominant_category(published.transaction(p), category_of, &mut scratch) == Some(g)
            })
        });
        found.with_tendency += usize::from(shown.is_some());
        found.changed += usize::from(changed);
        found.exposed += usize::from(exposed);
        found.false_swaps += usize::from(changed && exposed);
        found.changed_without_tendency += usize::from(changed && shown.is_none());
    }
    report.records_checked = Some(found);
    Ok(report)
}

impl SwapAudit {
    /// Checks what the publication alone must show under `method`: no occurrence ever gained;
    /// for the paper's swappings, nothing lost and, with the key, every changed record a true
    /// swap of a record that had a tendency.
    ///
    /// # Errors
    /// [`SwapError::Audit`] naming the first guarantee that fails.
    pub fn check_publication(&self, method: Method) -> Result<(), SwapError> {
        let fail = |what: String| Err(SwapError::Audit(what));
        if self.occurrences_gained > 0 {
            return fail(format!("{} occurrences appeared from nowhere", self.occurrences_gained));
        }
        let swapping =
            matches!(method, Method::PartSwap | Method::FullSwap | Method::PartAndFullSwap);
        if !swapping {
            return Ok(());
        }
        if self.occurrences_lost > 0 {
            return fail(format!("{} occurrences lost, none expected", self.occurrences_lost));
        }
        if let Some(r) = &self.records_checked {
            if r.false_swaps > 0 {
                return fail(format!(
                    "{} swapped records still show their tendency",
                    r.false_swaps
                ));
            }
            if r.changed_without_tendency > 0 {
                return fail(format!(
                    "{} records without a tendency were changed",
                    r.changed_without_tendency
                ));
            }
        }
        Ok(())
    }

    /// [`check_publication`](Self::check_publication), and against what the run says it did
    /// (`stats`): for RandSwap the losses exactly its collisions, for PartSupp exactly its
    /// suppressions, for the swappings two changed records per swap; one published record per
    /// input record except for SplitPerson.
    ///
    /// # Errors
    /// [`SwapError::Audit`] naming the first guarantee that fails.
    pub fn check(&self, method: Method, stats: &SwapStats) -> Result<(), SwapError> {
        self.check_publication(method)?;
        let fail = |what: String| Err(SwapError::Audit(what));
        let expected_lost = match method {
            Method::RandSwap => stats.collisions,
            Method::PartSupp => stats.suppressed,
            _ => 0,
        };
        if self.occurrences_lost != expected_lost {
            return fail(format!(
                "{} occurrences lost, {expected_lost} expected",
                self.occurrences_lost
            ));
        }
        let swapping =
            matches!(method, Method::PartSwap | Method::FullSwap | Method::PartAndFullSwap);
        if let Some(r) = &self.records_checked
            && swapping
            && r.changed != 2 * stats.pairs
        {
            return fail(format!("{} records changed by {} swaps", r.changed, stats.pairs));
        }
        if method != Method::SplitPerson && self.published_records != self.records {
            return fail(format!(
                "{} records published for {}",
                self.published_records, self.records
            ));
        }
        Ok(())
    }
}
