//! Mapping errors to exit codes: 3 for a publication that failed its audit, 2 for the user's
//! input or parameters, 1 for everything else.

use std::process::ExitCode;

use txanon_data::DataError;
use txanon_mining::MiningError;

/// An error the user caused with arguments that clap could not check (an impossible combination,
/// say). Exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A publication that fails a check the CLI makes itself (a file changed since the manifest
/// listed it). Exit code 3, as a failed audit.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct AuditFailed(pub String);

/// The exit code of a publication that failed its audit: distinct from bad input (2), so that
/// a script can tell "the file is malformed" from "the publication is unsafe".
pub const AUDIT_FAILED: u8 = 3;

/// True when some cause of `error` is a failed audit.
pub(crate) fn audit_failed(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<AuditFailed>().is_some()
            || cause
                .downcast_ref::<txanon_evaluate::EvaluateError>()
                .is_some_and(|e| matches!(e, txanon_evaluate::EvaluateError::Audit { .. }))
            || cause
                .downcast_ref::<txanon_anatomy::AnatomyError>()
                .is_some_and(txanon_anatomy::AnatomyError::is_audit_failure)
            || cause
                .downcast_ref::<txanon_cahd::CahdError>()
                .is_some_and(txanon_cahd::CahdError::is_audit_failure)
            || cause
                .downcast_ref::<txanon_coherence::CoherenceError>()
                .is_some_and(txanon_coherence::CoherenceError::is_audit_failure)
            || cause
                .downcast_ref::<txanon_km::KmError>()
                .is_some_and(txanon_km::KmError::is_audit_failure)
            || cause
                .downcast_ref::<txanon_swap::SwapError>()
                .is_some_and(txanon_swap::SwapError::is_audit_failure)
            || cause
                .downcast_ref::<txanon_slicing::SlicingError>()
                .is_some_and(txanon_slicing::SlicingError::is_audit_failure)
    })
}

/// Prints `error` with its causes to stderr and picks the exit code.
fn report(error: &anyhow::Error) -> u8 {
    // The causes joined by ": ", as `{:#}` would, but a cause its parent's message already
    // ends with is said once (an OS error inside a located error, say).
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.ends_with(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    eprintln!("error: {message}");
    if audit_failed(error) {
        return AUDIT_FAILED;
    }
    let bad_input = error.chain().any(|cause| {
        cause.downcast_ref::<UsageError>().is_some()
            || cause.downcast_ref::<DataError>().is_some_and(DataError::is_bad_input)
            // Every mining error comes from the parameters: a limit, an impossible combination.
            || cause.downcast_ref::<MiningError>().is_some()
            || cause
                .downcast_ref::<txanon_anatomy::AnatomyError>()
                .is_some_and(txanon_anatomy::AnatomyError::is_bad_input)
            || cause.downcast_ref::<txanon_cahd::CahdError>().is_some_and(txanon_cahd::CahdError::is_bad_input)
            || cause
                .downcast_ref::<txanon_coherence::CoherenceError>()
                .is_some_and(txanon_coherence::CoherenceError::is_bad_input)
            || cause
                .downcast_ref::<txanon_km::KmError>()
                .is_some_and(txanon_km::KmError::is_bad_input)
            || cause
                .downcast_ref::<txanon_swap::SwapError>()
                .is_some_and(txanon_swap::SwapError::is_bad_input)
            || cause
                .downcast_ref::<txanon_slicing::SlicingError>()
                .is_some_and(txanon_slicing::SlicingError::is_bad_input)
            || cause.downcast_ref::<txanon_data::ParamError>().is_some()
            || cause
                .downcast_ref::<txanon_evaluate::EvaluateError>()
                .is_some_and(|e| matches!(e, txanon_evaluate::EvaluateError::Params(_)))
            || cause.downcast_ref::<txanon_data::CategoriesMismatch>().is_some()
            // A path the user named that cannot be read or written, wherever it surfaced.
            || cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| txanon_data::io_is_users(e.kind()))
    });
    if bad_input { 2 } else { INTERNAL }
}

/// The exit code of an internal failure: a bug, never the user's input.
pub const INTERNAL: u8 = 1;

/// Runs a subcommand and maps its outcome to the exit code: its error as [`report`] says, and
/// a panic (a bug, wherever it happened, rayon's workers included) to [`INTERNAL`] with a
/// request to report it instead of Rust's 101.
pub fn guarded(run: impl FnOnce() -> anyhow::Result<()>) -> ExitCode {
    ExitCode::from(guarded_code(run))
}

fn guarded_code(run: impl FnOnce() -> anyhow::Result<()>) -> u8 {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        eprintln!(
            "error: internal failure (a bug in txanon {}: please report it with the command line)",
            env!("CARGO_PKG_VERSION")
        );
        default_hook(info);
    }));
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => report(&e),
        Err(_) => INTERNAL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's exit-code table, row 1, which no input can reach (that is the point): a
    /// panic and an error that is neither the user's nor an audit's both exit 1.
    #[test]
    fn internal_failures_exit_1() {
        assert_eq!(guarded_code(|| panic!("a bug")), INTERNAL);
        assert_eq!(guarded_code(|| Err(anyhow::anyhow!("an invariant broke"))), INTERNAL);
        assert_eq!(guarded_code(|| Ok(())), 0);
        let usage = || Err(UsageError("bad".into()).into());
        assert_eq!(guarded_code(usage), 2);
        let mismatch = txanon_data::CategoriesMismatch { categorized: 2, items: 3 };
        assert_eq!(guarded_code(|| Err(mismatch.into())), 2);
        let audit = || Err(AuditFailed("changed".into()).into());
        assert_eq!(guarded_code(audit), AUDIT_FAILED);
    }
}
