//! Errors of the slicing family.

use txanon_data::ParamError;

/// Errors of anonymization, publication and audit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SlicingError {
    /// A parameter outside its valid range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// The table's schema does not fit the method (no sensitive attribute, an unknown attribute
    /// name in a column specification, tables with different schemas).
    #[error("{0}")]
    Schema(String),
    /// No publication can satisfy the requirement on this table, whatever the partition.
    #[error("infeasible: {0}")]
    Infeasible(String),
    /// A published file does not have the expected form.
    #[error("malformed publication: {0}")]
    Malformed(String),
    /// A publication that breaks the claim audited.
    #[error("audit failed: {0}")]
    Audit(crate::audit::SlicingViolations),
    /// Reading a file.
    #[error(transparent)]
    Data(#[from] txanon_data::DataError),
}

impl SlicingError {
    /// True when the error comes from the caller's data or parameters (a CLI exits 2).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, SlicingError::Audit(_))
    }

    /// True for a publication that failed its audit (a CLI exits 3).
    pub fn is_audit_failure(&self) -> bool {
        matches!(self, SlicingError::Audit(_))
    }
}
