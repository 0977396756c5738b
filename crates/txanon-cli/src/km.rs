//! `txanon anonymize km` and `txanon audit km`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use txanon_data::progress::Progress;
use txanon_km::{Algorithm, Hierarchy, KmClaim, KmParams, audit_with_progress};

use crate::anonymize::OutputArgs;
use crate::input::{InputArgs, read_transactions};

/// Arguments of `txanon anonymize km`.
#[derive(Debug, Args)]
pub struct KmArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    setting: Setting,
    /// The generalization hierarchy: one `child parent` pair per line, labels as in the data
    /// (tab- or comma-separated when labels hold spaces); every item a leaf, one root.
    /// Without it, a hierarchy of fanout --fanout is built.
    #[arg(long, value_name = "FILE")]
    hierarchy: Option<PathBuf>,
    /// Fanout f of the built hierarchy (the paper's balanced hierarchies): each node
    /// generalizes f children.
    #[arg(long, value_name = "F", conflicts_with = "hierarchy", default_value_t = 5,
          value_parser = crate::numbers::whole(2u64, 1_000_000))]
    fanout: u64,
    /// How the built hierarchy groups items: `order` (the paper's: consecutive items in
    /// label order) or `cooccurrence` (items seen together, by φ²).
    #[arg(long, value_enum, conflicts_with = "hierarchy", default_value_t = BuildArg::Order)]
    build: BuildArg,
    /// The search: `aa` (Apriori Anonymization, the paper's main algorithm), `da` (Direct
    /// Anonymization) or `oa` (Optimal Anonymization: every cut; small hierarchies only).
    #[arg(long, value_enum, default_value_t = AlgorithmArg::Aa)]
    algorithm: AlgorithmArg,
    /// With --algorithm oa: refuse hierarchies with more cuts than this.
    #[arg(long, value_name = "N", default_value_t = 1_000_000,
          value_parser = crate::numbers::positive::<u64>())]
    max_cuts: u64,
    /// With --algorithm aa or da: refuse a counting pass that could hold more distinct
    /// itemsets than this (memory grows with it, about 37 bytes a counter; at most 5·10⁸; DA
    /// on raw data with m = 4 exceeds the default).
    #[arg(long, value_name = "N", default_value_t = 200_000_000,
          value_parser = crate::numbers::whole(1u64, txanon_km::MAX_COUNTERS))]
    max_combinations: u64,
    /// Seed of the ChaCha20 shuffle of the published transactions (default: from the
    /// operating system). The cut does not depend on it.
    /// A secret, like a key: keyed with a digest of the input, it repeats the run byte for
    /// byte; it is never written into the publication.
    #[arg(long, value_parser = crate::numbers::any::<u64>())]
    seed: Option<u64>,
    /// The publication: published.dat (or .csv: generalized items have text labels), cut.txt,
    /// hierarchy.txt, summary.json and manifest.json.
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    report: crate::anonymize::RunReport,
    #[command(flatten)]
    format: crate::anonymize::PublishedFormat,
}

/// Arguments of `txanon audit km`.
#[derive(Debug, Args)]
pub struct AuditKmArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The auditor's hierarchy (a publication carries the one it used as hierarchy.txt).
    #[arg(long, value_name = "FILE")]
    hierarchy: PathBuf,
    #[command(flatten)]
    setting: Setting,
    /// The published cut (cut.txt, one node label per line): every leaf below exactly one of
    /// its nodes, every published item on it.
    #[arg(long, value_name = "FILE")]
    cut: Option<PathBuf>,
    /// The original transactions: the publication must be them generalized by one cut.
    #[arg(long, value_name = "FILE")]
    original: Option<PathBuf>,
    #[command(flatten)]
    manifest: crate::publication::ManifestArgs,
}

/// The (k, m) both subcommands take.
#[derive(Debug, Clone, Copy, Args)]
struct Setting {
    /// Cohort size k: every combination of at most m items must be in at least k transactions.
    #[arg(long, value_parser = crate::numbers::whole(2u64, u64::from(u32::MAX)))]
    k: u64,
    /// Adversary's knowledge m: at most m items of a transaction known (the paper's 1 to 4).
    #[arg(long, value_parser = crate::numbers::whole(1u64, 4))]
    m: u64,
}

/// `--algorithm`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum AlgorithmArg {
    /// Apriori Anonymization.
    Aa,
    /// Direct Anonymization.
    Da,
    /// Optimal Anonymization.
    Oa,
}

/// `--build`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum BuildArg {
    /// Consecutive items in label order (the paper's balanced hierarchy).
    Order,
    /// Items grouped by co-occurrence (φ²).
    Cooccurrence,
}

/// Runs `txanon anonymize km`.
pub fn run(args: KmArgs) -> Result<()> {
    let inputs = [Some(args.input.input.as_path()), args.hierarchy.as_deref()];
    let staged = args.output.prepare(&inputs)?;
    let (db, _) = args.input.read()?;
    let fanout = usize::try_from(args.fanout).expect("clap bounds the fanout");
    let (hierarchy, described) = match &args.hierarchy {
        Some(path) => (Hierarchy::read(path)?, path.display().to_string()),
        None => match args.build {
            BuildArg::Order => {
                (Hierarchy::balanced(&db, fanout)?, format!("balanced, fanout {fanout}"))
            }
            BuildArg::Cooccurrence => (
                Hierarchy::by_cooccurrence(&db, fanout)?,
                format!("co-occurrence, fanout {fanout}"),
            ),
        },
    };
    let algorithm = match args.algorithm {
        AlgorithmArg::Aa => Algorithm::Apriori,
        AlgorithmArg::Da => Algorithm::Direct,
        AlgorithmArg::Oa => Algorithm::Optimal,
    };
    let Setting { k, m } = args.setting;
    let progress = Progress::new();
    let params = KmParams::new(u32::try_from(k).expect("clap bounds k by u32::MAX"), m as usize)
        .algorithm(algorithm)
        .max_cuts(args.max_cuts)
        .max_combinations(args.max_combinations)
        .progress(progress.clone())
        .seed(args.seed)
        .check()?;
    let release = {
        let _meter = crate::progress::Spinner::follow(&progress);
        txanon_publish::km::release(
            &args.input.input.display().to_string(),
            &db,
            &hierarchy,
            &described,
            &params,
        )?
    };
    crate::publication::commit(&release, staged, args.format.to, &inputs)?;
    crate::outcome::report(release.outcome(), release.summary(), args.report.json)
}

/// Reads a cut file: one node label per line (labels may hold spaces), `#` comments.
fn read_cut(path: &Path) -> Result<Vec<String>> {
    Ok(txanon_data::read_text(path)?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect())
}

/// Runs `txanon audit km`.
pub fn run_audit(args: AuditKmArgs) -> Result<()> {
    let claim = format!(
        "k^m-anonymity with k = {}, m = {} over the hierarchy {} in {}",
        args.setting.k,
        args.setting.m,
        args.hierarchy.display(),
        args.input.input.display()
    );
    let json = args.manifest.json;
    crate::publication::conclude(&claim, json, audited_km(args))
}

fn audited_km(args: AuditKmArgs) -> Result<serde_json::Value> {
    use crate::publication::{check_publication, published_or, sibling, unreadable};
    let manifest = check_publication(&args.input.input, args.manifest.no_manifest)?;
    let (db, _) = args.input.read().map_err(|e| unreadable(&args.input.input, e))?;
    let hierarchy = published_or(&args.hierarchy, &manifest, Hierarchy::read(&args.hierarchy))?;
    let Setting { k, m } = args.setting;
    let claim = KmClaim::new(k, m)?;
    // The published cut is part of the publication: read from beside it when the auditor
    // names no other.
    let cut_path = args.cut.clone().or_else(|| sibling(&args.input.input, &manifest, &["cut.txt"]));
    let cut = match &cut_path {
        Some(path) => Some(published_or(path, &manifest, read_cut(path))?),
        None => None,
    };
    let original = args.original.as_deref().map(read_transactions).transpose()?;
    let progress = txanon_data::progress::Progress::new();
    let report = {
        let _meter = crate::progress::Spinner::follow(&progress);
        audit_with_progress(&db, &hierarchy, &claim, cut.as_deref(), original.as_ref(), &progress)
    }
    .with_context(|| format!("auditing {}", args.input.input.display()))?;
    crate::publication::report_value(&report, &manifest)
}
