//! The sliced view of a table: each row's value of each column as one id.
//!
//! Column `i < c − 1` is one dimension; the last column (the sensitive attribute's) is split
//! into its quasi-identifying part `q` and the sensitive value `s`, because the diversity check
//! matches a tuple on `q` and reads the distribution of `s` among the matches.

use rustc_hash::FxHashMap;

use crate::microdata::Microdata;
use crate::split::{cell_of, mondrian};

/// Ids of column values, and their published cells.
#[derive(Debug, Clone)]
pub(crate) struct Encoding {
    /// Attribute indices per column; the sensitive attribute's column last.
    pub(crate) columns: Vec<Vec<usize>>,
    /// Per dimension `d` (`c` of them: the first `c − 1` columns, then the last column less
    /// the sensitive attribute), each row's id.
    pub(crate) parts: Vec<Vec<u32>>,
    /// Per dimension, per id, the published cell of each of the dimension's attributes.
    pub(crate) cells: Vec<Vec<Vec<String>>>,
    /// Each row's sensitive code.
    pub(crate) sensitive: Vec<u32>,
    /// Number of sensitive codes.
    pub(crate) s_domain: usize,
}

impl Encoding {
    /// Interns every row's column values; with `generalize = Some(k)` a dimension's values are
    /// first grouped by Mondrian cuts on the dimension's own attributes until no group of at
    /// least `k` rows can be cut further, and a value is its group (published as ranges and
    /// sets).
    pub(crate) fn new(
        data: &Microdata,
        columns: Vec<Vec<usize>>,
        generalize: Option<usize>,
    ) -> Self {
        let s = data.sensitive();
        let n = data.len();
        let mut parts = Vec::with_capacity(columns.len());
        let mut cells = Vec::with_capacity(columns.len());
        for column in &columns {
            let attrs: Vec<usize> = column.iter().copied().filter(|&a| a != s).collect();
            let (ids, labels) = match generalize {
                Some(k) if !attrs.is_empty() => {
                    let groups = mondrian(data, (0..n as u32).collect(), attrs.clone(), |rows| {
                        rows.len() >= k
                    });
                    let mut ids = vec![0u32; n];
                    let mut labels = Vec::with_capacity(groups.len());
                    for (g, rows) in groups.iter().enumerate() {
                        for &r in rows {
                            ids[r as usize] = g as u32;
                        }
                        labels.push(attrs.iter().map(|&a| cell_of(data, rows, a)).collect());
                    }
                    (ids, labels)
                }
                _ => {
                    let mut index: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
                    let mut labels: Vec<Vec<String>> = Vec::new();
                    let ids = (0..n)
                        .map(|r| {
                            let key: Vec<u32> = attrs.iter().map(|&a| data.codes(a)[r]).collect();
                            *index.entry(key).or_insert_with(|| {
                                labels.push(
                                    attrs.iter().map(|&a| data.text(a, r).to_string()).collect(),
                                );
                                (labels.len() - 1) as u32
                            })
                        })
                        .collect();
                    (ids, labels)
                }
            };
            parts.push(ids);
            cells.push(labels);
        }
        Encoding {
            columns,
            parts,
            cells,
            sensitive: data.codes(s).to_vec(),
            s_domain: data.domain(s),
        }
    }

    /// Number of columns `c`.
    pub(crate) fn width(&self) -> usize {
        self.parts.len()
    }
}
