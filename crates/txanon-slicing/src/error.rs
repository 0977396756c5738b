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

impl txanon_data::Classify for SlicingError {
    fn kind(&self) -> txanon_data::ErrorKind {
        use txanon_data::ErrorKind;
        match self {
            SlicingError::Params(_) | SlicingError::Schema(_) | SlicingError::Malformed(_) => {
                ErrorKind::BadInput
            }
            SlicingError::Infeasible(_) => ErrorKind::Infeasible,
            SlicingError::Data(e) => txanon_data::Classify::kind(e),
            SlicingError::Audit(_) => ErrorKind::AuditFailed,
        }
    }
}
