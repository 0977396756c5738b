//! The generalization baseline: Mondrian multidimensional partitioning to k-anonymity and
//! ℓ-diversity, published as ranges and value sets.

use std::collections::HashMap;

use rand::seq::SliceRandom;

use crate::audit::{MondrianAuditReport, SlicingClaim, audit_generalized};
use crate::error::SlicingError;
use crate::generalized::{GENERALIZED_FORMAT, GeneralizedMeta, GeneralizedTable};
use crate::microdata::Microdata;
use crate::params::ValidBaselineParams;
use crate::params::publication_rng;
use crate::split::{cell_of, mondrian as partition};

/// The result of [`mondrian`]: the generalized table and the audit it passed.
#[derive(Debug, Clone)]
pub struct MondrianPublication {
    /// The publication.
    pub table: GeneralizedTable,
    /// The independent check of the publication against the input.
    pub audit: MondrianAuditReport,
}

/// Generalizes `data` by Mondrian: partitions cut along the widest quasi-identifying attribute
/// at its median while both halves keep at least `k` tuples and are ℓ-diverse (no sensitive
/// value above `1/ℓ` of the class); then audited.
///
/// Every attribute but the sensitive one is treated as quasi-identifying. Categorical
/// attributes have no hierarchy here: their values are cut in label order and published as
/// the set present in the class.
///
/// # Errors
/// [`SlicingError::Infeasible`] when the whole table is not already k-anonymous and ℓ-diverse
/// (fewer than k tuples, or a sensitive value above `1/ℓ`); [`SlicingError::Audit`] if the
/// publication fails its own check.
pub fn mondrian(
    data: &Microdata,
    params: &ValidBaselineParams,
) -> Result<MondrianPublication, SlicingError> {
    let (k, l) = (params.k(), params.l());
    let s = data.sensitive();
    let allowable = |rows: &[u32]| allowable(data, rows, k, l);
    let all: Vec<u32> = (0..data.len() as u32).collect();
    if !allowable(&all) {
        return Err(SlicingError::Infeasible(format!(
            "the whole table ({} tuples) is not {k}-anonymous and {l}-diverse",
            data.len()
        )));
    }
    let dims: Vec<usize> = (0..data.attributes()).filter(|&a| a != s).collect();
    let classes = partition(data, all, dims, allowable);
    let mut rows = Vec::with_capacity(data.len());
    for class in &classes {
        let cells: Vec<String> = (0..data.attributes())
            .map(|a| if a == s { String::new() } else { cell_of(data, class, a) })
            .collect();
        for &r in class {
            let mut row = cells.clone();
            row[s] = data.text(s, r as usize).to_string();
            rows.push(row);
        }
    }
    let mut rng = publication_rng(params.seed(), data);
    rows.shuffle(&mut rng);
    let table = GeneralizedTable {
        meta: GeneralizedMeta {
            format: GENERALIZED_FORMAT.into(),
            attributes: data.names().to_vec(),
            sensitive: data.names()[s].clone(),
            k,
            l,
        },
        rows,
    };
    let claim = SlicingClaim::with_k(l as u64, k as u64)?;
    let audit = audit_generalized(&table, data, &claim)?;
    Ok(MondrianPublication { table, audit })
}

fn allowable(data: &Microdata, rows: &[u32], k: usize, l: usize) -> bool {
    if rows.len() < k {
        return false;
    }
    let codes = data.codes(data.sensitive());
    let mut count: HashMap<u32, usize> = HashMap::new();
    let mut max = 0;
    for &r in rows {
        let c = count.entry(codes[r as usize]).or_default();
        *c += 1;
        max = max.max(*c);
    }
    max * l <= rows.len()
}
