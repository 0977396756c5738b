//! An evaluation as a directory (`txanon evaluate`, Python's `Evaluation.write`): report.html,
//! results.csv, results.json, the drawn sensitive items (sensitive.txt) and the manifest, staged and moved into place like a publication;
//! and the frontier as rows, for front ends that hand tables over.

use serde::Serialize;
use txanon_evaluate::frontier::{Adversary, standings};
use txanon_evaluate::{Evaluation, Outcome, report};

use crate::error::{PublishError, Result};
use crate::files::write_text;
use crate::staging::{Committed, Description, Source, Staged};

/// The options of an evaluation as its manifest records them, named as the CLI's.
#[derive(Debug, Clone, Serialize)]
pub struct EvaluationParameters {
    /// The methods, as given.
    pub methods: Vec<String>,
    /// The privacy levels.
    pub levels: Vec<usize>,
    /// The numbers of known items.
    pub known: Vec<usize>,
    /// Draws per target.
    pub draws: usize,
    /// Targets sampled, if not all.
    pub targets: Option<usize>,
    /// Minimum supports (shares).
    pub supports: Vec<f64>,
    /// Workload queries.
    pub queries: usize,
    /// Anatomy's columns, when given.
    pub anatomy_columns: Option<usize>,
    /// Coherence's p.
    pub coherence_p: usize,
    /// kᵐ-anonymity's m.
    pub km_m: usize,
    /// The number of random categories, when drawn.
    pub random_categories: Option<usize>,
    /// The threats the decision is taken against, when one is asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub threat: Vec<String>,
    /// The largest risk accepted, when a decision is asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_risk: Option<f64>,
    /// Whether the sensitive items were drawn at random: they are then written out
    /// (sensitive.txt), so that the recommended command protects the same items.
    #[serde(skip)]
    pub drawn_sensitive: bool,
}

/// An evaluation with what its manifest records.
#[derive(Debug, Clone)]
pub struct EvaluationReport {
    evaluation: Evaluation,
    parameters: serde_json::Value,
    seeded: bool,
    drawn_sensitive: bool,
}

/// One point against one adversary at one number of known items: its risk, its utility, and
/// whether any other point beats it.
#[derive(Debug, Clone, Serialize)]
pub struct FrontierRow {
    /// The adversary (`reidentification`, `sensitive-inference`, `tendency-inference`).
    pub adversary: Adversary,
    /// Items the adversary knows.
    pub known: usize,
    /// The method (or the reference: `original`, `sensitive removed`).
    pub method: String,
    /// The level matched, if any.
    pub level: Option<usize>,
    /// Mean risk over the targets.
    pub risk: f64,
    /// Frequent-itemset F1 at the first support.
    pub f1: f64,
    /// Workload error.
    pub workload_error: f64,
    /// On the frontier: no other publication is as good on every axis and better on one
    /// (a reference, the original with or without its sensitive items, never is).
    pub frontier: bool,
    /// The points that beat it, as reports name them.
    pub beaten_by: Vec<String>,
}

/// The file name of an evaluation's JSON results.
pub const RESULTS: &str = "results.json";

impl EvaluationReport {
    /// `evaluation`, run with `parameters` (the sensitive items' labels are added from the
    /// evaluation), seeded or not.
    ///
    /// # Errors
    /// Serialization (a bug).
    pub fn new(
        evaluation: Evaluation,
        parameters: &EvaluationParameters,
        seeded: bool,
    ) -> Result<Self> {
        let mut value = serde_json::to_value(parameters)
            .map_err(|e| PublishError::json("the parameters", e))?;
        if let Some(object) = value.as_object_mut() {
            object.insert("sensitive".into(), evaluation.data.sensitive.clone().into());
        }
        Ok(Self {
            evaluation,
            parameters: value,
            seeded,
            drawn_sensitive: parameters.drawn_sensitive,
        })
    }

    /// The evaluation.
    pub fn evaluation(&self) -> &Evaluation {
        &self.evaluation
    }

    /// The parameters the manifest records.
    pub fn parameters(&self) -> &serde_json::Value {
        &self.parameters
    }

    /// report.html: one self-contained page, opening with where `data` (the evaluated data's
    /// source) came from.
    pub fn html(&self, data: &Source<'_>) -> String {
        report::html(&self.evaluation, &provenance(data))
    }

    /// results.csv: a row per point and number of known items.
    pub fn csv(&self) -> String {
        report::csv(&self.evaluation)
    }

    /// results.json's text.
    ///
    /// # Errors
    /// Serialization (a bug).
    pub fn json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(&self.evaluation)
            .map_err(|e| PublishError::json(RESULTS, e))?
            + "\n")
    }

    /// Every published point against every adversary that attacked it, at every number of
    /// known items.
    pub fn frontier(&self) -> Vec<FrontierRow> {
        let mut rows = Vec::new();
        for adversary in Adversary::ALL {
            for &known in &self.evaluation.settings.known {
                for s in standings(&self.evaluation, adversary, known) {
                    rows.push(FrontierRow {
                        adversary,
                        known,
                        method: s.point.method.clone(),
                        level: s.point.level,
                        risk: s.risk,
                        f1: s.f1,
                        workload_error: s.workload_error,
                        frontier: s.on_frontier(),
                        beaten_by: s.beaten_by.iter().map(|p| p.label()).collect(),
                    });
                }
            }
        }
        rows
    }

    /// How many points were published (and not refused).
    pub fn published(&self) -> usize {
        self.evaluation
            .points
            .iter()
            .filter(|p| matches!(p.outcome, Outcome::Published { .. }))
            .count()
    }

    /// Writes report.html, results.csv, results.json and the manifest naming `inputs` into
    /// `staged`, and moves the directory into place.
    ///
    /// # Errors
    /// I/O.
    pub fn commit(&self, staged: Staged, inputs: &[Source<'_>]) -> Result<Committed> {
        let data = inputs.first().cloned().unwrap_or(Source::Memory {
            kind: "data".into(),
            records: self.evaluation.data.transactions,
        });
        write_text(&staged.path("report.html"), &self.html(&data))?;
        write_text(&staged.path("results.csv"), &self.csv())?;
        write_text(&staged.path(RESULTS), &self.json()?)?;
        if self.drawn_sensitive {
            let mut text = String::from(
                "# The sensitive items this evaluation drew (--sensitive-random), one label per line\n",
            );
            for label in &self.evaluation.data.sensitive {
                text.push_str(label);
                text.push('\n');
            }
            write_text(&staged.path(crate::SENSITIVE_FILE), &text)?;
        }
        staged.commit(Description {
            method: "evaluate",
            parameters: &self.parameters,
            seeded: self.seeded,
            inputs,
            audit: &serde_json::json!(
                "each publication passed its family's audit; see results.json"
            ),
            note: Some("an evaluation: report.html, results.json and results.csv; no publication"),
        })
    }
}

/// Where the evaluated data came from (a file's name, size and sha256, as it was read), the
/// day, and the tool's version and commit.
pub fn provenance(data: &Source<'_>) -> report::Provenance {
    let (name, digest) = match data {
        Source::File(path) => (path.display().to_string(), txanon_data::source::input_digest(path)),
        Source::Memory { kind, records } => {
            (format!("{kind} of {records} records, in memory"), None)
        }
    };
    report::Provenance {
        data: name,
        sha256: digest.as_ref().map(|d| d.sha256.clone()),
        bytes: digest.map(|d| d.bytes),
        date: utc_date(std::time::SystemTime::now()),
        version: env!("CARGO_PKG_VERSION").into(),
        commit: option_env!("TXANON_COMMIT").unwrap_or("unknown").into(),
    }
}

/// The UTC calendar day of `time` as `YYYY-MM-DD` (the proleptic Gregorian calendar's civil
/// date of the days since 1970-01-01).
pub(crate) fn utc_date(time: std::time::SystemTime) -> String {
    let days =
        time.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| (d.as_secs() / 86_400) as i64);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_are_the_calendar_days() {
        let at = |secs: u64| utc_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(951_868_799), "2000-02-29");
        assert_eq!(at(951_868_800), "2000-03-01");
        assert_eq!(at(1_795_824_000), "2026-11-28");
        assert_eq!(at(1_795_823_999), "2026-11-27");
        assert_eq!(at(4_102_444_799), "2099-12-31");
    }
}
