//! Attribute partitioning: which attributes share a column.

use txanon_correlate::{CondensedMatrix, KMedoids, KMedoidsParams, phi2_contingency};

use crate::error::SlicingError;
use crate::microdata::Microdata;
use crate::params::ColumnSpec;

/// `1 − φ²` between every pair of attributes, numeric ones discretized into `bins` intervals.
///
/// # Errors
/// None in practice (columns of one table have one length); typed for the correlate crate's.
pub fn attribute_distances(data: &Microdata, bins: usize) -> Result<CondensedMatrix, SlicingError> {
    let coded: Vec<Vec<u32>> = (0..data.attributes()).map(|a| data.discretized(a, bins)).collect();
    let n = coded.len();
    let mut entries = Vec::with_capacity(n * (n - 1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            let phi2 = phi2_contingency(&coded[i], &coded[j])
                .map_err(|e| SlicingError::Schema(e.to_string()))?;
            entries.push(1.0 - phi2);
        }
    }
    CondensedMatrix::from_entries(n, entries).map_err(|e| SlicingError::Schema(e.to_string()))
}

/// The columns of `spec` as attribute indices: each column's attributes ascending, columns in
/// order of their first attribute, the sensitive attribute's column last.
///
/// With [`ColumnSpec::Count`] the columns are PAM k-medoids clusters (BUILD, then SWAP) of the
/// attributes under `1 − φ²`; with [`ColumnSpec::SensitiveAlone`] of the non-sensitive ones.
///
/// # Errors
/// [`SlicingError::Schema`] for an explicit column naming an unknown attribute, an attribute
/// named twice or left out, or more columns than attributes.
pub fn partition_attributes(
    data: &Microdata,
    spec: &ColumnSpec,
    bins: usize,
) -> Result<Vec<Vec<usize>>, SlicingError> {
    let mut columns: Vec<Vec<usize>> = match spec {
        ColumnSpec::Count(c) => {
            let all: Vec<usize> = (0..data.attributes()).collect();
            cluster(&attribute_distances(data, bins)?, &all, *c)?
        }
        ColumnSpec::SensitiveAlone(c) => {
            let s = data.sensitive();
            let others: Vec<usize> = (0..data.attributes()).filter(|&a| a != s).collect();
            let mut columns = cluster(&attribute_distances(data, bins)?, &others, c - 1)?;
            columns.push(vec![s]);
            columns
        }
        ColumnSpec::Explicit(names) => {
            let mut seen = vec![false; data.attributes()];
            let mut columns = Vec::with_capacity(names.len());
            for column in names {
                let mut attrs = Vec::with_capacity(column.len());
                for name in column {
                    let a = data.index_of(name)?;
                    if std::mem::replace(&mut seen[a], true) {
                        return Err(SlicingError::Schema(format!(
                            "attribute {name:?} is in two columns"
                        )));
                    }
                    attrs.push(a);
                }
                columns.push(attrs);
            }
            if let Some(a) = seen.iter().position(|s| !s) {
                return Err(SlicingError::Schema(format!(
                    "attribute {:?} is in no column (select the attributes to publish first)",
                    data.names()[a]
                )));
            }
            columns
        }
    };
    for column in &mut columns {
        column.sort_unstable();
    }
    if columns.len() < 2 {
        return Err(SlicingError::Schema(
            "one column: nothing to slice (name at least two)".into(),
        ));
    }
    let s = data.sensitive();
    columns.sort_by_key(|c| (c.contains(&s), c[0]));
    Ok(columns)
}

/// PAM clusters of the attributes `attrs` into `c` columns, as attribute indices.
fn cluster(
    distances: &CondensedMatrix,
    attrs: &[usize],
    c: usize,
) -> Result<Vec<Vec<usize>>, SlicingError> {
    if c > attrs.len() {
        return Err(SlicingError::Schema(format!(
            "--columns {c}: choose between 2 and {}, the attributes to cluster",
            attrs.len()
        )));
    }
    let sub = CondensedMatrix::from_fn(attrs.len(), |i, j| distances.get(attrs[i], attrs[j]));
    let params = KMedoidsParams::new(c).check().map_err(|e| SlicingError::Schema(e.to_string()))?;
    let clustering =
        KMedoids::new(params).fit(&sub).map_err(|e| SlicingError::Schema(e.to_string()))?;
    let mut columns = vec![Vec::new(); c];
    for (i, &label) in clustering.labels.iter().enumerate() {
        columns[label].push(attrs[i]);
    }
    columns.retain(|c| !c.is_empty());
    Ok(columns)
}
