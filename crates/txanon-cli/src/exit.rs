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
fn audit_failed(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<AuditFailed>().is_some()
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
                .downcast_ref::<txanon_swap::SwapError>()
                .is_some_and(txanon_swap::SwapError::is_audit_failure)
            || cause
                .downcast_ref::<txanon_slicing::SlicingError>()
                .is_some_and(txanon_slicing::SlicingError::is_audit_failure)
    })
}

/// Prints `error` with its causes to stderr and picks the exit code.
pub fn report(error: &anyhow::Error) -> ExitCode {
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
        return ExitCode::from(AUDIT_FAILED);
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
                .downcast_ref::<txanon_swap::SwapError>()
                .is_some_and(txanon_swap::SwapError::is_bad_input)
            || cause
                .downcast_ref::<txanon_slicing::SlicingError>()
                .is_some_and(txanon_slicing::SlicingError::is_bad_input)
            || cause.downcast_ref::<txanon_data::ParamError>().is_some()
    });
    ExitCode::from(if bad_input { 2 } else { 1 })
}
