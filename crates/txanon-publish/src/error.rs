//! The one error of a release, a publication's staging and its manifest's check, classified
//! like every error of the workspace so that each front end maps it to its exit code or
//! exception.

use txanon_data::{Classify, ErrorKind};

/// Why a release could not be made, written or verified.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The caller's: an output directory that cannot take a publication, one another run is
    /// writing, options that do not go together.
    #[error("{0}")]
    Usage(String),
    /// A publication whose files are not what its manifest lists: a failed audit.
    #[error("{0}")]
    Tampered(String),
    /// A publication that breaks the guarantee its auditor names.
    #[error("{message}")]
    AuditFailed {
        /// The family audited, as the registry names it.
        family: &'static str,
        /// The audit's summary: how many violations, the first few.
        message: String,
        /// Every violation listed, as an object with its `kind` and numbers.
        violations: Vec<serde_json::Value>,
    },
    /// The family refused the data or the parameters, or failed.
    #[error("{source}")]
    Family {
        /// The family error's own kind.
        kind: ErrorKind,
        /// The family's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Reading or writing a file of the publication.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, naming the file.
        context: String,
        /// The failure.
        source: std::io::Error,
    },
    /// Serializing a file of the publication (a bug).
    #[error("serializing {what}: {source}")]
    Json {
        /// The file.
        what: String,
        /// The failure.
        source: serde_json::Error,
    },
}

impl PublishError {
    /// A family's (or the data layer's) error, with its kind.
    pub fn family<E>(error: E) -> Self
    where
        E: Classify + std::error::Error + Send + Sync + 'static,
    {
        Self::Family { kind: error.kind(), source: Box::new(error) }
    }

    /// An I/O failure while `context`.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io { context: context.into(), source }
    }

    /// A serialization failure of `what`.
    pub fn json(what: impl Into<String>, source: serde_json::Error) -> Self {
        Self::Json { what: what.into(), source }
    }
}

impl Classify for PublishError {
    fn kind(&self) -> ErrorKind {
        match self {
            PublishError::Usage(_) => ErrorKind::BadInput,
            PublishError::Tampered(_) | PublishError::AuditFailed { .. } => ErrorKind::AuditFailed,
            PublishError::Family { kind, .. } => *kind,
            PublishError::Io { source, .. } if txanon_data::io_is_users(source.kind()) => {
                ErrorKind::BadInput
            }
            PublishError::Io { .. } | PublishError::Json { .. } => ErrorKind::Internal,
        }
    }
}

impl From<txanon_data::DataError> for PublishError {
    fn from(error: txanon_data::DataError) -> Self {
        Self::family(error)
    }
}

/// The result of this crate's functions.
pub type Result<T> = std::result::Result<T, PublishError>;
