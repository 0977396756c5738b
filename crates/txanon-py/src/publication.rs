//! `txanon.Publication`: one family's release as Python sees it (its transaction files as
//! pyarrow Tables, its summary, audit report, parameters and outcome as dicts) and written, with
//! its manifest, by the same code as the CLI's.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use txanon_data::Format;
use txanon_publish::{Content, Release, Source};

use crate::convert::Data;
use crate::errors::{Failure, detached};

/// A publication made in memory: what `txanon.anonymize.<family>` returns. It passed its
/// family's audit against the data before it was returned; `write` puts it on disk as the CLI
/// would, with its manifest.
#[pyclass(module = "txanon._txanon", frozen)]
#[derive(Debug)]
pub(crate) struct Publication {
    pub(crate) release: Release,
    sources: Vec<Owned>,
    /// What the common adversary needs besides the files, kept in memory, never written.
    pub(crate) attack: Option<AttackInputs>,
    /// Where the swap key was written, which no publication directory may hold.
    key_out: Option<PathBuf>,
}

/// What `txanon.attack` needs of a publication besides its files: the data it was made from,
/// its sensitive items, swap's categories and key (secrets, never written).
#[derive(Debug)]
pub(crate) struct AttackInputs {
    pub db: txanon_data::TransactionDb,
    pub sensitive: Vec<txanon_data::ItemId>,
    pub categories: Option<txanon_data::ItemCategories>,
    pub key: Option<Vec<u32>>,
}

/// An input as the manifest names it, owned.
#[derive(Debug)]
pub(crate) enum Owned {
    File(PathBuf),
    Memory { kind: String, records: usize },
}

impl Owned {
    /// The input `data` came from.
    pub(crate) fn of(data: &Data) -> Self {
        match data.source() {
            Source::File(path) => Owned::File(path.to_path_buf()),
            Source::Memory { kind, records } => Owned::Memory { kind, records },
        }
    }
}

impl Publication {
    /// `release`, made from `data`, which it keeps for the adversary ([`Publication::attackable`]).
    pub(crate) fn new(release: Release, data: Data, key_out: Option<PathBuf>) -> Self {
        let mut publication = Self::of_files(release, vec![Owned::of(&data)], key_out);
        publication.attack =
            Some(AttackInputs { db: data.db, sensitive: Vec::new(), categories: None, key: None });
        publication
    }

    /// `release`, made from `sources`.
    pub(crate) fn of_files(
        release: Release,
        sources: Vec<Owned>,
        key_out: Option<PathBuf>,
    ) -> Self {
        Self { release, sources, attack: None, key_out }
    }

    /// The publication with what the adversary needs of it besides its data: its sensitive
    /// items, swap's categories and key.
    pub(crate) fn attackable(
        mut self,
        mut sensitive: Vec<txanon_data::ItemId>,
        categories: Option<txanon_data::ItemCategories>,
        key: Option<Vec<u32>>,
    ) -> Self {
        if let Some(inputs) = &mut self.attack {
            sensitive.sort_unstable();
            inputs.sensitive = sensitive;
            inputs.categories = categories;
            inputs.key = key;
        }
        self
    }
}

/// The input files of `owned` (which a replaced directory must not hold) and every input as
/// the manifest names it.
pub(crate) fn sources_of(owned: &[Owned]) -> (Vec<&std::path::Path>, Vec<Source<'_>>) {
    let files = owned
        .iter()
        .filter_map(|s| match s {
            Owned::File(path) => Some(path.as_path()),
            Owned::Memory { .. } => None,
        })
        .collect();
    let sources = owned
        .iter()
        .map(|s| match s {
            Owned::File(path) => Source::File(path),
            Owned::Memory { kind, records } => {
                Source::Memory { kind: kind.clone(), records: *records }
            }
        })
        .collect();
    (files, sources)
}

/// `text` (JSON) as a Python object.
fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

fn format_of(to: Option<&str>) -> Result<Option<Format>, Failure> {
    to.map(|name| {
        let allowed = ["fimi", "basket-wide", "basket-long", "parquet", "arrow"];
        crate::convert::word("to", name, &allowed)?;
        name.parse::<Format>().map_err(|e| Failure::bad_input(format!("to = {name:?}: {e}")))
    })
    .transpose()
}

#[pymethods]
impl Publication {
    /// The method, as the CLI and the manifest name it (`cahd`, `swap/partswap`, …).
    #[getter]
    fn method(&self) -> &str {
        self.release.method()
    }

    /// summary.json as a dict: what was published and at what cost.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, self.release.summary())
    }

    /// The report of the audit this publication passed against the data, as a dict.
    #[getter]
    fn audit<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &self.release.audit().to_string())
    }

    /// The parameters the manifest records, as a dict.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &self.release.recorded_parameters().to_string())
    }

    /// What the run did: records, items and item occurrences in and published, what the
    /// method did, the guarantee audited, the warnings (the CLI's lines, as a dict).
    #[getter]
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &self.release.outcome().to_json().to_string())
    }

    /// The published transaction files as pyarrow Tables, by name (`published`, `qid`,
    /// `anonymized`): one column `items`, `list<uint32>` or `list<string>`.
    #[getter]
    fn tables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let tables = PyDict::new(py);
        for (name, content) in self.release.files() {
            if let Content::Transactions(db) = content {
                tables.set_item(name, crate::convert::table(py, db)?)?;
            }
        }
        Ok(tables)
    }

    /// The names of the files `write` writes, in the format `to` (the manifest aside).
    #[pyo3(signature = (to=None))]
    fn file_names<'py>(&self, py: Python<'py>, to: Option<&str>) -> PyResult<Bound<'py, PyList>> {
        let to = format_of(to)?;
        let mut names: Vec<String> = self
            .release
            .files()
            .iter()
            .map(|(name, content)| self.release.file_name(name, content, to))
            .collect();
        names.push(txanon_publish::SUMMARY.to_string());
        names.sort();
        PyList::new(py, names)
    }

    /// A file of the publication other than a transaction file (`groups.json`, `table.json`,
    /// `suppressed.json`, `cut.txt`, `hierarchy.txt`, …): JSON files as Python objects, text
    /// files as str.
    fn document<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let found = self.release.files().iter().find(|(n, _)| n == name);
        match found.map(|(_, c)| c) {
            Some(content @ Content::Json(_)) => {
                let bytes = content
                    .json_bytes()
                    .expect("a JSON file")
                    .map_err(|e| Failure::new(txanon_data::ErrorKind::Internal, e.to_string()))?;
                let text = String::from_utf8(bytes)
                    .map_err(|e| Failure::new(txanon_data::ErrorKind::Internal, e.to_string()))?;
                loads(py, &text)
            }
            Some(Content::Text(text)) => Ok(text.clone().into_pyobject(py)?.into_any()),
            _ => {
                let documents: Vec<&str> = self
                    .release
                    .files()
                    .iter()
                    .filter(|(_, c)| !matches!(c, Content::Transactions(_)))
                    .map(|(n, _)| n.as_str())
                    .collect();
                Err(Failure::bad_input(format!(
                    "document {name:?}: not a document of this publication; it has {} (transaction files are in .tables)",
                    documents.join(", ")
                ))
                .into())
            }
        }
    }

    /// Writes the publication into the directory `out`, whole or not at all, with its
    /// manifest, exactly as `txanon anonymize` writes it: `out` must be absent or empty, unless
    /// `force` replaces it atomically; `to` is the format of the transaction files (`fimi` by
    /// default, `basket-wide`, `basket-long`, `parquet`, `arrow`). Returns the directory.
    #[pyo3(signature = (out, *, force=false, to=None))]
    fn write(
        &self,
        py: Python<'_>,
        out: PathBuf,
        force: bool,
        to: Option<&str>,
    ) -> PyResult<String> {
        let to = format_of(to)?;
        if let Some(key) = &self.key_out {
            let absolute =
                |p: &std::path::Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
            if absolute(key).starts_with(absolute(&out)) {
                return Err(Failure::bad_input(format!(
                    "out {}: holds the key {}, which undoes the anonymization and must not be inside the publication",
                    out.display(),
                    key.display()
                ))
                .into());
            }
        }
        let committed = detached(py, || {
            let (inputs, sources) = sources_of(&self.sources);
            let staged = txanon_publish::prepare(&out, force, &inputs)?;
            Ok(self.release.commit(staged, to, &sources)?)
        })?;
        Ok(committed.path.display().to_string())
    }

    fn __repr__(&self) -> String {
        let outcome = self.release.outcome();
        format!(
            "<txanon.Publication {}: {}>",
            self.release.method(),
            outcome.lines().first().map_or("", String::as_str)
        )
    }
}
