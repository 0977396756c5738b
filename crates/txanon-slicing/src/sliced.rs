//! The published sliced table: bucket id and column values, each column permuted within its
//! bucket, buckets in a random order; and its metadata (the columns, ℓ).

use std::path::Path;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use crate::csv;
use crate::encode::Encoding;
use crate::error::SlicingError;
use crate::microdata::Microdata;

/// Format tag of the metadata file.
pub const SLICED_FORMAT: &str = "txanon-sliced/1";

/// What a reader needs besides the rows: the column structure and the claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlicedMeta {
    /// [`SLICED_FORMAT`].
    pub format: String,
    /// Attribute names per column, the sensitive attribute's column last; the CSV's fields
    /// after `bucket` are these names in this order.
    pub columns: Vec<Vec<String>>,
    /// The sensitive attribute.
    pub sensitive: String,
    /// The diversity claimed.
    pub l: usize,
    /// Column generalization's `k`, if applied (cells may then be `[lo..hi]` or `{a|b}`).
    pub generalized: Option<usize>,
    /// Number of buckets.
    pub buckets: usize,
}

/// A published row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlicedRow {
    /// Bucket id, `1..=buckets`.
    pub bucket: u32,
    /// Cells in the order of [`SlicedMeta::columns`], flattened.
    pub cells: Vec<String>,
}

/// A sliced table as published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlicedTable {
    /// Columns and claim.
    pub meta: SlicedMeta,
    /// Rows, bucket by bucket.
    pub rows: Vec<SlicedRow>,
}

impl SlicedTable {
    /// Publishes `buckets`: bucket order shuffled, then within each bucket every column's
    /// values permuted independently, so no published row is an original tuple except by
    /// chance and the order reveals nothing of the input's.
    pub(crate) fn publish(
        data: &Microdata,
        enc: &Encoding,
        buckets: &[Vec<u32>],
        l: usize,
        generalized: Option<usize>,
        rng: &mut ChaCha20Rng,
    ) -> Self {
        let s = data.sensitive();
        let c = enc.width();
        let mut order: Vec<usize> = (0..buckets.len()).collect();
        order.shuffle(rng);
        let mut rows = Vec::with_capacity(data.len());
        for (id, &b) in order.iter().enumerate() {
            let bucket = &buckets[b];
            let perms: Vec<Vec<u32>> = (0..c)
                .map(|_| {
                    let mut p = bucket.clone();
                    p.shuffle(rng);
                    p
                })
                .collect();
            for j in 0..bucket.len() {
                let mut cells = Vec::new();
                let sources = perms.iter().map(|p| p[j] as usize);
                for ((d, column), r) in enc.columns.iter().enumerate().zip(sources) {
                    let mut part = enc.cells[d][enc.parts[d][r] as usize].iter();
                    for &a in column {
                        if a == s {
                            cells.push(data.text(s, r).to_string());
                        } else {
                            cells.push(part.next().expect("one cell per attribute").clone());
                        }
                    }
                }
                rows.push(SlicedRow { bucket: id as u32 + 1, cells });
            }
        }
        let meta = SlicedMeta {
            format: SLICED_FORMAT.into(),
            columns: enc
                .columns
                .iter()
                .map(|col| col.iter().map(|&a| data.names()[a].clone()).collect())
                .collect(),
            sensitive: data.names()[s].clone(),
            l,
            generalized,
            buckets: buckets.len(),
        };
        SlicedTable { meta, rows }
    }

    /// The CSV header: `bucket`, then the attributes column by column.
    pub fn header(meta: &SlicedMeta) -> Vec<String> {
        std::iter::once("bucket".to_string())
            .chain(meta.columns.iter().flatten().cloned())
            .collect()
    }

    /// The rows as CSV, with the header.
    pub fn to_csv(&self) -> String {
        let header = Self::header(&self.meta);
        let mut out = csv::line(header.iter().map(String::as_str));
        for row in &self.rows {
            let id = row.bucket.to_string();
            out.push_str(&csv::line(
                std::iter::once(id.as_str()).chain(row.cells.iter().map(String::as_str)),
            ));
        }
        out
    }

    /// The metadata as JSON.
    pub fn meta_json(&self) -> String {
        serde_json::to_string_pretty(&self.meta).expect("serializable") + "\n"
    }

    /// Reads a publication back: the metadata file, then the CSV it describes.
    ///
    /// # Errors
    /// [`SlicingError::Malformed`] for a metadata file of another format or a bad bucket id;
    /// the CSV reader's located errors.
    pub fn read(csv_path: &Path, meta_path: &Path) -> Result<Self, SlicingError> {
        let meta: SlicedMeta =
            csv::read_meta(meta_path, SLICED_FORMAT, |m: &SlicedMeta| m.format.clone())?;
        let rows = csv::read(csv_path, &Self::header(&meta))?
            .into_iter()
            .enumerate()
            .map(|(i, mut fields)| {
                let bucket = csv::count(&fields[0], csv_path, i)?;
                fields.remove(0);
                Ok(SlicedRow { bucket, cells: fields })
            })
            .collect::<Result<Vec<_>, SlicingError>>()?;
        Ok(SlicedTable { meta, rows })
    }
}
