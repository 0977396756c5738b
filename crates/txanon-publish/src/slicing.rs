//! Slicing's release, and its baselines': the sliced table (sliced.csv, sliced.json),
//! Mondrian's generalized table, or Anatomy's QIT and ST, with the summary.

use serde::Serialize;
use txanon_slicing::{
    AnatomyBaselinePublication, BaselineParams, ColumnSpec, CutPolicy, Microdata,
    MondrianPublication, SlicingParams, anatomize, anonymize, mondrian,
};

use crate::error::{PublishError, Result};
use crate::outcome::Outcome;
use crate::release::{Content, Release};

/// Which publication of relational microdata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlicingMethod {
    /// Slicing: columns of correlated attributes, each permuted within ℓ-diverse buckets.
    Slicing,
    /// Baseline: Mondrian generalization to k-anonymity and ℓ-diversity.
    Mondrian,
    /// Baseline: Anatomy bucketization.
    Anatomy,
}

impl SlicingMethod {
    /// The name the manifest gives it.
    pub fn method(self) -> &'static str {
        match self {
            SlicingMethod::Slicing => "slicing",
            SlicingMethod::Mondrian => "slicing/mondrian",
            SlicingMethod::Anatomy => "slicing/anatomy",
        }
    }
}

/// When a bucket's cut along its widest attribute fails the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SlicingCut {
    /// The bucket is final (the paper's).
    First,
    /// The next widest attribute's cut is tried.
    Any,
}

/// The options of a run, named as the CLI's and recorded in the manifest as given.
#[derive(Debug, Clone, Serialize)]
pub struct SlicingOptions {
    /// Diversity ℓ.
    pub l: usize,
    /// Mondrian's k (default: ℓ).
    pub k: Option<usize>,
    /// Slicing's number of columns, by k-medoids.
    pub columns: Option<usize>,
    /// Slicing: the sensitive attribute alone in the last column.
    pub sensitive_alone: bool,
    /// Slicing's explicit columns (`Age,Sex;Zipcode,Disease`).
    pub column_spec: Option<String>,
    /// Slicing's column generalization.
    pub generalize: Option<usize>,
    /// Slicing's cut policy.
    pub cut: SlicingCut,
    /// Slicing's intervals of a numeric attribute for φ².
    pub bins: usize,
    /// The attributes published, when not all.
    pub attributes: Option<Vec<String>>,
    /// The method (the manifest names it on its own).
    #[serde(skip)]
    pub method: SlicingMethod,
    /// The seed (never recorded).
    #[serde(skip)]
    pub seed: Option<u64>,
}

#[derive(Debug, Serialize)]
struct Summary {
    input: String,
    method: &'static str,
    tuples: usize,
    dropped_rows: usize,
    l: usize,
    columns: Option<Vec<Vec<String>>>,
    stats: Option<serde_json::Value>,
    audit: serde_json::Value,
}

impl SlicingOptions {
    /// The columns slicing is asked for.
    ///
    /// # Errors
    /// [`PublishError::Usage`] when neither a count nor a spec is given.
    fn column_spec(&self) -> Result<ColumnSpec> {
        if let Some(spec) = &self.column_spec {
            let columns: Vec<Vec<String>> = spec
                .split(';')
                .map(|c| {
                    c.split(',').map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect()
                })
                .collect();
            return Ok(ColumnSpec::Explicit(columns));
        }
        match (self.columns, self.sensitive_alone) {
            (Some(c), false) => Ok(ColumnSpec::Count(c)),
            (Some(c), true) => Ok(ColumnSpec::SensitiveAlone(c)),
            (None, _) => Err(PublishError::Usage(
                "slicing needs a number of columns (--columns) or explicit columns (--column-spec)"
                    .into(),
            )),
        }
    }
}

fn json(value: &impl Serialize, what: &str) -> Result<serde_json::Value> {
    serde_json::to_value(value).map_err(|e| PublishError::json(what, e))
}

/// Publishes `data` (read from `input`; `dropped` rows left out by its schema's missing-value
/// policy) by `options.method`; the publication has passed its audit against `data`.
///
/// # Errors
/// The method's refusals and failures; options that name no columns.
pub fn release(
    input: &str,
    data: &Microdata,
    dropped: usize,
    options: &SlicingOptions,
) -> Result<Release> {
    let l = options.l;
    let (files, columns, stats, audit): (Vec<(&str, String)>, _, _, serde_json::Value) =
        match options.method {
            SlicingMethod::Slicing => {
                let params = SlicingParams::new(options.column_spec()?, l)
                    .bins(options.bins)
                    .generalize(options.generalize)
                    .cut(match options.cut {
                        SlicingCut::First => CutPolicy::FirstCut,
                        SlicingCut::Any => CutPolicy::AnyCut,
                    })
                    .seed(options.seed)
                    .check()
                    .map_err(PublishError::family)?;
                // `anonymize` has audited the table against the input.
                let sliced = anonymize(data, &params).map_err(PublishError::family)?;
                (
                    vec![
                        ("sliced.csv", sliced.table.to_csv()),
                        ("sliced.json", sliced.table.meta_json()),
                    ],
                    Some(sliced.table.meta.columns.clone()),
                    Some(json(&sliced.stats, "the statistics")?),
                    json(&sliced.audit, "the audit")?,
                )
            }
            SlicingMethod::Mondrian => {
                let params = BaselineParams::new(options.k.unwrap_or(l), l)
                    .seed(options.seed)
                    .check()
                    .map_err(PublishError::family)?;
                let MondrianPublication { table, audit } =
                    mondrian(data, &params).map_err(PublishError::family)?;
                (
                    vec![
                        ("generalized.csv", table.to_csv()),
                        ("generalized.json", table.meta_json()),
                    ],
                    None,
                    None,
                    json(&audit, "the audit")?,
                )
            }
            SlicingMethod::Anatomy => {
                let params = BaselineParams::new(1, l)
                    .seed(options.seed)
                    .check()
                    .map_err(PublishError::family)?;
                let AnatomyBaselinePublication { tables, audit } =
                    anatomize(data, &params).map_err(PublishError::family)?;
                (
                    vec![
                        ("qit.csv", tables.qit_csv()),
                        ("st.csv", tables.st_csv()),
                        ("anatomy.json", tables.meta_json()),
                    ],
                    None,
                    None,
                    json(&audit, "the audit")?,
                )
            }
        };
    let method = options.method.method();
    let summary = Summary {
        input: input.to_string(),
        method: method.rsplit('/').next().unwrap_or(method),
        tuples: data.len(),
        dropped_rows: dropped,
        l,
        columns,
        stats,
        audit: audit.clone(),
    };
    let mut outcome = Outcome::new(format!(
        "{method}: {} tuples in ({dropped} rows dropped by the schema's missing-value policy), all published",
        data.len()
    ));
    if let Some(k) = options.k {
        outcome = outcome.did(format!("classes of at least k = {k} rows"));
    }
    let outcome = outcome.audited(format!("l-diversity with l = {l}"));
    let mut release = Release::new(method, &summary, &audit, options.seed.is_some(), outcome)?
        .parameters(json(options, "the parameters")?);
    for (name, text) in files {
        release = release.with(name, Content::Text(text));
    }
    Ok(release)
}
