//! The few lines every `anonymize` ends with on standard error, for the person who ran it: what
//! went in, what was published, what the method did to get there, the guarantee its audit
//! verified, and a warning when the publication kept little of the data, naming the parameter
//! that drives the loss. The JSON summary on standard output (and summary.json) carries the same
//! figures for machines.

use txanon_data::TransactionDb;

/// What one run did.
#[derive(Debug)]
pub struct Outcome {
    lines: Vec<String>,
    warnings: Vec<String>,
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
        Self { lines: vec![line.into()], warnings: Vec::new() }
    }

    /// A line saying what the method did (suppressed, generalized, swapped, …).
    pub fn did(mut self, what: impl Into<String>) -> Self {
        self.lines.push(format!("  {}", what.into()));
        self
    }

    /// A warning of the method's own.
    pub fn warn(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    /// The guarantee the audit verified, last; then prints everything to standard error.
    pub fn audited(mut self, guarantee: impl Into<String>) {
        self.lines.push(format!("  audited: {}", guarantee.into()));
        for line in &self.lines {
            eprintln!("{line}");
        }
        for warning in &self.warnings {
            eprintln!("warning: {warning}");
        }
    }
}

/// `part` of `whole` as a percentage with one decimal.
fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "all".into();
    }
    format!("{:.1}%", 100.0 * part as f64 / whole as f64)
}
