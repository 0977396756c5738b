//! The generalization baseline: Mondrian multidimensional partitioning to k-anonymity and
//! ℓ-diversity, published as ranges and value sets.

use std::collections::HashMap;
use std::path::Path;

use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::csv;
use crate::error::SlicingError;
use crate::microdata::Microdata;
use crate::params::ValidBaselineParams;
use crate::params::publication_rng;
use crate::split::{cell_of, mondrian as partition};

/// Format tag of a generalized table's metadata.
pub const GENERALIZED_FORMAT: &str = "txanon-generalized/1";

/// A generalized table's metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneralizedMeta {
    /// [`GENERALIZED_FORMAT`].
    pub format: String,
    /// The CSV's fields, in order.
    pub attributes: Vec<String>,
    /// The sensitive attribute (published exactly).
    pub sensitive: String,
    /// k claimed.
    pub k: usize,
    /// ℓ claimed.
    pub l: usize,
}

/// A generalized table: every quasi-identifying cell a value, `[lo..hi]` or `{a|b|c}`; rows of
/// one equivalence class share them all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneralizedTable {
    /// Attributes and claim.
    pub meta: GeneralizedMeta,
    /// Rows, cells in the order of `meta.attributes`, shuffled.
    pub rows: Vec<Vec<String>>,
}

/// What the Mondrian audit found.
#[derive(Debug, Clone, Serialize)]
pub struct MondrianAudit {
    /// Rows.
    pub rows: usize,
    /// Equivalence classes.
    pub classes: usize,
    /// The smallest class (at least k).
    pub smallest_class: usize,
    /// The largest share of one sensitive value in a class (at most 1/ℓ).
    pub worst: f64,
}

/// Generalizes `data` by Mondrian: partitions cut along the widest quasi-identifying attribute
/// at its median while both halves keep at least `k` tuples and are ℓ-diverse (no sensitive
/// value above `1/ℓ` of the class); then audited.
///
/// Every attribute but the sensitive one is treated as quasi-identifying. Categorical
/// attributes have no hierarchy here: their values are cut in label order and published as
/// the set present in the class.
///
/// # Errors
/// [`SlicingError::Infeasible`] when the whole table is not already k-anonymous and ℓ-diverse
/// (fewer than k tuples, or a sensitive value above `1/ℓ`); [`SlicingError::Audit`] if the
/// publication fails its own check.
pub fn mondrian(
    data: &Microdata,
    params: &ValidBaselineParams,
) -> Result<(GeneralizedTable, MondrianAudit), SlicingError> {
    let (k, l) = (params.k(), params.l());
    let s = data.sensitive();
    let allowable = |rows: &[u32]| allowable(data, rows, k, l);
    let all: Vec<u32> = (0..data.len() as u32).collect();
    if !allowable(&all) {
        return Err(SlicingError::Infeasible(format!(
            "the whole table ({} tuples) is not {k}-anonymous and {l}-diverse",
            data.len()
        )));
    }
    let dims: Vec<usize> = (0..data.attributes()).filter(|&a| a != s).collect();
    let classes = partition(data, all, dims, allowable);
    let mut rows = Vec::with_capacity(data.len());
    for class in &classes {
        let cells: Vec<String> = (0..data.attributes())
            .map(|a| if a == s { String::new() } else { cell_of(data, class, a) })
            .collect();
        for &r in class {
            let mut row = cells.clone();
            row[s] = data.text(s, r as usize).to_string();
            rows.push(row);
        }
    }
    let mut rng = publication_rng(params.seed());
    rows.shuffle(&mut rng);
    let table = GeneralizedTable {
        meta: GeneralizedMeta {
            format: GENERALIZED_FORMAT.into(),
            attributes: data.names().to_vec(),
            sensitive: data.names()[s].clone(),
            k,
            l,
        },
        rows,
    };
    let audit = audit_generalized(&table, Some(data), k, l)?;
    Ok((table, audit))
}

fn allowable(data: &Microdata, rows: &[u32], k: usize, l: usize) -> bool {
    if rows.len() < k {
        return false;
    }
    let codes = data.codes(data.sensitive());
    let mut count: HashMap<u32, usize> = HashMap::new();
    let mut max = 0;
    for &r in rows {
        let c = count.entry(codes[r as usize]).or_default();
        *c += 1;
        max = max.max(*c);
    }
    max * l <= rows.len()
}

/// Verifies a generalized table from its rows alone: rows with equal quasi-identifying cells
/// form a class; every class holds at least `k` rows and no sensitive value in more than
/// `1/ℓ` of them. With the original, also that the rows are as many and the sensitive values
/// the same multiset.
///
/// # Errors
/// [`SlicingError::Audit`] naming the first violation.
pub fn audit_generalized(
    table: &GeneralizedTable,
    original: Option<&Microdata>,
    k: usize,
    l: usize,
) -> Result<MondrianAudit, SlicingError> {
    let fail = |m: String| Err(SlicingError::Audit(m));
    let Some(s) = table.meta.attributes.iter().position(|a| a == &table.meta.sensitive) else {
        return fail(format!("no sensitive attribute {:?}", table.meta.sensitive));
    };
    let mut classes: HashMap<Vec<&str>, HashMap<&str, usize>> = HashMap::new();
    for row in &table.rows {
        let qi: Vec<&str> =
            row.iter().enumerate().filter(|&(a, _)| a != s).map(|(_, c)| c.as_str()).collect();
        *classes.entry(qi).or_default().entry(&row[s]).or_default() += 1;
    }
    let mut smallest = usize::MAX;
    let mut worst = 0.0f64;
    for (qi, dist) in &classes {
        let size: usize = dist.values().sum();
        let max = dist.values().copied().max().unwrap_or(0);
        smallest = smallest.min(size);
        worst = worst.max(max as f64 / size as f64);
        if size < k {
            return fail(format!("class {qi:?} has {size} rows < k = {k}"));
        }
        if max * l > size {
            return fail(format!(
                "class {qi:?}: one sensitive value in {max} of {size} rows > 1/{l}"
            ));
        }
    }
    if let Some(original) = original {
        if original.len() != table.rows.len() {
            return fail(format!("{} rows for {} tuples", table.rows.len(), original.len()));
        }
        let os = original.sensitive();
        let mut want: HashMap<&str, isize> = HashMap::new();
        for r in 0..original.len() {
            *want.entry(original.text(os, r)).or_default() += 1;
        }
        for row in &table.rows {
            *want.entry(&row[s]).or_default() -= 1;
        }
        if want.values().any(|&v| v != 0) {
            return fail("the sensitive values are not the original's".into());
        }
    }
    Ok(MondrianAudit {
        rows: table.rows.len(),
        classes: classes.len(),
        smallest_class: if classes.is_empty() { 0 } else { smallest },
        worst,
    })
}

impl GeneralizedTable {
    /// The rows as CSV with a header line.
    pub fn to_csv(&self) -> String {
        let mut out = csv::line(self.meta.attributes.iter().map(String::as_str));
        for row in &self.rows {
            out.push_str(&csv::line(row.iter().map(String::as_str)));
        }
        out
    }

    /// The metadata as JSON.
    pub fn meta_json(&self) -> String {
        serde_json::to_string_pretty(&self.meta).expect("serializable") + "\n"
    }

    /// Reads a publication back.
    ///
    /// # Errors
    /// [`SlicingError::Malformed`] for metadata of another format; the CSV reader's errors.
    pub fn read(csv_path: &Path, meta_path: &Path) -> Result<Self, SlicingError> {
        let meta: GeneralizedMeta =
            csv::read_meta(meta_path, GENERALIZED_FORMAT, |m: &GeneralizedMeta| m.format.clone())?;
        let rows = csv::read(csv_path, &meta.attributes)?;
        Ok(GeneralizedTable { meta, rows })
    }
}
