//! What one run did, for the person who ran it: what went in, what was published, what the
//! method did to get there, the guarantee its audit verified, and a warning when the
//! publication kept little of the data, naming the parameter that drives the loss. The CLI
//! prints its lines (or its JSON with `--json`); Python hands the JSON over as a dict.

use serde::Serialize;
use txanon_data::TransactionDb;

/// What one run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    lines: Vec<String>,
    warnings: Vec<String>,
    counts: Option<Counts>,
    did: Vec<String>,
    audited: String,
}

/// Records, distinct items and item occurrences in and published.
#[derive(Debug, Clone, Copy, Serialize)]
struct Counts {
    records_in: u64,
    records_published: u64,
    items_in: u64,
    items_published: u64,
    occurrences_in: u64,
    occurrences_published: u64,
}

/// The `outcome` member of `--json`.
#[derive(Debug, Serialize)]
struct OutcomeJson<'a> {
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    counts: Option<Counts>,
    /// Published occurrences over input ones, when there were any.
    #[serde(skip_serializing_if = "Option::is_none")]
    occurrences_kept: Option<f64>,
    summary: &'a str,
    did: &'a [String],
    audited: &'a str,
    warnings: &'a [String],
}

impl Outcome {
    /// A run of `method` from `input` to `published`: records, distinct items and item
    /// occurrences in and out; a warning when fewer than half the occurrences were kept,
    /// naming `driver` (the parameters that trade occurrences for privacy).
    pub fn transactions(
        method: &str,
        input: &TransactionDb,
        published: &TransactionDb,
        driver: &str,
    ) -> Self {
        let present = |db: &TransactionDb| db.supports().iter().filter(|&&s| s > 0).count();
        let (before, after) = (input.occurrences() as u64, published.occurrences() as u64);
        let mut outcome = Self {
            lines: vec![
                format!("{method}: {} records in, {} published", input.len(), published.len()),
                format!("  items: {} in, {} published", present(input), present(published)),
                format!(
                    "  item occurrences: {before} in, {after} published ({})",
                    percent(after, before)
                ),
            ],
            warnings: Vec::new(),
            counts: Some(Counts {
                records_in: input.len() as u64,
                records_published: published.len() as u64,
                items_in: present(input) as u64,
                items_published: present(published) as u64,
                occurrences_in: before,
                occurrences_published: after,
            }),
            did: Vec::new(),
            audited: String::new(),
        };
        if after * 2 < before {
            outcome.warnings.push(format!(
                "the publication keeps {} of the item occurrences: {driver} decide how much is lost",
                percent(after, before)
            ));
        }
        outcome
    }

    /// A run whose publication is not a transaction file (slicing's tables): its first line.
    pub fn new(line: impl Into<String>) -> Self {
        Self {
            lines: vec![line.into()],
            warnings: Vec::new(),
            counts: None,
            did: Vec::new(),
            audited: String::new(),
        }
    }

    /// A line saying what the method did (suppressed, generalized, swapped, …).
    pub fn did(mut self, what: impl Into<String>) -> Self {
        let what = what.into();
        self.lines.push(format!("  {what}"));
        self.did.push(what);
        self
    }

    /// A warning of the method's own.
    pub fn warn(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    /// The guarantee the audit verified, last.
    pub fn audited(mut self, guarantee: impl Into<String>) -> Self {
        self.audited = guarantee.into();
        self.lines.push(format!("  audited: {}", self.audited));
        self
    }

    /// The lines for people, first the records in and published.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The warnings (fewer than half the occurrences kept, the method's own).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The facts as one JSON object, numbers as numbers: records, items and occurrences in and
    /// published, the share of occurrences kept, the first line, what the method did, the
    /// guarantee audited, the warnings.
    pub fn to_json(&self) -> serde_json::Value {
        let outcome = OutcomeJson {
            counts: self.counts,
            occurrences_kept: self
                .counts
                .filter(|c| c.occurrences_in > 0)
                .map(|c| c.occurrences_published as f64 / c.occurrences_in as f64),
            summary: self.lines.first().map_or("", String::as_str),
            did: &self.did,
            audited: &self.audited,
            warnings: &self.warnings,
        };
        serde_json::to_value(outcome).expect("the outcome is plain data")
    }
}

/// `part` of `whole` as a percentage with one decimal.
fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "all".into();
    }
    format!("{:.1}%", 100.0 * part as f64 / whole as f64)
}
