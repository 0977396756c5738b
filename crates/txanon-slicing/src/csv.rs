//! The CSV form of the publications: written with quoting where needed, read back through
//! `txanon-data`'s table reader (so errors name file, line and column).

use std::borrow::Cow;
use std::path::Path;

use txanon_data::{Attribute, AttributeType, Role, Schema, Table};

use crate::error::SlicingError;

/// `field` quoted when it holds a comma, a quote, a line break or surrounding blanks (which
/// the reader would trim).
pub(crate) fn field(field: &str) -> Cow<'_, str> {
    let needs = field.contains([',', '"', '\n', '\r']) || field.trim() != field;
    if needs {
        Cow::Owned(format!("\"{}\"", field.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(field)
    }
}

/// One CSV line of `fields`.
pub(crate) fn line<'a>(fields: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, f) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&field(f));
    }
    out.push('\n');
    out
}

/// Reads a published CSV whose header must be exactly `header`, every field as text.
///
/// # Errors
/// The reader's located errors (wrong header, field count, UTF-8).
pub(crate) fn read(path: &Path, header: &[String]) -> Result<Vec<Vec<String>>, SlicingError> {
    let schema = Schema {
        name: path.display().to_string(),
        separator: ',',
        missing: None,
        missing_policy: Default::default(),
        comment_prefix: None,
        header: true,
        attributes: header
            .iter()
            .map(|name| Attribute {
                name: name.clone(),
                kind: AttributeType::Categorical,
                role: Role::Insensitive,
            })
            .collect(),
    };
    let table = Table::read(path, &schema)?;
    Ok((0..table.len())
        .map(|r| table.columns().iter().map(|c| c.value_text(r).into_owned()).collect())
        .collect())
}

/// Parses a count field.
pub(crate) fn count(text: &str, path: &Path, row: usize) -> Result<u32, SlicingError> {
    text.parse().map_err(|_| {
        SlicingError::Malformed(format!(
            "{}: data row {}: count {text:?} is not a non-negative integer",
            path.display(),
            row + 1
        ))
    })
}

/// Reads a metadata JSON file and checks its format tag.
pub(crate) fn read_meta<T: serde::de::DeserializeOwned>(
    path: &Path,
    expected: &str,
    format: impl Fn(&T) -> String,
) -> Result<T, SlicingError> {
    let text = txanon_data::read_text(path).map_err(|e| SlicingError::Malformed(e.to_string()))?;
    let meta: T = serde_json::from_str(&text)
        .map_err(|e| SlicingError::Malformed(format!("{}: {e}", path.display())))?;
    let found = format(&meta);
    if found != expected {
        return Err(SlicingError::Malformed(format!(
            "{}: format {found:?}, expected {expected:?}",
            path.display()
        )));
    }
    Ok(meta)
}
