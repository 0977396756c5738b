//! Mapping errors to exit codes: 3 for a publication that failed its audit, 2 for the user's
//! input or parameters, 1 for everything else.

use std::process::ExitCode;

use txanon_data::{Classify, ErrorKind, Family, FamilyName};

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

/// The kind of one cause of an error, when it is one of the workspace's (the families' errors,
/// found through the registry, the data layer's and the shared crates', this binary's own):
/// each says its kind through [`Classify`], and this is the one list of the types a cause may
/// be.
fn kind_of(cause: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    macro_rules! classified {
        ($($t:ty),* $(,)?) => {$(
            if let Some(e) = cause.downcast_ref::<$t>() {
                return Some(e.kind());
            }
        )*};
    }
    if cause.downcast_ref::<UsageError>().is_some() {
        return Some(ErrorKind::BadInput);
    }
    if cause.downcast_ref::<AuditFailed>().is_some() {
        return Some(ErrorKind::AuditFailed);
    }
    // A path the user named that cannot be read or written, wherever it surfaced.
    if let Some(e) = cause.downcast_ref::<std::io::Error>() {
        return txanon_data::io_is_users(e.kind()).then_some(ErrorKind::BadInput);
    }
    if let Some(kind) = FamilyName::ALL.into_iter().find_map(|f| family_error_kind(f, cause)) {
        return Some(kind);
    }
    classified!(
        txanon_publish::PublishError,
        txanon_data::DataError,
        txanon_data::ParamError,
        txanon_data::CategoriesMismatch,
        txanon_mining::MiningError,
        txanon_evaluate::EvaluateError,
    );
    None
}

/// The kind of `cause` when it is `family`'s error. Matching the registry exhaustively makes a
/// new family a compile error here until its error is classified.
fn family_error_kind(
    family: FamilyName,
    cause: &(dyn std::error::Error + 'static),
) -> Option<ErrorKind> {
    fn kind<F: Family>(cause: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
        cause.downcast_ref::<F::Error>().map(Classify::kind)
    }
    match family {
        FamilyName::Anatomy => kind::<txanon_anatomy::Anatomy>(cause),
        FamilyName::Cahd => kind::<txanon_cahd::Cahd>(cause),
        FamilyName::Coherence => kind::<txanon_coherence::Coherence>(cause),
        FamilyName::Km => kind::<txanon_km::Km>(cause),
        FamilyName::Swap => kind::<txanon_swap::Swap>(cause),
        FamilyName::Slicing => kind::<txanon_slicing::Slicing>(cause),
    }
}

/// True when some cause of `error` is a failed audit.
pub(crate) fn audit_failed(error: &anyhow::Error) -> bool {
    error.chain().filter_map(kind_of).any(|k| k == ErrorKind::AuditFailed)
}

/// The exit code of `error`: 3 when any cause is a failed audit, else 2 when any is the user's
/// input or a setting the data cannot meet, else 1.
fn exit_code(error: &anyhow::Error) -> u8 {
    if audit_failed(error) {
        AUDIT_FAILED
    } else if error
        .chain()
        .filter_map(kind_of)
        .any(|k| matches!(k, ErrorKind::BadInput | ErrorKind::Infeasible))
    {
        2
    } else {
        INTERNAL
    }
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
    exit_code(error)
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

    /// A family's error says its kind, and the kind decides the exit code, under any context.
    #[test]
    fn the_kind_decides_the_exit_code() {
        let code = |e: anyhow::Error| exit_code(&e.context("running"));
        let infeasible = txanon_coherence::CoherenceError::NoCohesion("the empty itemset".into());
        assert_eq!(code(infeasible.into()), 2);
        let internal = txanon_cahd::CahdError::Mismatch("groups".into());
        assert_eq!(code(internal.into()), INTERNAL);
        let params =
            txanon_data::ParamError::OutOfRange { name: "k", value: "0".into(), reason: "r" };
        assert_eq!(code(txanon_km::KmError::Params(params).into()), 2);
        let disk = std::io::Error::other("device failure");
        assert_eq!(code(disk.into()), INTERNAL);
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(code(missing.into()), 2);
    }
}
