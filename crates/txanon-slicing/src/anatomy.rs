//! The bucketization baseline: Anatomy (Xiao and Tao, VLDB 2006). ℓ-diverse groups, published
//! as a quasi-identifier table (exact values, group id) and a sensitive table (group id,
//! sensitive value, count).

use std::collections::HashMap;

use rand::seq::{IndexedRandom, SliceRandom};

use crate::audit::{AnatomyBaselineAuditReport, SlicingClaim, audit_anatomy};
use crate::bucketized::{ANATOMY_FORMAT, AnatomyMeta, AnatomyTables};
use crate::error::SlicingError;
use crate::microdata::Microdata;
use crate::params::ValidBaselineParams;
use crate::params::publication_rng;

/// The result of [`anatomize`]: the two tables and the audit they passed.
#[derive(Debug, Clone)]
pub struct AnatomyBaselinePublication {
    /// The publication: the quasi-identifier and sensitive tables.
    pub tables: AnatomyTables,
    /// The independent check of the publication against the input.
    pub audit: AnatomyBaselineAuditReport,
}

/// Anatomizes `data`: tuples hashed by sensitive value; while ℓ values have tuples left, one
/// tuple (drawn at random) from each of the ℓ largest hashes forms a group; each leftover
/// tuple joins a random group without its value. Then audited.
///
/// # Errors
/// [`SlicingError::Infeasible`] when a sensitive value is held by more than `n/ℓ` tuples (the
/// paper's eligibility condition); [`SlicingError::Audit`] if the publication fails its check.
pub fn anatomize(
    data: &Microdata,
    params: &ValidBaselineParams,
) -> Result<AnatomyBaselinePublication, SlicingError> {
    let l = params.l();
    let s = data.sensitive();
    let n = data.len();
    let mut rng = publication_rng(params.seed(), data);
    let mut hashes: Vec<Vec<u32>> = vec![Vec::new(); data.domain(s)];
    for (r, &c) in data.codes(s).iter().enumerate() {
        hashes[c as usize].push(r as u32);
    }
    let largest = hashes.iter().map(Vec::len).max().unwrap_or(0);
    if largest * l > n {
        return Err(SlicingError::Infeasible(format!(
            "a sensitive value is held by {largest} of {n} tuples, more than 1/{l}"
        )));
    }
    for h in &mut hashes {
        h.shuffle(&mut rng);
    }
    let mut groups: Vec<Vec<u32>> = Vec::new();
    loop {
        let mut order: Vec<usize> = (0..hashes.len()).filter(|&v| !hashes[v].is_empty()).collect();
        if order.len() < l {
            break;
        }
        order.sort_by_key(|&v| (std::cmp::Reverse(hashes[v].len()), v));
        groups.push(order[..l].iter().map(|&v| hashes[v].pop().expect("non-empty")).collect());
    }
    let codes = data.codes(s);
    for h in &hashes {
        for &r in h {
            let value = codes[r as usize];
            let eligible: Vec<usize> = (0..groups.len())
                .filter(|&g| groups[g].iter().all(|&x| codes[x as usize] != value))
                .collect();
            let g = *eligible
                .choose(&mut rng)
                .ok_or_else(|| SlicingError::Infeasible("a leftover tuple fits no group".into()))?;
            groups[g].push(r);
        }
    }
    groups.shuffle(&mut rng);
    let qi: Vec<usize> = (0..data.attributes()).filter(|&a| a != s).collect();
    let mut qit = Vec::with_capacity(n);
    let mut st = Vec::new();
    for (g, rows) in groups.iter().enumerate() {
        let id = g as u32 + 1;
        let mut dist: HashMap<&str, u32> = HashMap::new();
        for &r in rows {
            qit.push((id, qi.iter().map(|&a| data.text(a, r as usize).to_string()).collect()));
            *dist.entry(data.text(s, r as usize)).or_default() += 1;
        }
        let mut dist: Vec<(u32, String, u32)> =
            dist.into_iter().map(|(v, c)| (id, v.to_string(), c)).collect();
        dist.sort();
        st.extend(dist);
    }
    qit.shuffle(&mut rng);
    let tables = AnatomyTables {
        meta: AnatomyMeta {
            format: ANATOMY_FORMAT.into(),
            quasi_identifiers: qi.iter().map(|&a| data.names()[a].clone()).collect(),
            sensitive: data.names()[s].clone(),
            l,
        },
        qit,
        st,
    };
    let audit = audit_anatomy(&tables, data, &SlicingClaim::new(l as u64)?)?;
    Ok(AnatomyBaselinePublication { tables, audit })
}
