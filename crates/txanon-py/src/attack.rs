//! `txanon.attack`: the common adversary (the evaluation's) on one publication made in this
//! process, read through its published files and the secrets that say whose record is whose,
//! which a `Publication` keeps in memory and never writes.

use pyo3::prelude::*;
use txanon_attack::AttackParams;
use txanon_evaluate::{Published, attack_published};
use txanon_publish::Content;

use crate::convert::{Int, whole};
use crate::errors::{Failure, detached};
use crate::publication::Publication;

fn internal(why: impl std::fmt::Display) -> Failure {
    Failure::new(txanon_data::ErrorKind::Internal, why.to_string())
}

/// A JSON document of the release, parsed.
fn document<T>(
    publication: &Publication,
    name: &str,
    parse: impl Fn(&str) -> serde_json::Result<T>,
) -> Result<T, Failure> {
    let content = publication.release.file(name).ok_or_else(|| internal(format!("no {name}")))?;
    let bytes = content.json_bytes().ok_or_else(|| internal(format!("{name} is not JSON")))?;
    let text = String::from_utf8(bytes.map_err(internal)?).map_err(internal)?;
    parse(&text).map_err(internal)
}

fn transactions<'a>(
    publication: &'a Publication,
    name: &str,
) -> Result<&'a txanon_data::TransactionDb, Failure> {
    match publication.release.file(name) {
        Some(Content::Transactions(db)) => Ok(db),
        _ => Err(internal(format!("no transaction file {name}"))),
    }
}

/// `txanon.attack`'s native side.
#[pyfunction]
#[pyo3(signature = (publication, *, sensitive=None, known=None, draws=None, targets=None, seed_=None))]
pub(crate) fn attack<'py>(
    py: Python<'py>,
    publication: &Publication,
    sensitive: Option<Vec<String>>,
    known: Option<Vec<Int>>,
    draws: Option<Int>,
    targets: Option<Int>,
    seed_: Option<Int>,
) -> PyResult<Bound<'py, PyAny>> {
    let method = publication.release.method().to_string();
    let Some(inputs) = &publication.attack else {
        return Err(Failure::bad_input(format!(
            "publication: the adversary reads transaction publications; {method} publishes relational microdata"
        ))
        .into());
    };
    let known = known
        .unwrap_or_else(|| (1..=4).map(Int::from).collect())
        .into_iter()
        .map(|q| whole("known", q, 1usize, usize::MAX))
        .collect::<Result<Vec<_>, _>>()?;
    let params = AttackParams::new()
        .known(known)
        .draws(whole("draws", draws.unwrap_or_else(|| Int::from(10)), 1usize, usize::MAX)?)
        .sample(targets.map(|t| whole("targets", t, 1usize, usize::MAX)).transpose()?)
        .seed(seed_.map(|s| whole("seed", s, 0u64, u64::MAX)).transpose()?.unwrap_or(0))
        .check()
        .map_err(|e| Failure::of(&e))?;
    let db = &inputs.db;
    // The sensitive items: the publication's own (CAHD, coherence), or the caller's.
    let sensitive = match sensitive {
        Some(labels) => {
            let (mut items, unknown) = txanon_data::resolve_labels(db, &labels);
            if !unknown.is_empty() {
                return Err(Failure::bad_input(format!(
                    "sensitive: {} label(s) not in the data: {}",
                    unknown.len(),
                    unknown.join(" ")
                ))
                .into());
            }
            items.sort_unstable();
            items
        }
        None => inputs.sensitive.clone(),
    };
    let report = detached(py, || {
        let family = method.split('/').next().unwrap_or_default();
        let run = |published| {
            attack_published(db, &sensitive, inputs.categories.as_ref(), published, &params)
                .map_err(|e| Failure::of(&e))
        };
        match family {
            "anatomy" => {
                let table = document(
                    publication,
                    "table.json",
                    txanon_anatomy::AnatomizedTable::from_json,
                )?;
                let bucket_of =
                    publication.release.linkage().ok_or_else(|| internal("no buckets"))?;
                run(Published::Anatomy { table: &table, bucket_of })
            }
            "cahd" => {
                let groups =
                    document(publication, "groups.json", txanon_cahd::PublishedGroups::from_json)?;
                run(Published::Cahd { groups: &groups })
            }
            "coherence" => {
                run(Published::Coherence { published: transactions(publication, "published")? })
            }
            "km" => {
                let text = match publication.release.file("hierarchy.txt") {
                    Some(Content::Text(text)) => text,
                    _ => return Err(internal("no hierarchy.txt")),
                };
                let hierarchy =
                    txanon_km::Hierarchy::from_text(text).map_err(|e| Failure::of(&e))?;
                run(Published::Km {
                    published: transactions(publication, "published")?,
                    hierarchy: &hierarchy,
                })
            }
            "swap" => {
                let key = inputs.key.as_deref().ok_or_else(|| internal("no key"))?;
                run(Published::Swap { published: transactions(publication, "published")?, key })
            }
            other => Err(internal(format!("no adversary for {other}"))),
        }
    })?;
    // One row per number of known items and adversary.
    let mut rows = Vec::new();
    for k in &report.by_known {
        let mut add = |adversary: &str, risk: &txanon_attack::Risk| {
            let mut row = serde_json::to_value(risk).unwrap_or_default();
            if let Some(object) = row.as_object_mut() {
                object.insert("known".into(), k.known.into());
                object.insert("adversary".into(), adversary.into());
            }
            rows.push(row);
        };
        add("reidentification", &k.reidentification);
        add("sensitive-inference", &k.sensitive);
        if let Some(t) = &k.tendency {
            add("tendency-inference", t);
        }
    }
    let text = serde_json::to_string(&rows).map_err(internal)?;
    let list = py.import("json")?.call_method1("loads", (text,))?;
    py.import("pyarrow")?.getattr("Table")?.call_method1("from_pylist", (list,))
}
