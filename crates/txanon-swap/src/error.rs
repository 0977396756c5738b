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

impl SwapError {
    /// True when the error comes from the caller's data or parameters (a CLI exits 2).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, SwapError::Audit(_))
    }

    /// True for a publication that failed its audit (a CLI exits 3).
    pub fn is_audit_failure(&self) -> bool {
        matches!(self, SwapError::Audit(_))
    }
}
