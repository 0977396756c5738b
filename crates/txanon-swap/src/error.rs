//! Errors of the swap family.

use txanon_data::ParamError;

/// Errors of anonymization and audit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SwapError {
    /// A parameter outside its valid range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// The categorization does not fit the database.
    #[error(transparent)]
    Categories(#[from] txanon_data::CategoriesMismatch),
    /// The publication breaks the claim audited.
    #[error("audit failed: {0}")]
    Audit(crate::audit::SwapViolations),
}

impl txanon_data::Classify for SwapError {
    fn kind(&self) -> txanon_data::ErrorKind {
        use txanon_data::ErrorKind;
        match self {
            SwapError::Params(_) | SwapError::Categories(_) => ErrorKind::BadInput,
            SwapError::Audit(_) => ErrorKind::AuditFailed,
        }
    }
}
