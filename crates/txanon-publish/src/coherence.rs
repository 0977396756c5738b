//! (h,k,p)-coherence's release: the published transactions, the suppressions with their
//! reasons (suppressed.json), the summary.

use serde::Serialize;
use txanon_coherence::sharded::{ShardedSuppression, publish_shard};
use txanon_coherence::{
    CoherenceClaim, Engine, Reason, Suppressed, ValidCoherenceParams, anonymize, audit_shard,
};
use txanon_data::{ItemId, TransactionDb};

use crate::error::{PublishError, Result};
use crate::outcome::Outcome;
use crate::release::{Content, Release};

#[derive(Debug, Serialize)]
struct Step {
    item: String,
    #[serde(flatten)]
    reason: Reason,
    score: Option<f64>,
}

#[derive(Debug, Serialize)]
struct Summary {
    input: String,
    transactions: usize,
    private_items: Vec<String>,
    h: f64,
    k: u32,
    p: usize,
    nugget_support: u32,
    engine: &'static str,
    minimal_moles: usize,
    /// Only the border-edge engine (`--edges`) lists the mole border's maximal side.
    #[serde(skip_serializing_if = "Option::is_none")]
    maximal_public_itemsets: Option<usize>,
    moles: u128,
    suppressed_infrequent: usize,
    suppressed_greedy: usize,
    nuggets_before: u128,
    nuggets_after: u128,
    nuggets_kept_percent: f64,
    occurrences_suppressed_percent: f64,
    /// The shards one suppression set was decided over (a shard's publication only).
    #[serde(skip_serializing_if = "Option::is_none")]
    shards: Option<usize>,
}

/// The name the summary gives `engine`.
pub fn engine_name(engine: Engine) -> &'static str {
    match engine {
        Engine::Counting => "counting",
        Engine::BorderEdges => "border-edges",
        Engine::Enumerate => "enumerate",
    }
}

/// Anonymizes `db` (read from `input`) to (h,k,p)-coherence, `private` its private items; the
/// publication has passed its audit against `db`.
///
/// # Errors
/// Coherence's refusals and failures.
pub fn release(
    input: &str,
    db: &TransactionDb,
    private: &[ItemId],
    params: &ValidCoherenceParams,
) -> Result<Release> {
    // `anonymize` has audited the publication against the input.
    let result = anonymize(db, private, params).map_err(PublishError::family)?;
    let (nuggets_before, nuggets_after) = (result.nuggets_before, result.nuggets_after);
    let label = |i: ItemId| db.label(i).to_string();
    let steps: Vec<Step> = result
        .suppressed
        .iter()
        .map(|s| Step { item: label(s.item), reason: s.reason, score: s.score() })
        .collect();
    let greedy = steps.iter().filter(|s| matches!(s.reason, Reason::Greedy { .. })).count();
    let (h, k, p) = (params.h(), params.k(), params.p());
    let summary = Summary {
        input: input.to_string(),
        transactions: db.len(),
        private_items: private.iter().map(|&i| label(i)).collect(),
        h,
        k,
        p,
        nugget_support: params.nugget_support(),
        engine: engine_name(params.engine()),
        minimal_moles: result.minimal_moles,
        maximal_public_itemsets: result.maximal_public,
        moles: result.moles,
        suppressed_infrequent: steps.len() - greedy,
        suppressed_greedy: greedy,
        nuggets_before,
        nuggets_after,
        nuggets_kept_percent: 100.0 * nuggets_after as f64 / (nuggets_before as f64).max(1.0),
        occurrences_suppressed_percent: 100.0 * result.occurrences_suppressed as f64
            / (result.occurrences as f64).max(1.0),
        shards: None,
    };
    let shown: Vec<&str> = steps.iter().take(8).map(|s| s.item.as_str()).collect();
    let outcome = Outcome::transactions("coherence", db, &result.published, "--h, --k and --p")
        .did(format!(
            "{} public items suppressed everywhere{}{}; nuggets kept {nuggets_after} of {nuggets_before}",
            steps.len(),
            if shown.is_empty() { String::new() } else { format!(" ({}", shown.join(" ")) },
            if shown.is_empty() { "" } else if steps.len() > shown.len() { " …)" } else { ")" },
        ))
        .audited(format!(
            "(h, k, p)-coherence with h = {h}, k = {k}, p = {p} for {} private items",
            private.len()
        ));
    finish(&summary, &steps, &result.audit, params.seed().is_some(), outcome, result.published)
}

/// The release of `summary`'s publication: its parameters, `published`, and the suppressions
/// `steps` as suppressed.json.
fn finish(
    summary: &Summary,
    steps: &[Step],
    audit: &impl Serialize,
    seeded: bool,
    outcome: Outcome,
    published: TransactionDb,
) -> Result<Release> {
    let suppressed = serde_json::to_string_pretty(steps)
        .map_err(|e| PublishError::json("suppressed.json", e))?
        + "\n";
    let mut parameters = serde_json::json!({
        "h": summary.h,
        "k": summary.k,
        "p": summary.p,
        "nugget_support": summary.nugget_support,
        "engine": summary.engine,
        "private": summary.private_items,
    });
    if let Some(shards) = summary.shards {
        parameters["shards"] = shards.into();
    }
    Ok(Release::new("coherence", summary, audit, seeded, outcome)?
        .parameters(parameters)
        .with("published", Content::Transactions(published.into()))
        .with("suppressed.json", Content::Text(suppressed)))
}

/// One shard of a publication whose shards share one suppression set, decided over every
/// shard (`txanon_coherence::sharded`): the shard's transactions less the suppressed items,
/// shuffled; `suppressed.json` the whole set, the summary's mole and nugget figures the
/// union's and its occurrences suppressed the shard's. The shard is audited against its
/// original; (h,k,p)-coherence holds for the union of the shards and is audited there.
///
/// # Errors
/// A private label `db` does not hold is inferred from nothing and ignored; a shard that
/// fails its audit (a bug).
pub fn release_shard(
    input: &str,
    db: &TransactionDb,
    private: &[String],
    suppression: &ShardedSuppression,
    shards: usize,
    params: &ValidCoherenceParams,
) -> Result<Release> {
    let gone: Vec<String> = suppression.suppressed.iter().map(|(l, _)| l.clone()).collect();
    let published = publish_shard(db, &gone, params.seed());
    let (h, k, p) = (params.h(), params.k(), params.p());
    let claim = CoherenceClaim::new(h, u64::from(k), p as u64)
        .map_err(|e| PublishError::family(txanon_coherence::CoherenceError::from(e)))?
        .private(private.to_vec());
    let report = audit_shard(&published, &claim, Some(db)).map_err(PublishError::family)?;
    let steps: Vec<Step> = suppression
        .suppressed
        .iter()
        .map(|(item, reason)| Step {
            item: item.clone(),
            reason: *reason,
            score: Suppressed { item: 0, reason: *reason }.score(),
        })
        .collect();
    let greedy = steps.iter().filter(|s| matches!(s.reason, Reason::Greedy { .. })).count();
    let (nuggets_before, nuggets_after) = (suppression.nuggets_before, suppression.nuggets_after);
    let summary = Summary {
        input: input.to_string(),
        transactions: db.len(),
        private_items: private.to_vec(),
        h,
        k,
        p,
        nugget_support: params.nugget_support(),
        engine: "listed over shards",
        minimal_moles: suppression.minimal_moles,
        maximal_public_itemsets: None,
        moles: suppression.moles,
        suppressed_infrequent: steps.len() - greedy,
        suppressed_greedy: greedy,
        nuggets_before,
        nuggets_after,
        nuggets_kept_percent: 100.0 * nuggets_after as f64 / (nuggets_before as f64).max(1.0),
        occurrences_suppressed_percent: 100.0 * (db.occurrences() - published.occurrences()) as f64
            / (db.occurrences() as f64).max(1.0),
        shards: Some(shards),
    };
    let outcome = Outcome::transactions("coherence", db, &published, "--h, --k and --p")
        .did(format!(
            "{} public items suppressed everywhere, decided over {shards} shards; nuggets kept {nuggets_after} of {nuggets_before} over the union",
            steps.len()
        ))
        .audited(format!(
            "this shard against its original; (h, k, p)-coherence with h = {h}, k = {k}, p = {p} holds for the union of the {shards} shards, audited there"
        ));
    finish(&summary, &steps, &report, params.seed().is_some(), outcome, published)
}
