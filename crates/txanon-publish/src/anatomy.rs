//! Anatomy's release: the anatomized table (table.json), its flattened records
//! (`anonymized`), the summary.

use serde::Serialize;
use txanon_anatomy::{Diversity, ValidAnatomyParams, anonymize};
use txanon_data::TransactionDb;

use crate::error::{PublishError, Result};
use crate::outcome::Outcome;
use crate::release::{Content, Release};

#[derive(Debug, Serialize)]
struct AnatomySummary {
    input: String,
    records: usize,
    columns: usize,
    l: usize,
    diversity: Diversity,
    items_moved: usize,
    buckets: usize,
    published_records: u64,
    leftovers_placed: usize,
    leftovers_merged: usize,
    buckets_absorbed: usize,
    suppressed: usize,
    ln_faked_records: f64,
    worst_share: f64,
}

/// Anonymizes `db` (read from `input`) with multi-dimension anatomy; the publication has
/// passed its audit against `db`.
///
/// # Errors
/// Anatomy's refusals and failures.
pub fn release(input: &str, db: &TransactionDb, params: &ValidAnatomyParams) -> Result<Release> {
    // `anonymize` has audited the table, the flattened records and both against the input.
    let result = anonymize(db, params).map_err(PublishError::family)?;
    let report = &result.audit;
    let summary = AnatomySummary {
        input: input.to_string(),
        records: db.len(),
        columns: params.columns(),
        l: params.l(),
        diversity: params.diversity(),
        items_moved: result.items_moved.len(),
        buckets: result.buckets,
        published_records: report.records,
        leftovers_placed: result.leftovers_placed,
        leftovers_merged: result.leftovers_merged,
        buckets_absorbed: result.buckets_absorbed,
        suppressed: result.suppressed,
        ln_faked_records: result.ln_faked_records,
        worst_share: report.worst_share,
    };
    let outcome = Outcome::transactions("anatomy", db, &result.flattened, "-l and -c")
        .did(format!(
            "{} buckets; {} records suppressed; {} items moved between columns",
            result.buckets,
            result.suppressed,
            result.items_moved.len()
        ))
        .audited(format!(
            "l-diversity, l = {} ({:?} reading), in every bucket and column",
            params.l(),
            params.diversity()
        ));
    let mut release = Release::new("anatomy", &summary, report, params.seed().is_some(), outcome)?;
    release.linkage = Some(std::sync::Arc::new(result.bucket_of));
    Ok(release
        .parameters(serde_json::json!({
            "columns": params.columns(),
            "l": params.l(),
            "diversity": params.diversity(),
            // A given partition is in table.json, as every partition is.
            "partitioning": match params.item_columns() {
                Some(_) => "given".to_string(),
                None => format!("{:?}", params.partitioning()).to_lowercase(),
            },
            "headroom": params.headroom(),
        }))
        .with("table.json", {
            let table = std::sync::Arc::new(result.table);
            Content::Json(std::sync::Arc::new(move |w| table.write_json(w)))
        })
        .with("anonymized", Content::Transactions(result.flattened.into())))
}
