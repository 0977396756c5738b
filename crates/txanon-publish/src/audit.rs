//! A publication directory audited as a whole, for front ends that hand over a directory
//! (Python's `txanon.audit`): the manifest verified first, then every file the family
//! publishes read from the directory, then the family's own audit under the auditor's claim.
//! A failed audit comes back as [`PublishError::AuditFailed`] with the violations as JSON
//! objects (each with its `kind`), never only as a sentence.

use std::path::{Path, PathBuf};

use serde::Serialize;
use txanon_data::{Categorized, Family, ItemCategories, TransactionDb};

use crate::error::{PublishError, Result};
use crate::files::TRANSACTION_FILES;
use crate::verify::{ManifestCheck, check_directory};

/// What an audit of a directory established: the family's report, and the manifest's check.
#[derive(Debug, Clone, Serialize)]
pub struct Audited<R> {
    /// The family's report.
    #[serde(flatten)]
    pub report: R,
    /// The manifest's check, done first.
    pub manifest: ManifestCheck,
}

/// `F`'s audit error as the error of this crate: its violations as objects when it lists
/// them.
fn failed<F: Family>(error: F::Error) -> PublishError
where
    F::Violation: Serialize,
{
    match F::violations(&error) {
        Some(violations) => PublishError::AuditFailed {
            family: F::NAME.as_str(),
            message: error.to_string(),
            violations: violations
                .list()
                .iter()
                .map(|v| serde_json::to_value(v).unwrap_or(serde_json::Value::Null))
                .collect(),
        },
        None => PublishError::family(error),
    }
}

/// A file of the publication that does not parse: a broken publication, a failed audit.
fn unreadable(path: &Path, why: impl std::fmt::Display) -> PublishError {
    PublishError::Tampered(format!("{}: not a readable publication file: {why}", path.display()))
}

/// The file `name` of the publication in `dir`, which must be there.
fn required(dir: &Path, name: &str) -> Result<PathBuf> {
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(PublishError::Tampered(format!(
            "{}: no {name}: not a publication of this family",
            dir.display()
        )))
    }
}

/// The transaction file `stem.EXT` of the publication in `dir`, in whichever format it was
/// written.
fn transaction_file(dir: &Path, stem: &str) -> Option<PathBuf> {
    TRANSACTION_FILES.iter().map(|ext| dir.join(format!("{stem}.{ext}"))).find(|p| p.is_file())
}

fn read_transactions(dir: &Path, stem: &str) -> Result<TransactionDb> {
    let path = transaction_file(dir, stem).ok_or_else(|| {
        PublishError::Tampered(format!(
            "{}: no {stem} file (.{}): not a publication of this family",
            dir.display(),
            TRANSACTION_FILES.join(", .")
        ))
    })?;
    txanon_data::read_path(&path, &txanon_data::ReadOptions::new())
        .map(|(db, _)| db)
        .map_err(|e| unreadable(&path, e))
}

fn read_text(path: &Path) -> Result<String> {
    txanon_data::read_text(path).map_err(|e| unreadable(path, e))
}

/// Audits CAHD's publication in `dir` (groups.json and the QID file) under `claim`, against
/// `original` when given.
///
/// # Errors
/// A manifest that does not verify, a file that does not parse, a violation of the claim.
pub fn cahd(
    dir: &Path,
    claim: &txanon_cahd::CahdClaim,
    original: Option<&TransactionDb>,
) -> Result<Audited<txanon_cahd::CahdAuditReport>> {
    let manifest = check_directory(dir)?;
    let groups = required(dir, "groups.json")?;
    let published = txanon_cahd::PublishedGroups::from_json(&read_text(&groups)?)
        .map_err(|e| unreadable(&groups, e))?;
    if transaction_file(dir, "qid").is_some() {
        let qid = read_transactions(dir, "qid")?;
        txanon_cahd::audit_qid_file(&published, &qid).map_err(failed::<txanon_cahd::Cahd>)?;
    }
    let report =
        txanon_cahd::audit(&published, claim, original).map_err(failed::<txanon_cahd::Cahd>)?;
    Ok(Audited { report, manifest })
}

/// Audits kᵐ-anonymity's publication in `dir` (the published transactions and the cut) over
/// `hierarchy` (the auditor's; the publication's hierarchy.txt when `None`) under `claim`,
/// against `original` when given.
///
/// # Errors
/// As [`cahd`].
pub fn km(
    dir: &Path,
    hierarchy: Option<&txanon_km::Hierarchy>,
    claim: &txanon_km::KmClaim,
    original: Option<&TransactionDb>,
) -> Result<Audited<txanon_km::KmAuditReport>> {
    let manifest = check_directory(dir)?;
    let published = read_transactions(dir, "published")?;
    let (own, cut) = km_documents(dir, hierarchy.is_none())?;
    let hierarchy = hierarchy.or(own.as_ref()).expect("read when not given");
    let report = txanon_km::audit(&published, hierarchy, claim, cut.as_deref(), original)
        .map_err(failed::<txanon_km::Km>)?;
    Ok(Audited { report, manifest })
}

/// Audits one shard of a kᵐ-anonymous publication whose shards share one cut (`txanon.spark`'s):
/// the manifest, every published file, the shard as [`txanon_km::audit_shard`] checks it (the
/// published items, the cut, the shard's `original` when given) and its itemsets counted for
/// the caller to sum over the shards.
///
/// # Errors
/// As [`cahd`].
pub fn km_shard(
    dir: &Path,
    hierarchy: Option<&txanon_km::Hierarchy>,
    claim: &txanon_km::KmClaim,
    original: Option<&TransactionDb>,
) -> Result<(Audited<txanon_km::KmShardAuditReport>, txanon_km::ItemsetSupports)> {
    km_shard_counted(dir, hierarchy, claim, original, |published, _| {
        Ok(txanon_km::shard_itemsets(published, claim))
    })
}

/// [`km_shard`] with the shard's itemsets keyed by the nodes of the hierarchy it was audited
/// under ([`txanon_km::shard_node_itemsets`]), for an engine to sum by key in parts.
///
/// # Errors
/// As [`cahd`].
pub fn km_shard_by_node(
    dir: &Path,
    hierarchy: Option<&txanon_km::Hierarchy>,
    claim: &txanon_km::KmClaim,
    original: Option<&TransactionDb>,
) -> Result<(Audited<txanon_km::KmShardAuditReport>, txanon_km::NodeItemsetSupports)> {
    km_shard_counted(dir, hierarchy, claim, original, |published, hierarchy| {
        // Every published item is a node of the hierarchy, or the shard's audit failed.
        txanon_km::shard_node_itemsets(published, hierarchy, claim).map_err(failed::<txanon_km::Km>)
    })
}

/// A shard audited as [`km_shard`] says, its itemsets then counted by `count` from the
/// published transactions and the hierarchy the shard was audited under.
fn km_shard_counted<T>(
    dir: &Path,
    hierarchy: Option<&txanon_km::Hierarchy>,
    claim: &txanon_km::KmClaim,
    original: Option<&TransactionDb>,
    count: impl FnOnce(&TransactionDb, &txanon_km::Hierarchy) -> Result<T>,
) -> Result<(Audited<txanon_km::KmShardAuditReport>, T)> {
    let manifest = check_directory(dir)?;
    let published = read_transactions(dir, "published")?;
    let (own, cut) = km_documents(dir, hierarchy.is_none())?;
    let hierarchy = hierarchy.or(own.as_ref()).expect("read when not given");
    let report = txanon_km::audit_shard(&published, hierarchy, claim, cut.as_deref(), original)
        .map_err(failed::<txanon_km::Km>)?;
    let counted = count(&published, hierarchy)?;
    Ok((Audited { report, manifest }, counted))
}

/// The publication's own hierarchy (when `read_hierarchy`) and its cut, when it has one.
fn km_documents(
    dir: &Path,
    read_hierarchy: bool,
) -> Result<(Option<txanon_km::Hierarchy>, Option<Vec<String>>)> {
    let own = if read_hierarchy {
        let path = required(dir, "hierarchy.txt")?;
        Some(txanon_km::Hierarchy::read(&path).map_err(|e| unreadable(&path, e))?)
    } else {
        None
    };
    let cut = match dir.join("cut.txt") {
        path if path.is_file() => Some(
            read_text(&path)?
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_owned)
                .collect::<Vec<_>>(),
        ),
        _ => None,
    };
    Ok((own, cut))
}

/// Audits (h,k,p)-coherence's publication in `dir` under `claim` (which names the private
/// items), against `original` when given.
///
/// # Errors
/// As [`cahd`].
pub fn coherence(
    dir: &Path,
    claim: &txanon_coherence::CoherenceClaim,
    original: Option<&TransactionDb>,
) -> Result<Audited<txanon_coherence::CoherenceAuditReport>> {
    let manifest = check_directory(dir)?;
    let published = read_transactions(dir, "published")?;
    let report = txanon_coherence::audit(&published, claim, original)
        .map_err(failed::<txanon_coherence::Coherence>)?;
    Ok(Audited { report, manifest })
}

/// Audits one shard of a coherence publication whose shards share one suppression set (see
/// [`txanon_coherence::audit_shard`]): the manifest, the published transactions against
/// `original` when given; with the shard's itemsets counted for the union, keyed by its ids
/// for an engine's parts ([`txanon_coherence::shard_keyed_itemsets`]).
///
/// # Errors
/// As [`cahd`].
pub fn coherence_shard(
    dir: &Path,
    claim: &txanon_coherence::CoherenceClaim,
    original: Option<&TransactionDb>,
) -> Result<(
    Audited<txanon_coherence::CoherenceShardAuditReport>,
    txanon_coherence::ShardKeyedItemsets,
)> {
    let manifest = check_directory(dir)?;
    let published = read_transactions(dir, "published")?;
    let report = txanon_coherence::audit_shard(&published, claim, original)
        .map_err(failed::<txanon_coherence::Coherence>)?;
    let itemsets = txanon_coherence::shard_keyed_itemsets(&published, claim)
        .map_err(failed::<txanon_coherence::Coherence>)?;
    Ok((Audited { report, manifest }, itemsets))
}

/// Audits anatomy's publication in `dir` (table.json and the flattened records) under
/// `claim`, against `original` when given.
///
/// # Errors
/// As [`cahd`].
pub fn anatomy(
    dir: &Path,
    claim: &txanon_anatomy::AnatomyClaim,
    original: Option<&TransactionDb>,
) -> Result<Audited<txanon_anatomy::AnatomyAuditReport>> {
    let manifest = check_directory(dir)?;
    let path = required(dir, "table.json")?;
    let table = txanon_anatomy::AnatomizedTable::from_json(&read_text(&path)?)
        .map_err(|e| unreadable(&path, e))?;
    let flattened = match transaction_file(dir, "anonymized") {
        Some(_) => Some(read_transactions(dir, "anonymized")?),
        None => None,
    };
    let report = txanon_anatomy::audit(&table, claim, flattened.as_ref(), original)
        .map_err(failed::<txanon_anatomy::Anatomy>)?;
    Ok(Audited { report, manifest })
}

/// Audits a swap publication in `dir` against the `original` it was made from, its
/// `categories` and the data holder's `key`, under `claim`.
///
/// # Errors
/// As [`cahd`]; categories that do not fit the original.
pub fn swap(
    dir: &Path,
    original: &TransactionDb,
    categories: &ItemCategories,
    key: &[u32],
    claim: &txanon_swap::SwapClaim,
) -> Result<Audited<txanon_swap::SwapAuditReport>> {
    let manifest = check_directory(dir)?;
    let published = read_transactions(dir, "published")?;
    let original = Categorized::new(original, categories).map_err(PublishError::family)?;
    let report = txanon_swap::audit(original, &published, key, claim)
        .map_err(failed::<txanon_swap::Swap>)?;
    Ok(Audited { report, manifest })
}

/// Audits the files of a slicing publication in `dir` (sliced, Mondrian's generalized, or
/// Anatomy's tables, whichever it holds) against the `original` microdata for ℓ-diversity `l`
/// (and k-anonymity `k`, which a generalized table needs), without its manifest: the caller
/// checks that first ([`slicing`] does). Returns the family's report.
///
/// # Errors
/// A directory holding none of the three, a generalized table without `k`, a file that does
/// not parse, a violation of the claim.
pub fn slicing_files(
    dir: &Path,
    original: &txanon_slicing::Microdata,
    l: u64,
    k: Option<u64>,
) -> Result<serde_json::Value> {
    use txanon_slicing::{AnatomyTables, GeneralizedTable, SlicedTable, SlicingClaim};
    let at = |name: &str| dir.join(name);
    let select = |mut names: Vec<&str>| -> Result<txanon_slicing::Microdata> {
        names.sort_by_key(|n| original.index_of(n).unwrap_or(usize::MAX));
        original.select(&names).map_err(PublishError::family)
    };
    let claim = SlicingClaim::new(l).map_err(PublishError::family)?;
    let failed = failed::<txanon_slicing::Slicing>;
    let report = if at("sliced.json").exists() {
        let table = SlicedTable::read(&at("sliced.csv"), &at("sliced.json"))
            .map_err(|e| unreadable(&at("sliced.csv"), e))?;
        let data = select(table.meta.columns.iter().flatten().map(String::as_str).collect())?;
        serde_json::to_value(txanon_slicing::audit(&table, &data, &claim).map_err(failed)?)
    } else if at("generalized.json").exists() {
        let table = GeneralizedTable::read(&at("generalized.csv"), &at("generalized.json"))
            .map_err(|e| unreadable(&at("generalized.csv"), e))?;
        let data = select(table.meta.attributes.iter().map(String::as_str).collect())?;
        let Some(k) = k else {
            return Err(PublishError::Usage(format!(
                "{}: a generalized table is audited for k-anonymity too: give -k",
                dir.display()
            )));
        };
        let claim = SlicingClaim::with_k(l, k).map_err(PublishError::family)?;
        serde_json::to_value(
            txanon_slicing::audit_generalized(&table, &data, &claim).map_err(failed)?,
        )
    } else if at("anatomy.json").exists() {
        let tables = AnatomyTables::read(&at("qit.csv"), &at("st.csv"), &at("anatomy.json"))
            .map_err(|e| unreadable(&at("qit.csv"), e))?;
        let mut names: Vec<&str> =
            tables.meta.quasi_identifiers.iter().map(String::as_str).collect();
        names.push(&tables.meta.sensitive);
        let data = select(names)?;
        serde_json::to_value(txanon_slicing::audit_anatomy(&tables, &data, &claim).map_err(failed)?)
    } else {
        return Err(PublishError::Usage(format!(
            "{}: no sliced.json, generalized.json or anatomy.json",
            dir.display()
        )));
    };
    report.map_err(|e| PublishError::json("the report", e))
}

/// Audits a slicing publication in `dir`: its manifest, then [`slicing_files`].
///
/// # Errors
/// As [`slicing_files`]; a manifest that does not verify.
pub fn slicing(
    dir: &Path,
    original: &txanon_slicing::Microdata,
    l: u64,
    k: Option<u64>,
) -> Result<Audited<serde_json::Value>> {
    let manifest = check_directory(dir)?;
    let report = slicing_files(dir, original, l, k)?;
    Ok(Audited { report, manifest })
}
