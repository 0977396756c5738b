//! The publication format of the bucketization baseline: Anatomy's quasi-identifier table
//! and sensitive table (CSV) and their metadata (JSON), written by Anatomy and read back by its
//! audit.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::csv;
use crate::error::SlicingError;

/// Format tag of the anatomy tables' metadata.
pub const ANATOMY_FORMAT: &str = "txanon-anatomy-tables/1";

/// The two tables' metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnatomyMeta {
    /// [`ANATOMY_FORMAT`].
    pub format: String,
    /// The quasi-identifier table's attributes (its CSV adds `group`).
    pub quasi_identifiers: Vec<String>,
    /// The sensitive attribute.
    pub sensitive: String,
    /// ℓ claimed.
    pub l: usize,
}

/// The published tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnatomyTables {
    /// Attributes and claim.
    pub meta: AnatomyMeta,
    /// QIT: each tuple's exact quasi-identifier values and its group, shuffled.
    pub qit: Vec<(u32, Vec<String>)>,
    /// ST: (group, sensitive value, count), by group then value.
    pub st: Vec<(u32, String, u32)>,
}

impl AnatomyTables {
    /// The QIT as CSV (quasi-identifiers, then `group`).
    pub fn qit_csv(&self) -> String {
        let mut out =
            csv::line(self.meta.quasi_identifiers.iter().map(String::as_str).chain(["group"]));
        for (g, qi) in &self.qit {
            let id = g.to_string();
            out.push_str(&csv::line(qi.iter().map(String::as_str).chain([id.as_str()])));
        }
        out
    }

    /// The ST as CSV (`group`, the sensitive attribute, `count`).
    pub fn st_csv(&self) -> String {
        let mut out = csv::line(["group", self.meta.sensitive.as_str(), "count"]);
        for (g, v, c) in &self.st {
            out.push_str(&csv::line([g.to_string().as_str(), v, c.to_string().as_str()]));
        }
        out
    }

    /// The metadata as JSON.
    pub fn meta_json(&self) -> String {
        serde_json::to_string_pretty(&self.meta).expect("serializable") + "\n"
    }

    /// Reads the tables back.
    ///
    /// # Errors
    /// [`SlicingError::Malformed`] for metadata of another format or a bad number; the CSV
    /// reader's errors.
    pub fn read(qit: &Path, st: &Path, meta: &Path) -> Result<Self, SlicingError> {
        let meta: AnatomyMeta =
            csv::read_meta(meta, ANATOMY_FORMAT, |m: &AnatomyMeta| m.format.clone())?;
        let mut header = meta.quasi_identifiers.clone();
        header.push("group".into());
        let qit_rows = csv::read(qit, &header)?
            .into_iter()
            .enumerate()
            .map(|(i, mut f)| {
                let g = csv::count(&f.pop().expect("group field"), qit, i)?;
                Ok((g, f))
            })
            .collect::<Result<Vec<_>, SlicingError>>()?;
        let st_header = vec!["group".to_string(), meta.sensitive.clone(), "count".to_string()];
        let st_rows = csv::read(st, &st_header)?
            .into_iter()
            .enumerate()
            .map(|(i, f)| Ok((csv::count(&f[0], st, i)?, f[1].clone(), csv::count(&f[2], st, i)?)))
            .collect::<Result<Vec<_>, SlicingError>>()?;
        Ok(AnatomyTables { meta, qit: qit_rows, st: st_rows })
    }
}
