//! What can stop an evaluation.

use thiserror::Error;

/// An evaluation that could not be completed.
#[derive(Debug, Error)]
pub enum EvaluateError {
    /// Parameters out of range.
    #[error(transparent)]
    Params(#[from] txanon_data::ParamError),
    /// A publication that failed its own audit (a bug in a family: nothing is evaluated).
    #[error("{method} failed its audit: {reason}")]
    Audit {
        /// The method.
        method: &'static str,
        /// The family's report.
        reason: String,
    },
    /// A publication naming an item the original does not have (a bug in a conversion).
    #[error("a publication names the item {0:?}, which the original does not have")]
    UnknownLabel(String),
    /// A publication the adversary's model cannot describe (a bug in a conversion).
    #[error(transparent)]
    View(#[from] txanon_attack::ViewError),
    /// Association-rule generation over the frequent itemsets.
    #[error(transparent)]
    Mining(#[from] txanon_mining::MiningError),
}

impl txanon_data::Classify for EvaluateError {
    /// A label the original lacks or a view that cannot be built means two of the run's own
    /// results disagree: internal.
    fn kind(&self) -> txanon_data::ErrorKind {
        use txanon_data::ErrorKind;
        match self {
            EvaluateError::Params(_) => ErrorKind::BadInput,
            EvaluateError::Audit { .. } => ErrorKind::AuditFailed,
            EvaluateError::Mining(e) => txanon_data::Classify::kind(e),
            EvaluateError::UnknownLabel(_) | EvaluateError::View(_) => ErrorKind::Internal,
        }
    }
}
