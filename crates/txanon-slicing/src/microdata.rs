//! Microdata as value codes: every attribute of a [`Table`] coded `0..d` in value order.
//!
//! All three methods work on codes. A numeric attribute's codes follow its numeric order, so a
//! range of codes is a range of numbers; a categorical attribute's follow its sorted labels.
//! Identifier attributes are dropped here: nothing downstream may publish them.

use rustc_hash::FxHashMap;
use txanon_data::{AttributeType, Column, Role, Table};

use crate::error::SlicingError;

/// Coded relational microdata with one sensitive attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct Microdata {
    names: Vec<String>,
    kinds: Vec<AttributeType>,
    sensitive: usize,
    /// Per attribute, the text of each code.
    labels: Vec<Vec<String>>,
    /// Per numeric attribute, the number of each code (ascending).
    numbers: Vec<Option<Vec<f64>>>,
    /// Per attribute, each row's code.
    codes: Vec<Vec<u32>>,
    rows: usize,
}

impl Microdata {
    /// Codes one table.
    ///
    /// # Errors
    /// [`SlicingError::Schema`] unless exactly one attribute is sensitive.
    pub fn from_table(table: &Table) -> Result<Self, SlicingError> {
        Self::concat(&[table])
    }

    /// Codes the rows of several tables with one schema (Adult's training and test files).
    ///
    /// # Errors
    /// [`SlicingError::Schema`] when the schemas' attributes differ or unless exactly one
    /// attribute is sensitive.
    pub fn concat(tables: &[&Table]) -> Result<Self, SlicingError> {
        let first = tables.first().ok_or_else(|| SlicingError::Schema("no table".into()))?;
        let attributes = &first.schema().attributes;
        if tables.iter().any(|t| &t.schema().attributes != attributes) {
            return Err(SlicingError::Schema("the tables' attributes differ".into()));
        }
        let kept: Vec<usize> =
            (0..attributes.len()).filter(|&j| attributes[j].role != Role::Identifier).collect();
        let sensitive: Vec<usize> =
            (0..kept.len()).filter(|&k| attributes[kept[k]].role == Role::Sensitive).collect();
        let [sensitive] = sensitive[..] else {
            return Err(SlicingError::Schema(format!(
                "schema {:?} must have exactly one sensitive attribute, it has {}",
                first.schema().name,
                sensitive.len()
            )));
        };
        let rows = tables.iter().map(|t| t.len()).sum();
        let mut data = Microdata {
            names: Vec::new(),
            kinds: Vec::new(),
            sensitive,
            labels: Vec::new(),
            numbers: Vec::new(),
            codes: Vec::new(),
            rows,
        };
        for &j in &kept {
            let parts: Vec<&Column> = tables.iter().map(|t| &t.columns()[j]).collect();
            let (labels, numbers, codes) = code_column(&parts);
            data.names.push(attributes[j].name.clone());
            data.kinds.push(attributes[j].kind);
            data.labels.push(labels);
            data.numbers.push(numbers);
            data.codes.push(codes);
        }
        Ok(data)
    }

    /// The microdata restricted to the attributes `names`, in the given order (the sensitive
    /// attribute must be one of them).
    ///
    /// # Errors
    /// [`SlicingError::Schema`] for an unknown name, a repeated one, or a list without the
    /// sensitive attribute.
    pub fn select(&self, names: &[&str]) -> Result<Self, SlicingError> {
        let mut picked = Vec::with_capacity(names.len());
        for name in names {
            let j = self.index_of(name)?;
            if picked.contains(&j) {
                return Err(SlicingError::Schema(format!("attribute {name:?} is named twice")));
            }
            picked.push(j);
        }
        let sensitive = picked.iter().position(|&j| j == self.sensitive).ok_or_else(|| {
            SlicingError::Schema(format!(
                "the selection must keep the sensitive attribute {:?}",
                self.names[self.sensitive]
            ))
        })?;
        Ok(Microdata {
            names: picked.iter().map(|&j| self.names[j].clone()).collect(),
            kinds: picked.iter().map(|&j| self.kinds[j]).collect(),
            sensitive,
            labels: picked.iter().map(|&j| self.labels[j].clone()).collect(),
            numbers: picked.iter().map(|&j| self.numbers[j].clone()).collect(),
            codes: picked.iter().map(|&j| self.codes[j].clone()).collect(),
            rows: self.rows,
        })
    }

    /// The rows `rows`, in that order (a training split, a sample).
    pub fn rows_subset(&self, rows: &[usize]) -> Self {
        Microdata {
            names: self.names.clone(),
            kinds: self.kinds.clone(),
            sensitive: self.sensitive,
            labels: self.labels.clone(),
            numbers: self.numbers.clone(),
            codes: self.codes.iter().map(|c| rows.iter().map(|&r| c[r]).collect()).collect(),
            rows: rows.len(),
        }
    }

    /// The index of attribute `name`.
    ///
    /// # Errors
    /// [`SlicingError::Schema`] when there is none.
    pub fn index_of(&self, name: &str) -> Result<usize, SlicingError> {
        self.names.iter().position(|n| n == name).ok_or_else(|| {
            SlicingError::Schema(format!(
                "no attribute {name:?} (attributes: {})",
                self.names.join(", ")
            ))
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Number of attributes.
    pub fn attributes(&self) -> usize {
        self.names.len()
    }

    /// Attribute names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Attribute `a`'s type.
    pub fn kind(&self, a: usize) -> AttributeType {
        self.kinds[a]
    }

    /// The sensitive attribute.
    pub fn sensitive(&self) -> usize {
        self.sensitive
    }

    /// Attribute `a`'s code of each row.
    pub fn codes(&self, a: usize) -> &[u32] {
        &self.codes[a]
    }

    /// The number of distinct codes of attribute `a`.
    pub fn domain(&self, a: usize) -> usize {
        self.labels[a].len()
    }

    /// The text of attribute `a`'s code `code` (numbers in Rust's shortest form: `39`, `0.5`).
    pub fn label(&self, a: usize, code: u32) -> &str {
        &self.labels[a][code as usize]
    }

    /// The number of a numeric attribute's code.
    pub fn number(&self, a: usize, code: u32) -> Option<f64> {
        self.numbers[a].as_ref().map(|n| n[code as usize])
    }

    /// Row `row`'s value of attribute `a`, as text.
    pub fn text(&self, a: usize, row: usize) -> &str {
        self.label(a, self.codes[a][row])
    }

    /// Attribute `a` as codes of at most `bins` values, for the contingency coefficient.
    ///
    /// Categorical attributes and numeric ones with at most `bins` distinct values are their
    /// codes. Other numeric attributes are cut into equal-frequency intervals by rank: a value
    /// goes to interval `⌊(rows below it) · bins / n⌋`, so equal values share an interval and a
    /// value held by more than `n / bins` rows (capital-gain's zero) is an interval of its own.
    /// Equal frequency rather than equal width because skewed attributes would otherwise put
    /// nearly every row into one interval and look independent of everything.
    pub fn discretized(&self, a: usize, bins: usize) -> Vec<u32> {
        let domain = self.domain(a);
        if self.kinds[a] == AttributeType::Categorical || domain <= bins {
            return self.codes[a].clone();
        }
        let mut count = vec![0u64; domain];
        for &c in &self.codes[a] {
            count[c as usize] += 1;
        }
        let n = self.rows.max(1) as u64;
        let mut below = 0u64;
        let bin: Vec<u32> = count
            .iter()
            .map(|&k| {
                let b = (below * bins as u64 / n) as u32;
                below += k;
                b
            })
            .collect();
        self.codes[a].iter().map(|&c| bin[c as usize]).collect()
    }
}

/// One attribute's labels, numbers and codes over the parts of a concatenation.
fn code_column(parts: &[&Column]) -> (Vec<String>, Option<Vec<f64>>, Vec<u32>) {
    match parts[0] {
        Column::Numeric(_) => {
            let mut numbers: Vec<f64> = parts
                .iter()
                .flat_map(|p| match p {
                    Column::Numeric(v) => v.as_slice(),
                    Column::Categorical { .. } => unreachable!("same schema"),
                })
                .copied()
                .collect();
            numbers.sort_by(f64::total_cmp);
            numbers.dedup_by(|a, b| a.to_bits() == b.to_bits());
            let index: FxHashMap<u64, u32> =
                numbers.iter().enumerate().map(|(i, v)| (v.to_bits(), i as u32)).collect();
            let codes = parts
                .iter()
                .flat_map(|p| match p {
                    Column::Numeric(v) => v.iter().map(|x| index[&x.to_bits()]),
                    Column::Categorical { .. } => unreachable!("same schema"),
                })
                .collect();
            let labels = numbers.iter().map(|v| v.to_string()).collect();
            (labels, Some(numbers), codes)
        }
        Column::Categorical { .. } => {
            let mut labels: Vec<String> = parts
                .iter()
                .flat_map(|p| match p {
                    Column::Categorical { values, .. } => values.iter().cloned(),
                    Column::Numeric(_) => unreachable!("same schema"),
                })
                .collect();
            labels.sort_unstable();
            labels.dedup();
            let mut codes = Vec::new();
            for p in parts {
                let Column::Categorical { codes: local, values } = p else {
                    unreachable!("same schema")
                };
                let map: Vec<u32> = values
                    .iter()
                    .map(|v| labels.binary_search(v).expect("merged") as u32)
                    .collect();
                codes.extend(local.iter().map(|&c| map[c as usize]));
            }
            (labels, None, codes)
        }
    }
}

impl txanon_data::DataDigest for Microdata {
    /// The attributes' names, every value's text and the multiset of rows (their codes; not
    /// their order): a relabelled copy of a table is other data, a reordered one is not.
    fn data_digest(&self) -> [u8; 32] {
        let mut digest = txanon_data::DigestBuilder::new("microdata/1");
        digest
            .longs([self.names.len() as u64, self.sensitive as u64, self.rows as u64].into_iter());
        for (name, labels) in self.names.iter().zip(&self.labels) {
            digest.text(name).longs(std::iter::once(labels.len() as u64));
            for label in labels {
                digest.text(label);
            }
        }
        digest.row_multiset(self.rows, |r, row| row.extend(self.codes.iter().map(|c| c[r])));
        digest.finish()
    }
}
