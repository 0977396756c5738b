//! Errors of the data layer: every error that comes from input names where it came from.

use std::path::{Path, PathBuf};

/// Where in an input a problem was found: file, 1-based line, 1-based byte column.
///
/// A column of 0 means the problem concerns the whole line (a wrong field count, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, or a pseudo-path such as `<memory>` for in-memory input.
    pub path: PathBuf,
    /// 1-based line number.
    pub line: u64,
    /// 1-based byte column of the offending token, 0 when the whole line is at fault.
    pub column: u64,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.column == 0 {
            write!(f, "{}:{}", self.path.display(), self.line)
        } else {
            write!(f, "{}:{}:{}", self.path.display(), self.line, self.column)
        }
    }
}

/// Errors of the data layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// A malformed token or line.
    #[error("{location}: {reason}")]
    Parse {
        /// Where the problem is.
        location: Location,
        /// What is wrong, lower-case.
        reason: String,
    },
    /// A problem with a whole file rather than one line (empty file, nothing to read).
    #[error("{path}: {reason}", path = path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The operating system refused to read or write.
    #[error("{path}: {source}", path = path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A `.gz` stream that cannot be decompressed.
    #[error("{path}: unreadable gzip stream near line {line}: {source}", path = path.display())]
    Gzip {
        /// The file.
        path: PathBuf,
        /// The last line read completely before the failure, plus one.
        line: u64,
        /// The decoder's error.
        #[source]
        source: std::io::Error,
    },
    /// A dataset whose bytes do not match the checksum its manifest records.
    #[error(
        "{path}: sha256 mismatch: expected {expected}, found {actual} (the file is not the dataset the manifest describes)",
        path = path.display()
    )]
    Checksum {
        /// The file.
        path: PathBuf,
        /// The manifest's sha256.
        expected: String,
        /// The file's sha256.
        actual: String,
    },
    /// A binary cache that is stale, corrupt or from another format version.
    #[error("{path}: cache rejected: {reason}", path = path.display())]
    Cache {
        /// The cache file.
        path: PathBuf,
        /// Why it was rejected.
        reason: String,
    },
    /// A caller asked for something the data cannot give (FIMI output of string labels, say).
    #[error("{0}")]
    Unsupported(String),
    /// Invalid parameters.
    #[error(transparent)]
    Params(#[from] ParamError),
}

/// An invalid parameter, found when a params struct is checked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// A numeric parameter outside its valid range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    OutOfRange {
        /// The parameter's name as the CLI spells it.
        name: &'static str,
        /// The value given.
        value: String,
        /// The valid range, in words.
        reason: &'static str,
    },
    /// A count outside the range the data allows.
    #[error("invalid parameter {name} = {value}: choose between {min} and {max}, {what}")]
    OutOfBounds {
        /// The parameter's name as the CLI spells it.
        name: &'static str,
        /// The value given.
        value: String,
        /// The smallest valid value.
        min: u64,
        /// The largest valid value.
        max: u64,
        /// What bounds it.
        what: &'static str,
    },
}

impl ParamError {
    /// The parameter at fault, as the CLI spells it: what a test asserts, not the wording.
    pub fn name(&self) -> &'static str {
        match self {
            ParamError::OutOfRange { name, .. } | ParamError::OutOfBounds { name, .. } => name,
        }
    }
}

impl DataError {
    pub(crate) fn parse(path: &Path, line: u64, column: u64, reason: impl Into<String>) -> Self {
        DataError::Parse {
            location: Location { path: path.to_path_buf(), line, column },
            reason: reason.into(),
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        DataError::Io { path: path.to_path_buf(), source }
    }

    pub(crate) fn invalid(path: &Path, reason: impl Into<String>) -> Self {
        DataError::Invalid { path: path.to_path_buf(), reason: reason.into() }
    }

    /// An error while reading line `line` of `path`: a decoder failure when the input is gzip,
    /// an I/O error otherwise. The one place the readers map read errors.
    pub(crate) fn reading(path: &Path, line: u64, gzip: bool, source: std::io::Error) -> Self {
        if gzip {
            DataError::Gzip { path: path.to_path_buf(), line, source }
        } else {
            DataError::io(path, source)
        }
    }
}

/// What a failure means to its caller: the one classification every error of the workspace
/// reports through [`Classify`], which the CLI's exit codes, the experiments' refusals and the
/// evaluation's levels out of reach all read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The caller's data, parameters or paths are wrong (a CLI exits 2).
    BadInput,
    /// Valid parameters that this data cannot meet, or that would take more than a limit
    /// allows: a level out of reach (a CLI exits 2; an experiment records a refusal).
    Infeasible,
    /// A publication failed its audit (a CLI exits 3).
    AuditFailed,
    /// A failure inside the run: a bug, or the machine (a CLI exits 1).
    Internal,
}

/// An error that says what kind of failure it is.
pub trait Classify {
    /// The kind of this failure.
    fn kind(&self) -> ErrorKind;
}

impl Classify for DataError {
    /// The user's input, except an I/O failure that [`io_is_users`] does not name: the
    /// machine's.
    fn kind(&self) -> ErrorKind {
        match self {
            DataError::Io { source, .. } if !io_is_users(source.kind()) => ErrorKind::Internal,
            _ => ErrorKind::BadInput,
        }
    }
}

impl Classify for ParamError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::BadInput
    }
}

impl Classify for crate::db::CategoriesMismatch {
    fn kind(&self) -> ErrorKind {
        ErrorKind::BadInput
    }
}

/// Whether an I/O failure of this kind is about what the user named, not the machine's fault: a
/// missing or forbidden path, a directory where a file was meant (or the reverse), a read-only
/// file system, a full disk, an invalid name.
pub fn io_is_users(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind::{
        AlreadyExists, InvalidFilename, IsADirectory, NotADirectory, NotFound, PermissionDenied,
        ReadOnlyFilesystem, StorageFull,
    };
    matches!(
        kind,
        NotFound
            | PermissionDenied
            | IsADirectory
            | NotADirectory
            | ReadOnlyFilesystem
            | StorageFull
            | AlreadyExists
            | InvalidFilename
    )
}

/// Result alias of the data layer.
pub type Result<T, E = DataError> = std::result::Result<T, E>;
