//! `txanon anonymize slicing` and `txanon audit slicing`: slicing of relational microdata and
//! its two baselines.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, ValueEnum};
use txanon_data::{Schema, Table};
use txanon_publish::slicing::{SlicingCut, SlicingMethod};
use txanon_slicing::Microdata;

use crate::anonymize::OutputArgs;
use crate::exit::UsageError;

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

fn read_microdata(input: &Path, schema: &Path) -> Result<(Microdata, usize)> {
    let schema = Schema::from_path(schema)?;
    let table = Table::read(input, &schema)?;
    let dropped = table.dropped_rows();
    Ok((Microdata::from_table(&table)?, dropped))
}

pub fn run(args: SlicingArgs) -> Result<()> {
    refuse_ignored_options(&args)?;
    let staged = args.output.prepare(&[Some(&args.input), Some(&args.schema)])?;
    let (mut data, dropped) = read_microdata(&args.input, &args.schema)?;
    if let Some(names) = &args.attributes {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        data = data.select(&names)?;
    }
    let options = txanon_publish::slicing::SlicingOptions {
        l: args.l,
        k: args.k,
        columns: args.columns,
        sensitive_alone: args.sensitive_alone,
        column_spec: args.column_spec.clone(),
        generalize: args.generalize,
        cut: match args.cut {
            CutArg::First => SlicingCut::First,
            CutArg::Any => SlicingCut::Any,
        },
        bins: args.bins,
        attributes: args.attributes.clone(),
        method: match args.method {
            MethodArg::Slicing => SlicingMethod::Slicing,
            MethodArg::Mondrian => SlicingMethod::Mondrian,
            MethodArg::Anatomy => SlicingMethod::Anatomy,
        },
        seed: args.seed,
    };
    let release = txanon_publish::slicing::release(
        &args.input.display().to_string(),
        &data,
        dropped,
        &options,
    )?;
    crate::publication::commit(&release, staged, None, &[Some(&args.input), Some(&args.schema)])?;
    crate::outcome::report(release.outcome(), release.summary(), args.report.json)
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
    let report = txanon_publish::audit::slicing_files(dir, &original, args.l, args.k)?;
    crate::publication::report_value(&report, &manifest)
}
