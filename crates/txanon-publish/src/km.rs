//! kᵐ-anonymity's release: the generalized transactions (`published`), the cut, the
//! hierarchy, the summary; and one shard's release under a cut found over every shard
//! ([`release_shard`]).

use serde::Serialize;
use txanon_data::TransactionDb;
use txanon_km::{
    Algorithm, Hierarchy, InformationLoss, KmClaim, ValidKmParams, anonymize, audit_shard,
};

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
    /// For a shard of a cut found over several shards ([`release_shard`]): how many; the
    /// guarantee holds for their union. `ncp` is then the shard's, `generalizations` the
    /// search's over every shard.
    #[serde(skip_serializing_if = "Option::is_none")]
    shards: Option<usize>,
}

/// What a summary says of the cut.
struct CutFigures<'a> {
    nodes: usize,
    generalized_nodes: usize,
    generalizations: usize,
    loss: &'a InformationLoss,
}

impl Summary {
    fn new(
        (input, db): (&str, &TransactionDb),
        (hierarchy, described): (&Hierarchy, &str),
        params: &ValidKmParams,
        cut: CutFigures<'_>,
        shards: Option<usize>,
    ) -> Self {
        Self {
            input: input.to_string(),
            transactions: db.len(),
            items: db.num_items(),
            k: u64::from(params.k()),
            m: params.m() as u64,
            algorithm: params.algorithm(),
            hierarchy: described.to_string(),
            hierarchy_nodes: hierarchy.len(),
            hierarchy_leaves: hierarchy.leaves().len(),
            hierarchy_height: hierarchy.height(hierarchy.root()),
            cut_nodes: cut.nodes,
            generalized_nodes: cut.generalized_nodes,
            generalizations: cut.generalizations,
            ncp: cut.loss.ncp,
            occurrences_by_height: cut.loss.occurrences_by_height.clone(),
            shards,
        }
    }
}

/// The release's recorded parameters and files: the published transactions, the cut, the
/// hierarchy.
fn with_files(
    release: Release,
    summary: &Summary,
    published: TransactionDb,
    cut: &[String],
    hierarchy: &Hierarchy,
) -> Result<Release> {
    let mut parameters = serde_json::json!({
        "k": summary.k,
        "m": summary.m,
        "algorithm": summary.algorithm,
        "hierarchy": summary.hierarchy,
    });
    if let Some(shards) = summary.shards {
        parameters["shards"] = shards.into();
    }
    let hierarchy_text = hierarchy.to_text().map_err(PublishError::family)?;
    Ok(release
        .parameters(parameters)
        .with("published", Content::Transactions(published.into()))
        .with("cut.txt", Content::Text(cut.join("\n") + "\n"))
        .with("hierarchy.txt", Content::Text(hierarchy_text)))
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
    let summary = Summary::new(
        (input, db),
        (hierarchy, described),
        params,
        CutFigures {
            nodes: result.cut.len(),
            generalized_nodes: result.generalized_items,
            generalizations: result.generalizations.len(),
            loss: &result.loss,
        },
        None,
    );
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
    let release = Release::new("km", &summary, &result.audit, params.seed().is_some(), outcome)?;
    with_files(release, &summary, result.published, &result.cut, hierarchy)
}

/// One shard's release of a kᵐ-anonymous publication whose cut `cut` was found over the union
/// of `shards` shards ([`txanon_km::sharded::sharded_cut`], which made `generalizations`
/// raises): the shard `db` generalized by the cut and shuffled, the cut, the hierarchy and the
/// summary. Its audit ([`audit_shard`]) checks the shard against `db` and the cut; the supports
/// hold for the union only, and the caller audits them there.
///
/// # Errors
/// A cut that is not one of `hierarchy`'s; an item that is no leaf of it; a shard that fails
/// its audit (a bug).
#[allow(clippy::too_many_arguments)]
pub fn release_shard(
    input: &str,
    db: &TransactionDb,
    hierarchy: &Hierarchy,
    described: &str,
    cut: &[String],
    generalizations: usize,
    shards: usize,
    params: &ValidKmParams,
) -> Result<Release> {
    let part = txanon_km::sharded::publish_shard(db, hierarchy, cut, params.seed())
        .map_err(PublishError::family)?;
    let (k, m) = (u64::from(params.k()), params.m() as u64);
    let claim =
        KmClaim::new(k, m).map_err(|e| PublishError::family(txanon_km::KmError::from(e)))?;
    let report = audit_shard(&part.published, hierarchy, &claim, Some(cut), Some(db))
        .map_err(PublishError::family)?;
    let summary = Summary::new(
        (input, db),
        (hierarchy, described),
        params,
        CutFigures {
            nodes: cut.len(),
            generalized_nodes: part.generalized_items,
            generalizations,
            loss: &part.loss,
        },
        Some(shards),
    );
    let outcome = Outcome::transactions("km", db, &part.published, "--k and --m")
        .did(format!(
            "generalized by a cut of {} nodes found over {shards} shards (this shard's NCP {:.3})",
            cut.len(),
            part.loss.ncp
        ))
        .audited(format!(
            "this shard against its original and the cut; k^m-anonymity with k = {k}, m = {m} holds for the union of the {shards} shards, audited there"
        ));
    let release = Release::new("km", &summary, &report, params.seed().is_some(), outcome)?;
    with_files(release, &summary, part.published, cut, hierarchy)
}
