//! `txanon anonymize slicing` and `txanon audit slicing`: slicing of relational microdata and
//! its two baselines.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;
use txanon_data::{Schema, Table};
use txanon_slicing::{
    AnatomyBaselinePublication, AnatomyTables, BaselineParams, ColumnSpec, CutPolicy,
    GeneralizedTable, Microdata, MondrianPublication, SlicedTable, SlicingClaim, SlicingParams,
    anatomize, anonymize, audit, audit_anatomy, audit_generalized, mondrian,
};

use crate::anonymize::{OutputArgs, write_text};
use crate::exit::UsageError;
use crate::publication::{Description, Source};

/// `--method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Slicing: columns of correlated attributes, each permuted within ℓ-diverse buckets.
    Slicing,
    /// Baseline: Mondrian generalization to k-anonymity and ℓ-diversity (ranges and sets).
    Mondrian,
    /// Baseline: Anatomy bucketization (exact quasi-identifiers, sensitive values per group).
    Anatomy,
}

/// `--cut`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CutArg {
    /// The paper's: a failed cut makes the bucket final.
    First,
    /// Try every attribute's cut, widest first.
    Any,
}

/// Arguments of `txanon anonymize slicing`.
#[derive(Debug, Args)]
pub struct SlicingArgs {
    /// The microdata, CSV (plain or gzip).
    input: PathBuf,
    /// Its JSON schema: attribute names, types, roles (exactly one sensitive).
    #[arg(long, value_name = "FILE")]
    schema: PathBuf,
    /// Publish only these attributes (comma-separated; the sensitive one included).
    #[arg(long, value_name = "A,B,..", value_delimiter = ',')]
    attributes: Option<Vec<String>>,
    /// The method.
    #[arg(long, value_enum, default_value_t = MethodArg::Slicing)]
    method: MethodArg,
    /// Slicing: number of columns c, found by PAM k-medoids on 1 − φ².
    #[arg(long, short = 'c', conflicts_with = "column_spec", value_parser = crate::numbers::whole(2usize, usize::MAX))]
    columns: Option<usize>,
    /// Slicing: cluster the other attributes into c − 1 columns and keep the sensitive
    /// attribute alone in the last (needed when its correlated attributes predict it).
    #[arg(long, requires = "columns")]
    sensitive_alone: bool,
    /// Slicing: explicit columns, `;` between columns and `,` between attributes
    /// (`Age,Sex;Zipcode,Disease`).
    #[arg(long, value_name = "SPEC")]
    column_spec: Option<String>,
    /// Diversity: no tuple's sensitive value can be inferred with probability above 1/l.
    #[arg(long, short = 'l', value_parser = crate::numbers::whole(2usize, usize::MAX))]
    l: usize,
    /// Mondrian: k-anonymity (default: l).
    #[arg(long, short = 'k', value_parser = crate::numbers::positive::<usize>())]
    k: Option<usize>,
    /// Slicing: column generalization, every column value made to occur at least K times.
    #[arg(long, value_name = "K", value_parser = crate::numbers::positive::<usize>())]
    generalize: Option<usize>,
    /// Slicing: when a bucket's cut along its widest attribute fails the check, `first` makes
    /// it final (the paper), `any` tries the next widest attribute's cut.
    #[arg(long, value_enum, default_value_t = CutArg::First)]
    cut: CutArg,
    /// Slicing: intervals of a numeric attribute when φ² is computed.
    #[arg(long, default_value_t = 10, value_parser = crate::numbers::whole(2usize, usize::MAX))]
    bins: usize,
    /// Seed of the permutations and shuffles (only to reproduce a run; by default the OS
    /// seeds ChaCha20).
    /// A secret, like a key: keyed with a digest of the input, it repeats the run byte for
    /// byte; it is never written into the publication.
    #[arg(long, value_parser = crate::numbers::any::<u64>())]
    seed: Option<u64>,
    /// The publication: sliced.csv + sliced.json, generalized.csv + generalized.json, or
    /// qit.csv + st.csv + anatomy.json; summary.json and manifest.json.
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    report: crate::anonymize::RunReport,
}

/// Arguments of `txanon audit slicing`.
#[derive(Debug, Args)]
pub struct AuditSlicingArgs {
    /// The original microdata, CSV.
    original: PathBuf,
    /// The output directory of `txanon anonymize slicing` (any method).
    published: PathBuf,
    /// The original's JSON schema.
    #[arg(long, value_name = "FILE")]
    schema: PathBuf,
    /// The diversity ℓ to verify (the publication's own claim is printed, never used).
    #[arg(long, short = 'l', value_parser = crate::numbers::whole(2u64, u64::MAX))]
    l: u64,
    /// Mondrian: the k to verify (required for a generalized table).
    #[arg(long, short = 'k', value_parser = crate::numbers::positive::<u64>())]
    k: Option<u64>,
    #[command(flatten)]
    manifest: crate::publication::ManifestArgs,
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

fn read_microdata(input: &Path, schema: &Path) -> Result<(Microdata, usize)> {
    let schema = Schema::from_path(schema)?;
    let table = Table::read(input, &schema)?;
    let dropped = table.dropped_rows();
    Ok((Microdata::from_table(&table)?, dropped))
}

fn column_spec(args: &SlicingArgs) -> Result<ColumnSpec> {
    if let Some(spec) = &args.column_spec {
        let columns: Vec<Vec<String>> = spec
            .split(';')
            .map(|c| c.split(',').map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect())
            .collect();
        return Ok(ColumnSpec::Explicit(columns));
    }
    match (args.columns, args.sensitive_alone) {
        (Some(c), false) => Ok(ColumnSpec::Count(c)),
        (Some(c), true) => Ok(ColumnSpec::SensitiveAlone(c)),
        (None, _) => Err(UsageError("slicing needs --columns or --column-spec".into()).into()),
    }
}

/// Runs `txanon anonymize slicing`.
///
/// Long as one function: one subcommand's run, each method's publication and files, then the
/// summary and the staged publication, in the order they happen.
pub fn run(args: SlicingArgs) -> Result<()> {
    refuse_ignored_options(&args)?;
    let staged = args.output.prepare(&[Some(&args.input), Some(&args.schema)])?;
    let (mut data, dropped) = read_microdata(&args.input, &args.schema)?;
    if let Some(names) = &args.attributes {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        data = data.select(&names)?;
    }
    let seed = args.seed;
    let input = args.input.display().to_string();
    let summary_of =
        |method, columns, stats: Option<serde_json::Value>, audit: serde_json::Value| {
            let summary = Summary {
                input: input.clone(),
                method,
                tuples: data.len(),
                dropped_rows: dropped,
                l: args.l,
                columns,
                stats,
                audit,
            };
            serde_json::to_string_pretty(&summary).map(|s| s + "\n")
        };
    let files: Vec<(&str, String)>;
    let summary: String;
    let audit: serde_json::Value;
    match args.method {
        MethodArg::Slicing => {
            let params = SlicingParams::new(column_spec(&args)?, args.l)
                .bins(args.bins)
                .generalize(args.generalize)
                .cut(match args.cut {
                    CutArg::First => CutPolicy::FirstCut,
                    CutArg::Any => CutPolicy::AnyCut,
                })
                .seed(seed)
                .check()?;
            let sliced = anonymize(&data, &params)?;
            // `anonymize` has audited the table against the input; nothing is written otherwise.
            files = vec![
                ("sliced.csv", sliced.table.to_csv()),
                ("sliced.json", sliced.table.meta_json()),
            ];
            summary = summary_of(
                "slicing",
                Some(sliced.table.meta.columns.clone()),
                Some(serde_json::to_value(&sliced.stats)?),
                serde_json::to_value(&sliced.audit)?,
            )?;
            audit = serde_json::to_value(&sliced.audit)?;
        }
        MethodArg::Mondrian => {
            let params =
                BaselineParams::new(args.k.unwrap_or(args.l), args.l).seed(seed).check()?;
            let MondrianPublication { table, audit: report } = mondrian(&data, &params)?;
            files =
                vec![("generalized.csv", table.to_csv()), ("generalized.json", table.meta_json())];
            audit = serde_json::to_value(&report)?;
            summary = summary_of("mondrian", None, None, audit.clone())?;
        }
        MethodArg::Anatomy => {
            let params = BaselineParams::new(1, args.l).seed(seed).check()?;
            let AnatomyBaselinePublication { tables, audit: report } = anatomize(&data, &params)?;
            files = vec![
                ("qit.csv", tables.qit_csv()),
                ("st.csv", tables.st_csv()),
                ("anatomy.json", tables.meta_json()),
            ];
            audit = serde_json::to_value(&report)?;
            summary = summary_of("anatomy", None, None, audit.clone())?;
        }
    }
    for (name, text) in &files {
        write_text(&staged.path(name), text)?;
    }
    write_text(&staged.path("summary.json"), &summary)?;
    let method = match args.method {
        MethodArg::Slicing => "slicing",
        MethodArg::Mondrian => "slicing/mondrian",
        MethodArg::Anatomy => "slicing/anatomy",
    };
    let committed = staged.commit(Description {
        method,
        parameters: &serde_json::json!({
            "l": args.l,
            "k": args.k,
            "columns": args.columns,
            "sensitive_alone": args.sensitive_alone,
            "column_spec": args.column_spec,
            "generalize": args.generalize,
            "cut": format!("{:?}", args.cut).to_lowercase(),
            "bins": args.bins,
            "attributes": args.attributes,
        }),
        seeded: args.seed.is_some(),
        inputs: &[Source::File(&args.input), Source::File(&args.schema)],
        audit: &audit,
        note: None,
    })?;
    crate::publication::said_published(&committed);
    let mut outcome = crate::outcome::Outcome::new(format!(
        "{method}: {} tuples in ({dropped} rows dropped by the schema's missing-value policy), all published",
        data.len()
    ));
    if let Some(k) = args.k {
        outcome = outcome.did(format!("classes of at least k = {k} rows"));
    }
    let outcome = outcome.audited(format!("l-diversity with l = {}", args.l));
    crate::outcome::report(&outcome, &summary, args.report.json)
}

/// Options a method does not use are refused, not silently dropped.
fn refuse_ignored_options(args: &SlicingArgs) -> Result<()> {
    let method = match args.method {
        MethodArg::Slicing => "slicing",
        MethodArg::Mondrian => "mondrian",
        MethodArg::Anatomy => "anatomy",
    };
    let given: Vec<(&str, bool, bool)> = vec![
        // (option, given, used by this method)
        ("--columns", args.columns.is_some(), args.method == MethodArg::Slicing),
        ("--column-spec", args.column_spec.is_some(), args.method == MethodArg::Slicing),
        ("--sensitive-alone", args.sensitive_alone, args.method == MethodArg::Slicing),
        ("--generalize", args.generalize.is_some(), args.method == MethodArg::Slicing),
        ("-k", args.k.is_some(), args.method == MethodArg::Mondrian),
    ];
    match given.iter().find(|(_, given, used)| *given && !used) {
        Some((option, ..)) => {
            Err(UsageError(format!("{option} does not apply to --method {method}: leave it out"))
                .into())
        }
        None => Ok(()),
    }
}

/// Runs `txanon audit slicing`: finds which publication the directory holds and verifies it
/// against the original.
pub fn run_audit(args: AuditSlicingArgs) -> Result<()> {
    let claim = format!(
        "l-diversity with l = {}{} of the publication in {}",
        args.l,
        args.k.map(|k| format!(" (and k-anonymity with k = {k})")).unwrap_or_default(),
        args.published.display()
    );
    let json = args.manifest.json;
    crate::publication::conclude(&claim, json, audited_slicing(args))
}

fn audited_slicing(args: AuditSlicingArgs) -> Result<serde_json::Value> {
    use crate::publication::unreadable;
    let dir = &args.published;
    if !dir.is_dir() {
        return Err(UsageError(format!(
            "{}: not a directory: audit slicing reads the publication directory",
            dir.display()
        ))
        .into());
    }
    let manifest = crate::publication::check_directory(dir, args.manifest.no_manifest)?;
    let (original, _) = read_microdata(&args.original, &args.schema)?;
    let at = |name: &str| dir.join(name);
    let select = |names: Vec<&str>| -> Result<Microdata> {
        let mut ordered: Vec<&str> = names;
        ordered.sort_by_key(|n| original.index_of(n).unwrap_or(usize::MAX));
        Ok(original.select(&ordered)?)
    };
    let claim = SlicingClaim::new(args.l)?;
    let context = || format!("auditing {}", dir.display());
    let report = if at("sliced.json").exists() {
        let table = SlicedTable::read(&at("sliced.csv"), &at("sliced.json"))
            .map_err(|e| unreadable(&at("sliced.csv"), e))?;
        let names = table.meta.columns.iter().flatten().map(String::as_str).collect();
        let data = select(names)?;
        serde_json::to_value(audit(&table, &data, &claim).with_context(context)?)?
    } else if at("generalized.json").exists() {
        let table = GeneralizedTable::read(&at("generalized.csv"), &at("generalized.json"))
            .map_err(|e| unreadable(&at("generalized.csv"), e))?;
        let data = select(table.meta.attributes.iter().map(String::as_str).collect())?;
        let Some(k) = args.k else {
            return Err(UsageError(format!(
                "{}: a generalized table is audited for k-anonymity too: give -k",
                dir.display()
            ))
            .into());
        };
        let claim = SlicingClaim::with_k(args.l, k)?;
        serde_json::to_value(audit_generalized(&table, &data, &claim).with_context(context)?)?
    } else if at("anatomy.json").exists() {
        let tables = AnatomyTables::read(&at("qit.csv"), &at("st.csv"), &at("anatomy.json"))
            .map_err(|e| unreadable(&at("qit.csv"), e))?;
        let mut names: Vec<&str> =
            tables.meta.quasi_identifiers.iter().map(String::as_str).collect();
        names.push(&tables.meta.sensitive);
        let data = select(names)?;
        serde_json::to_value(audit_anatomy(&tables, &data, &claim).with_context(context)?)?
    } else {
        return Err(UsageError(format!(
            "{}: no sliced.json, generalized.json or anatomy.json",
            dir.display()
        ))
        .into());
    };
    crate::publication::report_value(&report, &manifest)
}
