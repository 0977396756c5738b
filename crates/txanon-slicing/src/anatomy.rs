//! The bucketization baseline: Anatomy (Xiao and Tao, VLDB 2006). ℓ-diverse groups, published
//! as a quasi-identifier table (exact values, group id) and a sensitive table (group id,
//! sensitive value, count).

use std::collections::HashMap;
use std::path::Path;

use rand::seq::{IndexedRandom, SliceRandom};
use serde::{Deserialize, Serialize};

use crate::csv;
use crate::error::SlicingError;
use crate::microdata::Microdata;
use crate::params::ValidBaselineParams;
use crate::params::publication_rng;

/// Format tag of the anatomy tables' metadata.
pub const ANATOMY_FORMAT: &str = "txanon-anatomy-tables/1";

/// The two tables' metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnatomyMeta {
    /// [`ANATOMY_FORMAT`].
    pub format: String,
    /// The quasi-identifier table's attributes (its CSV adds `group`).
    pub quasi_identifiers: Vec<String>,
    /// The sensitive attribute.
    pub sensitive: String,
    /// ℓ claimed.
    pub l: usize,
}

/// The published tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnatomyTables {
    /// Attributes and claim.
    pub meta: AnatomyMeta,
    /// QIT: each tuple's exact quasi-identifier values and its group, shuffled.
    pub qit: Vec<(u32, Vec<String>)>,
    /// ST: (group, sensitive value, count), by group then value.
    pub st: Vec<(u32, String, u32)>,
}

/// What the anatomy audit found.
#[derive(Debug, Clone, Serialize)]
pub struct AnatomyAudit {
    /// Groups.
    pub groups: usize,
    /// QIT rows.
    pub rows: usize,
    /// The largest share of one sensitive value in a group (at most 1/ℓ).
    pub worst: f64,
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
) -> Result<(AnatomyTables, AnatomyAudit), SlicingError> {
    let l = params.l();
    let s = data.sensitive();
    let n = data.len();
    let mut rng = publication_rng(params.seed());
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
    let audit = audit_anatomy(&tables, Some(data), l)?;
    Ok((tables, audit))
}

/// Verifies anatomy tables from the tables alone: every group's sensitive counts sum to its
/// QIT rows and no value exceeds `1/ℓ` of them. With the original, also that the QIT holds
/// the original tuples' quasi-identifiers and the ST their sensitive values.
///
/// # Errors
/// [`SlicingError::Audit`] naming the first violation.
pub fn audit_anatomy(
    tables: &AnatomyTables,
    original: Option<&Microdata>,
    l: usize,
) -> Result<AnatomyAudit, SlicingError> {
    let fail = |m: String| Err(SlicingError::Audit(m));
    let mut sizes: HashMap<u32, usize> = HashMap::new();
    for (g, _) in &tables.qit {
        *sizes.entry(*g).or_default() += 1;
    }
    let mut totals: HashMap<u32, (usize, usize)> = HashMap::new();
    for (g, _, c) in &tables.st {
        let t = totals.entry(*g).or_default();
        t.0 += *c as usize;
        t.1 = t.1.max(*c as usize);
    }
    let mut worst = 0.0f64;
    for (g, &(total, max)) in &totals {
        if sizes.get(g).copied().unwrap_or(0) != total {
            return fail(format!(
                "group {g}: {total} sensitive values for {:?} QIT rows",
                sizes.get(g)
            ));
        }
        worst = worst.max(max as f64 / total as f64);
        if max * l > total {
            return fail(format!(
                "group {g}: one sensitive value in {max} of {total} tuples > 1/{l}"
            ));
        }
    }
    if sizes.len() != totals.len() {
        return fail("a QIT group has no sensitive values".into());
    }
    if let Some(original) = original {
        let s = original.sensitive();
        let mut want: HashMap<Vec<&str>, isize> = HashMap::new();
        let mut want_s: HashMap<&str, isize> = HashMap::new();
        for r in 0..original.len() {
            let qi = (0..original.attributes()).filter(|&a| a != s).map(|a| original.text(a, r));
            *want.entry(qi.collect()).or_default() += 1;
            *want_s.entry(original.text(s, r)).or_default() += 1;
        }
        for (_, qi) in &tables.qit {
            *want.entry(qi.iter().map(String::as_str).collect()).or_default() -= 1;
        }
        for (_, v, c) in &tables.st {
            *want_s.entry(v).or_default() -= *c as isize;
        }
        if want.values().chain(want_s.values()).any(|&v| v != 0) {
            return fail("the tables do not hold the original tuples".into());
        }
    }
    Ok(AnatomyAudit { groups: totals.len(), rows: tables.qit.len(), worst })
}

impl AnatomyTables {
    /// The QIT as CSV (quasi-identifiers, then `group`).
    pub fn qit_csv(&self) -> String {
        let mut out =
            csv::line(self.meta.quasi_identifiers.iter().map(String::as_str).chain(["group"]));
        for (g, qi) in &self.qit {
            let id = g.to_string();
            out.push_str(&csv::line(qi.iter().map(String::as_str).chain([id.as_str()])));
        }
        out
    }

    /// The ST as CSV (`group`, the sensitive attribute, `count`).
    pub fn st_csv(&self) -> String {
        let mut out = csv::line(["group", self.meta.sensitive.as_str(), "count"]);
        for (g, v, c) in &self.st {
            out.push_str(&csv::line([g.to_string().as_str(), v, c.to_string().as_str()]));
        }
        out
    }

    /// The metadata as JSON.
    pub fn meta_json(&self) -> String {
        serde_json::to_string_pretty(&self.meta).expect("serializable") + "\n"
    }

    /// Reads the tables back.
    ///
    /// # Errors
    /// [`SlicingError::Malformed`] for metadata of another format or a bad number; the CSV
    /// reader's errors.
    pub fn read(qit: &Path, st: &Path, meta: &Path) -> Result<Self, SlicingError> {
        let meta: AnatomyMeta =
            csv::read_meta(meta, ANATOMY_FORMAT, |m: &AnatomyMeta| m.format.clone())?;
        let mut header = meta.quasi_identifiers.clone();
        header.push("group".into());
        let qit_rows = csv::read(qit, &header)?
            .into_iter()
            .enumerate()
            .map(|(i, mut f)| {
                let g = csv::count(&f.pop().expect("group field"), qit, i)?;
                Ok((g, f))
            })
            .collect::<Result<Vec<_>, SlicingError>>()?;
        let st_header = vec!["group".to_string(), meta.sensitive.clone(), "count".to_string()];
        let st_rows = csv::read(st, &st_header)?
            .into_iter()
            .enumerate()
            .map(|(i, f)| Ok((csv::count(&f[0], st, i)?, f[1].clone(), csv::count(&f[2], st, i)?)))
            .collect::<Result<Vec<_>, SlicingError>>()?;
        Ok(AnatomyTables { meta, qit: qit_rows, st: st_rows })
    }
}
