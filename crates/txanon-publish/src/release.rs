//! A family's release: the files it publishes, its summary, the parameters and audit report its
//! manifest records, and what the run did; written into a staged publication by any front end,
//! so that the CLI and the Python package publish the same bytes.

use std::sync::Arc;

use txanon_data::{Format, TransactionDb, Unpersisted};

use crate::error::{PublishError, Result};
use crate::files::{
    text_unpersisted, transaction_file, transactions_unpersisted, with_unpersisted,
};
use crate::outcome::Outcome;
use crate::staging::{Committed, Description, Source, Staged};

/// Streams one JSON file of a release.
type JsonWriter = Arc<dyn Fn(&mut dyn std::io::Write) -> serde_json::Result<()> + Send + Sync>;

/// One file of a release.
#[derive(Clone)]
pub enum Content {
    /// A transaction file: named `<name>.<ext>` by the format the publication is written in.
    Transactions(Arc<TransactionDb>),
    /// A JSON file, written compact (streamed: it can be larger than the data).
    Json(JsonWriter),
    /// A text file.
    Text(String),
}

impl std::fmt::Debug for Content {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Content::Transactions(db) => write!(f, "Transactions({} records)", db.len()),
            Content::Json(_) => f.write_str("Json(..)"),
            Content::Text(text) => write!(f, "Text({} bytes)", text.len()),
        }
    }
}

impl Content {
    /// `value` as a JSON file.
    pub fn json<T: serde::Serialize + Send + Sync + 'static>(value: T) -> Self {
        let value = Arc::new(value);
        Content::Json(Arc::new(move |w| crate::files::compact_json(w, &*value)))
    }

    /// A JSON file's bytes, as written.
    ///
    /// # Errors
    /// Serialization (a bug).
    pub fn json_bytes(&self) -> Option<serde_json::Result<Vec<u8>>> {
        match self {
            Content::Json(write) => {
                let mut bytes = Vec::new();
                Some(write(&mut bytes).map(|()| bytes))
            }
            _ => None,
        }
    }
}

/// What one family's run publishes.
#[derive(Debug, Clone)]
pub struct Release {
    pub(crate) method: String,
    /// The published files, by name (a transaction file's stem).
    pub(crate) files: Vec<(String, Content)>,
    /// summary.json's text.
    pub(crate) summary: String,
    pub(crate) parameters: serde_json::Value,
    pub(crate) seeded: bool,
    pub(crate) audit: serde_json::Value,
    pub(crate) note: Option<&'static str>,
    pub(crate) outcome: Outcome,
    /// A secret link between input and published records kept in memory, never written:
    /// anatomy's bucket of each input record (`u32::MAX`: suppressed).
    pub(crate) linkage: Option<std::sync::Arc<Vec<u32>>>,
}

/// The file name of a release's summary.
pub const SUMMARY: &str = "summary.json";

impl Release {
    /// A release of `method` whose summary is `summary`.
    ///
    /// # Errors
    /// Serialization of the summary or the audit report (a bug).
    pub(crate) fn new(
        method: impl Into<String>,
        summary: &impl serde::Serialize,
        audit: &impl serde::Serialize,
        seeded: bool,
        outcome: Outcome,
    ) -> Result<Self> {
        Ok(Self {
            method: method.into(),
            files: Vec::new(),
            summary: serde_json::to_string_pretty(summary)
                .map_err(|e| PublishError::json(SUMMARY, e))?
                + "\n",
            parameters: serde_json::Value::Null,
            seeded,
            audit: serde_json::to_value(audit).map_err(|e| PublishError::json("the audit", e))?,
            note: None,
            outcome,
            linkage: None,
        })
    }

    /// Adds a file (for a transaction file, its stem).
    pub fn with(mut self, name: impl Into<String>, content: Content) -> Self {
        self.files.push((name.into(), content));
        self
    }

    /// Adds `sensitive.txt`: the sensitive (or private) items the run drew at random, one label
    /// per line, so that an auditor knows what the run protected.
    pub fn with_drawn_sensitive(self, db: &TransactionDb, items: &[txanon_data::ItemId]) -> Self {
        let mut text = String::from(
            "# The sensitive items this run drew (--sensitive-random), one label per line\n",
        );
        for &i in items {
            text.push_str(&db.label(i).to_string());
            text.push('\n');
        }
        self.with(crate::SENSITIVE_FILE, Content::Text(text))
    }

    /// The parameters the manifest records.
    pub(crate) fn parameters(mut self, parameters: serde_json::Value) -> Self {
        self.parameters = parameters;
        self
    }

    /// The method, as the CLI names it (`km`, `swap/partswap`, …).
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The published files but the summary and the manifest, in the order written (a
    /// transaction file by its stem).
    pub fn files(&self) -> &[(String, Content)] {
        &self.files
    }

    /// summary.json's text (pretty JSON with a final newline).
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// The parameters the manifest records.
    pub fn recorded_parameters(&self) -> &serde_json::Value {
        &self.parameters
    }

    /// The report of the audit the publication passed.
    pub fn audit(&self) -> &serde_json::Value {
        &self.audit
    }

    /// The secret link between input and published records, when the family has one that
    /// its files do not show (anatomy: the bucket of each input record); never written.
    pub fn linkage(&self) -> Option<&[u32]> {
        self.linkage.as_deref().map(Vec::as_slice)
    }

    /// A file's content, by its name (a transaction file by its stem).
    pub fn file(&self, name: &str) -> Option<&Content> {
        self.files.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// What the run did.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// The name a file `name` of the release takes in a publication written in `to`.
    pub fn file_name(&self, name: &str, content: &Content, to: Option<Format>) -> String {
        match content {
            Content::Transactions(db) => transaction_file(name, db, to).0,
            _ => name.to_string(),
        }
    }

    /// Writes the release into `staged` (transaction files in the format `to`), its summary
    /// and its manifest naming `inputs`, and moves the publication into place.
    ///
    /// # Errors
    /// I/O; an input file not read to its end.
    pub fn commit(
        &self,
        staged: Staged,
        to: Option<Format>,
        inputs: &[Source<'_>],
    ) -> Result<Committed> {
        // Each file written on a thread of its own, formatted on rayon, so that one file's
        // writes (the kernel's copy into the page cache, then the sync) overlap another's
        // formatting; then moved into place one after the other, in the release's order.
        let written: Vec<Result<Unpersisted>> = std::thread::scope(|scope| {
            let writers: Vec<_> = self
                .files
                .iter()
                .map(|(name, content)| {
                    let staged = &staged;
                    scope.spawn(move || match content {
                        Content::Transactions(db) => {
                            transactions_unpersisted(staged.dir(), name, db, to).map(|(_, w)| w)
                        }
                        Content::Json(write) => with_unpersisted(&staged.path(name), |w| {
                            write(w).map_err(std::io::Error::other)
                        }),
                        Content::Text(text) => text_unpersisted(&staged.path(name), text),
                    })
                })
                .collect();
            writers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        // Nothing moved unless every file was written: the first failure in the release's
        // order, the others' files removed as they are dropped.
        let written: Vec<Unpersisted> = written.into_iter().collect::<Result<_>>()?;
        for file in written {
            file.persist()?;
        }
        crate::files::write_text(&staged.path(SUMMARY), &self.summary)?;
        staged.commit(Description {
            method: &self.method,
            parameters: &self.parameters,
            seeded: self.seeded,
            inputs,
            audit: &self.audit,
            note: self.note,
        })
    }
}
