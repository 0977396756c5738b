//! `txanon.audit.<family>`: a publication directory audited under the auditor's claim by
//! `txanon-publish`'s directory audits (the manifest first, every published file, the family's
//! own audit, which shares no code with its algorithm). The report comes back as a dict; a
//! failure as `AuditFailed` with the violations as objects.

use std::path::PathBuf;

use pyo3::prelude::*;
use txanon_anatomy::AnatomyClaim;
use txanon_cahd::CahdClaim;
use txanon_coherence::CoherenceClaim;
use txanon_data::TransactionDb;
use txanon_km::{Hierarchy, KmClaim};
use txanon_publish::PublishError;
use txanon_swap::SwapClaim;

use crate::convert::{Int, Reading, anatomy_diversity, data, swap_method, swap_ties, whole};
use crate::errors::{Failure, detached};

/// The original, when the auditor gives it: read as the data of a run.
pub(crate) fn original(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
) -> Result<Option<TransactionDb>, Failure> {
    value.map(|v| Ok(data(py, v, &Reading::default())?.db)).transpose()
}

/// kᵐ-anonymity's claim, and the auditor's hierarchy when given.
pub(crate) fn km_claim(
    k: Int,
    m: Int,
    hierarchy: Option<PathBuf>,
) -> Result<(KmClaim, Option<Hierarchy>), Failure> {
    let claim = KmClaim::new(whole("k", k, 2u64, u64::MAX)?, whole("m", m, 1u64, u64::MAX)?)
        .map_err(Failure::from)?;
    let hierarchy =
        hierarchy.map(|path| Hierarchy::read(&path).map_err(|e| Failure::of(&e))).transpose()?;
    Ok((claim, hierarchy))
}

/// (h,k,p)-coherence's claim: the private items named.
pub(crate) fn coherence_claim(
    h: f64,
    k: Int,
    p: Int,
    sensitive: Vec<String>,
) -> Result<CoherenceClaim, Failure> {
    if sensitive.is_empty() {
        return Err(Failure::bad_input("sensitive: no sensitive (private) item"));
    }
    Ok(CoherenceClaim::new(h, whole("k", k, 2u64, u64::MAX)?, whole("p", p, 1u64, u64::MAX)?)
        .map_err(Failure::from)?
        .private(sensitive))
}

/// The audit's report as a dict.
fn report<'py, R: serde::Serialize>(
    py: Python<'py>,
    audited: Result<txanon_publish::audit::Audited<R>, PublishError>,
) -> PyResult<Bound<'py, PyAny>> {
    dict(py, &audited.map_err(Failure::from)?)
}

/// A report as Python objects (through JSON, as the CLI prints it).
pub(crate) fn dict<'py>(
    py: Python<'py>,
    value: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| Failure::new(txanon_data::ErrorKind::Internal, e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// CAHD's publication in `dir` (see `txanon.audit.cahd`).
#[pyfunction]
#[pyo3(signature = (dir, *, p, sensitive, original_=None))]
pub(crate) fn audit_cahd<'py>(
    py: Python<'py>,
    dir: PathBuf,
    p: Int,
    sensitive: Vec<String>,
    original_: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let p = whole("p", p, 2u64, u64::MAX)?;
    let claim = CahdClaim::new(p, sensitive).map_err(Failure::from)?;
    let original = original(py, original_)?;
    let audited =
        detached(py, || Ok(txanon_publish::audit::cahd(&dir, &claim, original.as_ref())))?;
    report(py, audited)
}

/// kᵐ-anonymity's publication in `dir` (see `txanon.audit.km`).
#[pyfunction]
#[pyo3(signature = (dir, *, k, m, hierarchy=None, original_=None))]
pub(crate) fn audit_km<'py>(
    py: Python<'py>,
    dir: PathBuf,
    k: Int,
    m: Int,
    hierarchy: Option<PathBuf>,
    original_: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (claim, hierarchy) = km_claim(k, m, hierarchy)?;
    let original = original(py, original_)?;
    let audited = detached(py, || {
        Ok(txanon_publish::audit::km(&dir, hierarchy.as_ref(), &claim, original.as_ref()))
    })?;
    report(py, audited)
}

/// (h,k,p)-coherence's publication in `dir` (see `txanon.audit.coherence`).
#[pyfunction]
#[pyo3(signature = (dir, *, h, k, p, sensitive, original_=None))]
pub(crate) fn audit_coherence<'py>(
    py: Python<'py>,
    dir: PathBuf,
    h: f64,
    k: Int,
    p: Int,
    sensitive: Vec<String>,
    original_: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let claim = coherence_claim(h, k, p, sensitive)?;
    let original = original(py, original_)?;
    let audited =
        detached(py, || Ok(txanon_publish::audit::coherence(&dir, &claim, original.as_ref())))?;
    report(py, audited)
}

/// Anatomy's publication in `dir` (see `txanon.audit.anatomy`).
#[pyfunction]
#[pyo3(signature = (dir, *, l, diversity="frequency", original_=None))]
pub(crate) fn audit_anatomy<'py>(
    py: Python<'py>,
    dir: PathBuf,
    l: Int,
    diversity: &str,
    original_: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let diversity = anatomy_diversity(diversity)?;
    let claim =
        AnatomyClaim::new(whole("l", l, 2u64, u64::MAX)?, diversity).map_err(Failure::from)?;
    let original = original(py, original_)?;
    let audited =
        detached(py, || Ok(txanon_publish::audit::anatomy(&dir, &claim, original.as_ref())))?;
    report(py, audited)
}

/// A swap publication in `dir` (see `txanon.audit.swap`).
#[pyfunction]
#[pyo3(signature = (dir, *, original_, categories, key, method="partswap", max_exposed=None, ties="first"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn audit_swap<'py>(
    py: Python<'py>,
    dir: PathBuf,
    original_: &Bound<'py, PyAny>,
    categories: PathBuf,
    key: PathBuf,
    method: &str,
    max_exposed: Option<Int>,
    ties: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let claim = SwapClaim::new(swap_method(method)?)
        .max_exposed(whole(
            "max_exposed",
            max_exposed.unwrap_or_else(|| Int::from(0)),
            0usize,
            usize::MAX,
        )?)
        .ties(swap_ties(ties)?);
    let original = data(py, original_, &Reading::default())?.db;
    let audited = detached(py, || {
        let categories = txanon_data::read_categories(&categories, &original)?.0;
        let key = txanon_publish::swap::SwapKey::read(&key)?;
        Ok(txanon_publish::audit::swap(&dir, &original, &categories, key.records(), &claim))
    })?;
    report(py, audited)
}

/// A slicing publication in `dir` (see `txanon.audit.slicing`).
#[pyfunction]
#[pyo3(signature = (dir, *, original_, schema, l, k=None))]
pub(crate) fn audit_slicing<'py>(
    py: Python<'py>,
    dir: PathBuf,
    original_: PathBuf,
    schema: PathBuf,
    l: Int,
    k: Option<Int>,
) -> PyResult<Bound<'py, PyAny>> {
    let l = whole("l", l, 2u64, u64::MAX)?;
    let k = k.map(|k| whole("k", k, 1u64, u64::MAX)).transpose()?;
    let audited = detached(py, || {
        let schema = txanon_data::Schema::from_path(&schema).map_err(|e| Failure::of(&e))?;
        let table = txanon_data::Table::read(&original_, &schema).map_err(|e| Failure::of(&e))?;
        let original =
            txanon_slicing::Microdata::from_table(&table).map_err(|e| Failure::of(&e))?;
        Ok(txanon_publish::audit::slicing(&dir, &original, l, k))
    })?;
    report(py, audited)
}
