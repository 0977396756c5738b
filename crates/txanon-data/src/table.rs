//! Relational microdata for the slicing family: typed columns, attribute roles, a JSON schema.
//!
//! A schema file names each attribute in file order with its type (`categorical` or `numeric`)
//! and role (`identifier`, `quasi_identifier`, `sensitive`, `insensitive`), plus how the CSV is
//! written: separator, the token for a missing value, comment prefix, header line. Missing values
//! follow the schema's `missing_policy`: `drop_row` (default: a row with a missing value in any
//! attribute is dropped and counted; this is what the slicing paper does with Adult, keeping
//! 30,162 of adult.data's 32,561 rows) or `as_value` (the token becomes an ordinary category;
//! a missing numeric value is still an error).

use std::borrow::Cow;
use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{DataError, Result};
use crate::read::{LineReader, open_input, split_csv, utf8_line};

/// The type of an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttributeType {
    /// Values are labels; stored as codes into a sorted list of distinct values.
    Categorical,
    /// Values are numbers; stored as `f64`.
    Numeric,
}

/// The privacy role of an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Identifies a person directly; never published.
    Identifier,
    /// Could be linked with outside knowledge to re-identify.
    QuasiIdentifier,
    /// The value to protect.
    Sensitive,
    /// Neither.
    Insensitive,
}

/// What to do with a missing value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissingPolicy {
    /// Drop the row, and count it.
    #[default]
    DropRow,
    /// Keep the missing token as a category of its own.
    AsValue,
}

/// One attribute of a schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attribute {
    /// Name.
    pub name: String,
    /// Type.
    #[serde(rename = "type")]
    pub kind: AttributeType,
    /// Role.
    pub role: Role,
}

/// A table's schema, read from JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    /// A name for the table.
    pub name: String,
    /// Field separator, one character (default `,`); fields are trimmed of blanks.
    #[serde(default = "default_separator")]
    pub separator: char,
    /// The token of a missing value, if the data has one (`?` for Adult).
    #[serde(default)]
    pub missing: Option<String>,
    /// What to do with missing values.
    #[serde(default)]
    pub missing_policy: MissingPolicy,
    /// Lines starting with this prefix are skipped (`|` for adult.test's first line).
    #[serde(default)]
    pub comment_prefix: Option<String>,
    /// Whether the first non-comment line is a header (checked against the attribute names).
    #[serde(default)]
    pub header: bool,
    /// The attributes, in file order.
    pub attributes: Vec<Attribute>,
}

fn default_separator() -> char {
    ','
}

impl Schema {
    /// Reads a JSON schema file.
    ///
    /// # Errors
    /// [`DataError::Parse`] with line and column of a JSON error, [`DataError::Invalid`] for a
    /// schema with no attributes, duplicate names, or a non-ASCII separator.
    pub fn from_path(path: &Path) -> Result<Self> {
        let text = crate::read::read_text(path)?;
        let schema: Schema = serde_json::from_str(&text).map_err(|e| {
            DataError::parse(
                path,
                e.line() as u64,
                e.column() as u64,
                format!("invalid schema: {e}"),
            )
        })?;
        schema.validate(path)?;
        Ok(schema)
    }

    fn validate(&self, path: &Path) -> Result<()> {
        if self.attributes.is_empty() {
            return Err(DataError::invalid(path, "schema has no attributes"));
        }
        if !self.separator.is_ascii() || self.separator == '"' {
            return Err(DataError::invalid(
                path,
                format!(
                    "separator {:?} must be one ASCII character other than a quote",
                    self.separator
                ),
            ));
        }
        let mut names: Vec<&str> = self.attributes.iter().map(|a| a.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(DataError::invalid(path, format!("attribute {:?} is named twice", w[0])));
        }
        Ok(())
    }

    /// The index of the attribute called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.attributes.iter().position(|a| a.name == name)
    }
}

/// A column of a [`Table`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Column {
    /// Categorical values as codes into `values` (sorted, distinct).
    Categorical {
        /// One code per row.
        codes: Vec<u32>,
        /// The distinct values, sorted.
        values: Vec<String>,
    },
    /// Numeric values.
    Numeric(Vec<f64>),
}

impl Column {
    /// Number of distinct values.
    pub fn distinct(&self) -> usize {
        match self {
            Column::Categorical { values, .. } => values.len(),
            Column::Numeric(v) => {
                let mut s: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
                s.sort_unstable();
                s.dedup();
                s.len()
            }
        }
    }

    /// The value of row `row` as text.
    pub fn value_text(&self, row: usize) -> Cow<'_, str> {
        match self {
            Column::Categorical { codes, values } => Cow::Borrowed(&values[codes[row] as usize]),
            Column::Numeric(v) => Cow::Owned(v[row].to_string()),
        }
    }
}

/// Relational microdata: one typed column per attribute of its schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    schema: Schema,
    columns: Vec<Column>,
    rows: usize,
    dropped_rows: usize,
}

impl Table {
    /// Reads a CSV file (plain or gzip) with `schema`.
    ///
    /// Blank lines are skipped (Adult ends with one). Each row must have exactly one field per
    /// attribute; numeric fields must parse as finite numbers.
    ///
    /// # Errors
    /// [`DataError::Parse`] naming file, line and column for a wrong field count, a non-numeric
    /// value in a numeric attribute, a header that does not match the schema, or invalid UTF-8;
    /// [`DataError::Invalid`] for a file with no row.
    pub fn read(path: &Path, schema: &Schema) -> Result<Self> {
        let (reader, gzip) = open_input(path)?;
        Self::read_from(reader, path, schema, gzip)
    }

    /// Reads from any buffered reader; `path` names the source in errors.
    ///
    /// Long as one function: one pass over the file (header, each line's fields checked and typed,
    /// the missing-value policy) on the line reader's state.
    pub fn read_from<R: BufRead>(
        reader: R,
        path: &Path,
        schema: &Schema,
        gzip: bool,
    ) -> Result<Self> {
        let k = schema.attributes.len();
        let mut raw: Vec<Vec<String>> = vec![Vec::new(); k];
        let mut numeric: Vec<Vec<f64>> = vec![Vec::new(); k];
        let mut lines = LineReader::new(reader, path, gzip);
        let mut header_pending = schema.header;
        let mut first_row = !schema.header;
        let mut rows = 0usize;
        let mut dropped = 0usize;
        let sep = schema.separator as u8;
        while lines.next_line()? {
            let number = lines.number;
            let mut fields = Vec::new();
            let text = utf8_line(&lines)?;
            if text.trim().is_empty()
                || schema.comment_prefix.as_deref().is_some_and(|c| text.starts_with(c))
            {
                continue;
            }
            split_csv(text, sep, &mut fields)
                .map_err(|(c, r)| DataError::parse(path, number, c as u64, r))?;
            if fields.len() != k {
                return Err(DataError::parse(
                    path,
                    number,
                    0,
                    format!(
                        "expected {k} fields (schema {:?}), found {}",
                        schema.name,
                        fields.len()
                    ),
                ));
            }
            // A header line where the schema says there is none: refused with the way out,
            // rather than read as a tuple whose numbers are names.
            if std::mem::take(&mut first_row)
                && fields.iter().zip(&schema.attributes).all(|(f, a)| f.as_ref() == a.name)
            {
                return Err(DataError::parse(
                    path,
                    number,
                    0,
                    "this line names the schema's attributes, but the schema says the file has no header: set \"header\": true in the schema",
                ));
            }
            if header_pending {
                header_pending = false;
                for (f, a) in fields.iter().zip(&schema.attributes) {
                    if f.as_ref() != a.name {
                        return Err(DataError::parse(
                            path,
                            number,
                            0,
                            format!("header names {f:?} where the schema has {:?}", a.name),
                        ));
                    }
                }
                continue;
            }
            let missing = schema.missing.as_deref();
            if schema.missing_policy == MissingPolicy::DropRow
                && fields.iter().any(|f| Some(f.as_ref()) == missing)
            {
                dropped += 1;
                continue;
            }
            for (j, (f, a)) in fields.iter().zip(&schema.attributes).enumerate() {
                match a.kind {
                    AttributeType::Categorical => raw[j].push(f.to_string()),
                    AttributeType::Numeric => {
                        let v: f64 =
                            f.parse().ok().filter(|v: &f64| v.is_finite()).ok_or_else(|| {
                                let column = field_column(text, sep, j);
                                DataError::parse(
                                    path,
                                    number,
                                    column,
                                    format!("attribute {:?} is numeric, found {f:?}", a.name),
                                )
                            })?;
                        numeric[j].push(v);
                    }
                }
            }
            rows += 1;
        }
        if rows == 0 {
            return Err(DataError::invalid(
                path,
                if lines.bytes == 0 { "file is empty" } else { "no data row" },
            ));
        }
        let columns = schema
            .attributes
            .iter()
            .enumerate()
            .map(|(j, a)| match a.kind {
                AttributeType::Numeric => Column::Numeric(std::mem::take(&mut numeric[j])),
                AttributeType::Categorical => {
                    let mut values = raw[j].clone();
                    values.sort_unstable();
                    values.dedup();
                    let codes = raw[j]
                        .iter()
                        .map(|v| values.binary_search(v).expect("present") as u32)
                        .collect();
                    Column::Categorical { codes, values }
                }
            })
            .collect();
        Ok(Self { schema: schema.clone(), columns, rows, dropped_rows: dropped })
    }

    /// The schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The columns, in schema order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The column of attribute `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.schema.index_of(name).map(|j| &self.columns[j])
    }

    /// Number of rows kept.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// True when no row was kept.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Rows dropped for missing values.
    pub fn dropped_rows(&self) -> usize {
        self.dropped_rows
    }
}

/// The 1-based byte column where field `j` starts (ignoring quotes: for messages only).
fn field_column(text: &str, sep: u8, j: usize) -> u64 {
    let mut seen = 0;
    for (i, b) in text.bytes().enumerate() {
        if seen == j {
            return i as u64 + 1;
        }
        if b == sep {
            seen += 1;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        serde_json::from_str(
            r#"{"name":"t","missing":"?","attributes":[
                {"name":"age","type":"numeric","role":"quasi_identifier"},
                {"name":"sex","type":"categorical","role":"quasi_identifier"},
                {"name":"disease","type":"categorical","role":"sensitive"}]}"#,
        )
        .unwrap()
    }

    fn read(text: &str, schema: &Schema) -> Result<Table> {
        Table::read_from(text.as_bytes(), Path::new("<memory>"), schema, false)
    }

    #[test]
    fn reads_and_drops_missing() {
        let t = read("22, M, flu\n\n?, F, flu\n30, F, \"gastritis, acute\"\n", &schema()).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.dropped_rows(), 1);
        assert_eq!(t.column("age"), Some(&Column::Numeric(vec![22.0, 30.0])));
        assert_eq!(t.column("disease").unwrap().value_text(1), "gastritis, acute");
        let mut keep = schema();
        keep.missing_policy = MissingPolicy::AsValue;
        let err = read("22, ?, flu\n?, F, flu\n", &keep).unwrap_err().to_string();
        assert!(err.contains("<memory>:2:1") && err.contains("numeric"), "{err}");
    }

    #[test]
    fn wrong_field_count_is_located() {
        let err = read("22, M, flu\n23, F\n", &schema()).unwrap_err().to_string();
        assert!(err.contains("<memory>:2") && err.contains("expected 3 fields"), "{err}");
        let err = read("22, M, flu\nabc, F, flu\n", &schema()).unwrap_err().to_string();
        assert!(err.contains("<memory>:2:1"), "{err}");
    }

    #[test]
    fn header_must_match() {
        let mut s = schema();
        s.header = true;
        assert!(read("age,sex,disease\n1,M,x\n", &s).is_ok());
        assert!(
            read("age,gender,disease\n1,M,x\n", &s).unwrap_err().to_string().contains("header")
        );
        // A header the schema does not announce: refused with the hint, not read as a tuple.
        let err = read("age,sex,disease\n1,M,x\n", &schema()).unwrap_err().to_string();
        assert!(err.contains("<memory>:1") && err.contains("\"header\": true"), "{err}");
        // With a byte-order mark before it, too.
        let err = read("\u{feff}age,sex,disease\n1,M,x\n", &schema()).unwrap_err().to_string();
        assert!(err.contains("\"header\": true"), "{err}");
    }

    #[test]
    fn invalid_utf8_is_located_plain_or_gzip() {
        let bytes = b"22, M, flu\n23, \xff, cold\n";
        let err =
            Table::read_from(&bytes[..], Path::new("<memory>"), &schema(), false).unwrap_err();
        assert_eq!(err.to_string(), "<memory>:2:5: invalid UTF-8");
        // Inside a gzip stream the bytes are still the problem, not the compression.
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(bytes).unwrap();
        let gz = enc.finish().unwrap();
        let decoder = std::io::BufReader::new(flate2::bufread::MultiGzDecoder::new(&gz[..]));
        let err = Table::read_from(decoder, Path::new("<memory>"), &schema(), true).unwrap_err();
        assert!(matches!(err, DataError::Parse { .. }), "{err:?}");
    }

    #[test]
    fn empty_is_an_error() {
        assert!(matches!(read("", &schema()), Err(DataError::Invalid { .. })));
    }
}
