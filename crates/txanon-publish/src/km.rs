//! kᵐ-anonymity's release: the generalized transactions (`published`), the cut, the
//! hierarchy, the summary.

use serde::Serialize;
use txanon_data::TransactionDb;
use txanon_km::{Algorithm, Hierarchy, ValidKmParams, anonymize};

use crate::error::{PublishError, Result};
use crate::outcome::Outcome;
use crate::release::{Content, Release};

#[derive(Debug, Serialize)]
struct Summary {
    input: String,
    transactions: usize,
    items: usize,
    k: u64,
    m: u64,
    algorithm: Algorithm,
    hierarchy: String,
    hierarchy_nodes: usize,
    hierarchy_leaves: usize,
    hierarchy_height: u32,
    cut_nodes: usize,
    generalized_nodes: usize,
    generalizations: usize,
    ncp: f64,
    occurrences_by_height: Vec<u64>,
}

/// Anonymizes `db` (read from `input`) to kᵐ-anonymity over `hierarchy` (described as
/// `described`: its file, or how it was built); the publication has passed its audit against
/// `db`.
///
/// # Errors
/// kᵐ-anonymity's refusals and failures; a hierarchy that cannot be written as text.
pub fn release(
    input: &str,
    db: &TransactionDb,
    hierarchy: &Hierarchy,
    described: &str,
    params: &ValidKmParams,
) -> Result<Release> {
    // `anonymize` has audited the publication, its cut and both against the input.
    let result = anonymize(db, hierarchy, params).map_err(PublishError::family)?;
    let (k, m) = (u64::from(params.k()), params.m() as u64);
    let summary = Summary {
        input: input.to_string(),
        transactions: db.len(),
        items: db.num_items(),
        k,
        m,
        algorithm: params.algorithm(),
        hierarchy: described.to_string(),
        hierarchy_nodes: hierarchy.len(),
        hierarchy_leaves: hierarchy.leaves().len(),
        hierarchy_height: hierarchy.height(hierarchy.root()),
        cut_nodes: result.cut.len(),
        generalized_nodes: result.generalized_items,
        generalizations: result.generalizations.len(),
        ncp: result.loss.ncp,
        occurrences_by_height: result.loss.occurrences_by_height.clone(),
    };
    // Items published as themselves keep their label; every other one went up the hierarchy.
    let items = db.num_items();
    let generalized = (0..items as u32)
        .filter(|&i| result.published.labels().find(&db.label(i).to_string()).is_none())
        .count();
    let mut outcome = Outcome::transactions("km", db, &result.published, "--k and --m").did(
        format!(
            "{generalized} of {items} items generalized above the leaves, to a cut of {} nodes (NCP {:.3})",
            result.cut.len(),
            result.loss.ncp
        ),
    );
    if generalized * 2 > items {
        outcome = outcome.warn(format!(
            "{generalized} of {items} items are generalized above the leaves: --k and --m decide how far"
        ));
    }
    let outcome = outcome.audited(format!("k^m-anonymity with k = {k}, m = {m}"));
    let hierarchy_text = hierarchy.to_text().map_err(PublishError::family)?;
    Ok(Release::new("km", &summary, &result.audit, params.seed().is_some(), outcome)?
        .parameters(serde_json::json!({
            "k": k,
            "m": m,
            "algorithm": params.algorithm(),
            "hierarchy": summary.hierarchy,
        }))
        .with("published", Content::Transactions(result.published.into()))
        .with("cut.txt", Content::Text(result.cut.join("\n") + "\n"))
        .with("hierarchy.txt", Content::Text(hierarchy_text)))
}
