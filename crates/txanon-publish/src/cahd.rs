//! CAHD's release: groups.json, the QID items as a transaction file (`qid`), the summary.

use serde::Serialize;
use txanon_band::GraphKind;
use txanon_cahd::{
    BandOrder, GroupingStats, ReconstructionError, ValidCahdParams, Workload, anonymize,
    reconstruction_error,
};
use txanon_data::{ItemId, TransactionDb};

use crate::error::{PublishError, Result};
use crate::outcome::Outcome;
use crate::release::{Content, Release};

#[derive(Debug, Serialize)]
struct CahdSummary {
    input: String,
    transactions: usize,
    sensitive_items: Vec<String>,
    p: usize,
    alpha: usize,
    band: &'static str,
    bandwidth_before: Option<u64>,
    bandwidth_after: Option<u64>,
    profile_before: Option<u64>,
    profile_after: Option<u64>,
    grouping: GroupingStats,
    groups: usize,
    achieved_privacy: f64,
    /// The paper's reconstruction error at r = 4 QID items; `null` when the data has fewer
    /// than 4 QID items, where the workload has no query.
    reconstruction_error_r4: Option<ReconstructionError>,
}

/// The QID items of the paper's reconstruction-error workload.
const WORKLOAD_R: usize = 4;

/// The name `--band` gives `order`.
pub fn band_name(order: BandOrder) -> &'static str {
    match order {
        BandOrder::Rcm(GraphKind::SharedItems) => "aat",
        BandOrder::Rcm(GraphKind::SymmetrizedPadded) => "sym-pad",
        BandOrder::Input => "none",
    }
}

/// Anonymizes `db` (read from `input`) with CAHD, `sensitive` its sensitive items; the
/// publication has passed its audit against `db`.
///
/// # Errors
/// CAHD's refusals and failures.
pub fn release(
    input: &str,
    db: &TransactionDb,
    sensitive: &[ItemId],
    params: &ValidCahdParams,
) -> Result<Release> {
    // `anonymize` has audited the groups against the input.
    let result = anonymize(db, sensitive, params).map_err(PublishError::family)?;
    let report = &result.audit;
    let sensitive_labels: Vec<String> =
        result.published.sensitive.iter().map(|&s| result.published.label(s)).collect();
    if let Some(progress) = params.progress_handle() {
        progress.begin(
            "cahd: the QID transactions and the reconstruction error for the summary",
            txanon_data::progress::Unit::Items,
            0,
        );
    }
    let qid_items = (0..db.num_items() as ItemId)
        .filter(|&i| db.supports()[i as usize] > 0 && !sensitive.contains(&i))
        .count();
    // Both read the publication and the input only; the QID transactions are built on one
    // core, and the error's setup mostly on one too: side by side, each takes the other's idle
    // core (at 10⁷ with 270 sensitive items, 1.4 and 3.1 s one after the other).
    let (qid, error) = rayon::join(
        || result.published.qid_transactions(db),
        || {
            (qid_items >= WORKLOAD_R)
                .then(|| {
                    let workload = Workload::new(WORKLOAD_R).check()?;
                    reconstruction_error(db, &result.published, &workload)
                })
                .transpose()
        },
    );
    let qid = qid.map_err(|label| PublishError::Family {
        kind: txanon_data::ErrorKind::Internal,
        source: format!("published QID label {label:?} is not in the input (internal error)")
            .into(),
    })?;
    let error = error.map_err(PublishError::family)?;
    let band = band_name(params.order());
    let summary = CahdSummary {
        input: input.to_string(),
        transactions: db.len(),
        sensitive_items: sensitive_labels.clone(),
        p: params.p(),
        alpha: params.alpha(),
        band,
        bandwidth_before: result.band.map(|b| b.before.bandwidth),
        bandwidth_after: result.band.map(|b| b.after.bandwidth),
        profile_before: result.band.map(|b| b.before.profile),
        profile_after: result.band.map(|b| b.after.profile),
        grouping: result.grouping.stats(),
        groups: report.groups,
        achieved_privacy: report.achieved,
        reconstruction_error_r4: error,
    };
    let counted: usize =
        result.published.groups.iter().flat_map(|g| &g.sensitive).map(|s| s.1).sum();
    let outcome = Outcome::transactions("cahd", db, &qid, "-p and the sensitive items")
        .did(format!(
            "{} groups; the sensitive items' {counted} occurrences published as counts per group, not in the records",
            summary.groups
        ))
        .audited(format!(
            "privacy degree p = {} for {} sensitive items (achieved {:.2})",
            params.p(),
            sensitive_labels.len(),
            summary.achieved_privacy
        ));
    Ok(Release::new("cahd", &summary, report, params.seed().is_some(), outcome)?
        .parameters(serde_json::json!({
            "p": params.p(),
            "alpha": params.alpha(),
            "band": band,
            "sensitive": sensitive_labels,
        }))
        .with("groups.json", {
            let published = result.published;
            Content::Json(std::sync::Arc::new(move |w| published.write_json(w)))
        })
        .with("qid", Content::Transactions(qid.into())))
}
