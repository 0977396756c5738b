//! Errors of the cahd family.

use txanon_data::ParamError;

/// Errors of anonymization, audit and the reconstruction-error workload.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CahdError {
    /// A parameter outside its valid range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// No sensitive item given.
    #[error("no sensitive item: CAHD protects sensitive items, give at least one")]
    NoSensitiveItems,
    /// A sensitive item in more than `1/p` of all transactions: every partition into groups
    /// has a group where it is more frequent than `1/p`.
    #[error(
        "sensitive item {item} is in {support} of {transactions} transactions, more than 1/{p}: no grouping can reach privacy degree {p} (at most {max_p})"
    )]
    Infeasible {
        /// The item's label.
        item: String,
        /// Its support.
        support: usize,
        /// Transactions in all.
        transactions: usize,
        /// The privacy degree asked for.
        p: usize,
        /// The largest degree this item allows.
        max_p: usize,
    },
    /// Published groups that break the claim audited.
    #[error("audit failed: {0}")]
    Audit(crate::audit::CahdViolations),
    /// A published table that cannot be read.
    #[error("unreadable published groups: {0}")]
    Json(#[from] serde_json::Error),
    /// A published table that does not belong to the original it is compared with.
    #[error("published groups do not match the original: {0}")]
    Mismatch(String),
}

impl txanon_data::Classify for CahdError {
    /// A malformed or mismatched publication handed to a library call is the caller's
    /// inconsistency, not the user's input: internal.
    fn kind(&self) -> txanon_data::ErrorKind {
        use txanon_data::ErrorKind;
        match self {
            CahdError::Params(_) | CahdError::NoSensitiveItems => ErrorKind::BadInput,
            CahdError::Infeasible { .. } => ErrorKind::Infeasible,
            CahdError::Audit(_) => ErrorKind::AuditFailed,
            CahdError::Json(_) | CahdError::Mismatch(_) => ErrorKind::Internal,
        }
    }
}
