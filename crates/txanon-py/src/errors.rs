//! Errors as Python exceptions: every failure the Rust crates classify becomes the exception
//! of its kind, defined in `txanon/errors.py` (`BadInput`, a `ValueError`; `Infeasible`;
//! `AuditFailed`, carrying the violations as objects; `InternalError`), with the same one-line
//! message the CLI prints. A panic is caught before it reaches Python and raised as
//! `InternalError`.

use pyo3::prelude::*;
use txanon_data::progress::Progress;
use txanon_data::{Classify, ErrorKind};
use txanon_publish::PublishError;

/// A failure on its way to Python: its kind, its message, and for a failed audit the violations
/// (each a JSON object with its `kind` and numbers).
#[derive(Debug)]
pub(crate) struct Failure {
    kind: ErrorKind,
    message: String,
    family: Option<&'static str>,
    violations: Vec<serde_json::Value>,
}

impl Failure {
    /// The caller's mistake: `message` names the argument, the value and what is allowed.
    pub(crate) fn bad_input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadInput, message)
    }

    /// A failure of `kind`.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), family: None, violations: Vec::new() }
    }

    /// Any classified error, with its chain of causes in the message (as the CLI prints it).
    pub(crate) fn of<E: Classify + std::error::Error>(error: &E) -> Self {
        Self::new(error.kind(), chain(error))
    }
}

/// An error's message with its causes, joined by ": ", a cause said once when its parent's
/// message already ends with it.
fn chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !message.ends_with(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = c.source();
    }
    message
}

impl From<PublishError> for Failure {
    fn from(error: PublishError) -> Self {
        match error {
            PublishError::AuditFailed { family, message, violations } => {
                Self { kind: ErrorKind::AuditFailed, message, family: Some(family), violations }
            }
            // The manifest or a file of the publication: one violation, of kind `manifest`.
            PublishError::Tampered(message) => Self {
                kind: ErrorKind::AuditFailed,
                violations: vec![serde_json::json!({ "kind": "manifest", "message": message })],
                message,
                family: None,
            },
            other => Self::of(&other),
        }
    }
}

impl From<txanon_data::DataError> for Failure {
    fn from(error: txanon_data::DataError) -> Self {
        Self::of(&error)
    }
}

impl From<txanon_data::ParamError> for Failure {
    fn from(error: txanon_data::ParamError) -> Self {
        Self::of(&error)
    }
}

impl From<PyErr> for Failure {
    /// A Python error met on the way (a failed conversion): the caller's input.
    fn from(error: PyErr) -> Self {
        Self::bad_input(error.to_string())
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> Self {
        Python::attach(|py| match raise(py, &failure) {
            Ok(err) | Err(err) => err,
        })
    }
}

/// The exception `failure` becomes (an error importing `txanon.errors` is returned as is).
fn raise(py: Python<'_>, failure: &Failure) -> PyResult<PyErr> {
    let errors = py.import("txanon.errors")?;
    let exception = match failure.kind {
        ErrorKind::BadInput => errors.getattr("BadInput")?.call1((&failure.message,))?,
        ErrorKind::Infeasible => errors.getattr("Infeasible")?.call1((&failure.message,))?,
        ErrorKind::Internal => errors.getattr("InternalError")?.call1((&failure.message,))?,
        ErrorKind::AuditFailed => {
            let json = py.import("json")?;
            let violations = failure
                .violations
                .iter()
                .map(|v| json.call_method1("loads", (v.to_string(),)))
                .collect::<PyResult<Vec<_>>>()?;
            errors
                .getattr("AuditFailed")?
                .call_method1("_from_native", (&failure.message, failure.family, violations))?
        }
    };
    Ok(PyErr::from_value(exception))
}

/// A panic's payload as the internal failure it is (a bug, never the caller's input).
fn panicked(payload: &(dyn std::any::Any + Send)) -> Failure {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    Failure::new(
        ErrorKind::Internal,
        format!(
            "internal failure (a bug in txanon {}: please report it with the call): {what}",
            env!("CARGO_PKG_VERSION")
        ),
    )
}

/// Runs `work` without the GIL, a panic inside it caught and made an internal failure, so that
/// nothing but the exceptions of `txanon.errors` reaches Python and the interpreter is never
/// aborted.
pub(crate) fn detached<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<T, Failure> + Send,
) -> Result<T, Failure> {
    py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            .unwrap_or_else(|payload| Err(panicked(&*payload)))
    })
}

/// How often a watched run looks at its progress and at Python's signals.
const WATCH: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `work` on a thread of its own while this one, without the GIL but for a moment every
/// 50 ms, watches it: `callback(phase, done, total)` is called when `progress` moved, and
/// Python's signals are checked, so that Ctrl-C (`KeyboardInterrupt`) or an exception raised by
/// the callback cancels the work, which stops at its next checkpoint, and is raised once the
/// work has unwound. A panic is an internal failure, as in [`detached`].
pub(crate) fn watched<T: Send>(
    py: Python<'_>,
    progress: &Progress,
    callback: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce() -> Result<T, Failure> + Send,
) -> PyResult<T> {
    // The worker says when it is done, so that its end is seen at once, not at the next look.
    let finished = (std::sync::Mutex::new(false), std::sync::Condvar::new());
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            *finished.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = true;
            finished.1.notify_all();
            outcome
        });
        let mut interrupted: Option<PyErr> = None;
        let mut shown = (String::new(), u64::MAX, u64::MAX);
        loop {
            let ended = py.detach(|| {
                let guard = finished.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let (guard, _) = finished
                    .1
                    .wait_timeout_while(guard, WATCH, |ended| !*ended)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                *guard
            });
            if ended {
                break;
            }
            if interrupted.is_some() {
                continue;
            }
            let mut watch = || -> PyResult<()> {
                py.check_signals()?;
                if let Some(callback) = callback {
                    let now = (progress.phase().0, progress.done(), progress.total());
                    if now != shown && !now.0.is_empty() {
                        callback.call1((&now.0, now.1, now.2))?;
                        shown = now;
                    }
                }
                Ok(())
            };
            if let Err(e) = watch() {
                progress.cancel();
                interrupted = Some(e);
            }
        }
        let outcome = worker.join().unwrap_or_else(|payload| std::panic::resume_unwind(payload));
        match (outcome, interrupted) {
            (_, Some(e)) => Err(e),
            (Ok(result), None) => result.map_err(PyErr::from),
            (Err(payload), None) => Err(panicked(&*payload).into()),
        }
    })
}
