//! The publication format of the generalization baseline: a generalized table (CSV) and its
//! metadata (JSON), written by Mondrian and read back by its audit.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::csv;
use crate::error::SlicingError;

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
