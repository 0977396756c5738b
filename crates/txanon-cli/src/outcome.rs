//! The few lines every `anonymize` ends with on standard error, for the person who ran it (the
//! run's [`Outcome`], made by its release); with `--json` the same facts go to standard output
//! as one JSON object beside the run's summary, numbers as numbers.

pub use txanon_publish::Outcome;

/// Reports a run: with `json`, one object on standard output holding `summary` (the run's
/// summary.json, given as its text) and the outcome; else the outcome's lines for people on
/// standard error and the summary on standard output.
///
/// # Errors
/// When standard output cannot be written, or the summary is not JSON (a bug).
pub fn report(outcome: &Outcome, summary: &str, json: bool) -> anyhow::Result<()> {
    if json {
        let value = serde_json::json!({
            "summary": serde_json::from_str::<serde_json::Value>(summary)?,
            "outcome": outcome.to_json(),
        });
        return crate::input::emit(&(serde_json::to_string_pretty(&value)? + "\n"));
    }
    for line in outcome.lines() {
        eprintln!("{line}");
    }
    for warning in outcome.warnings() {
        eprintln!("warning: {warning}");
    }
    crate::input::emit(summary)
}
