//! `txanon anonymize anatomy` and `txanon audit anatomy`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use txanon_anatomy::{
    AnatomizedTable, AnatomyClaim, AnatomyParams, Diversity, ItemPartitioning, audit,
};

use crate::anonymize::{OutputArgs, TRANSACTION_FILES};
use crate::input::{InputArgs, read_transactions};

/// Arguments of `txanon anonymize anatomy`.
#[derive(Debug, Args)]
pub struct AnatomyArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Number of item columns (the paper's p), as slicing's --columns.
    #[arg(long, short = 'c', value_parser = crate::numbers::whole(2usize, usize::MAX))]
    columns: usize,
    /// Diversity l: in every bucket and column no value is held by more than 1/l of the records
    /// (or, with --diversity distinct, at least l distinct values).
    #[arg(long, short = 'l', value_parser = crate::numbers::whole(2usize, usize::MAX))]
    l: usize,
    /// Reading of l-diversity: `frequency` (the paper's Definition 5; bounds an attacker's
    /// inference by 1/l) or `distinct` (at least l distinct values per bucket and column, the
    /// paper's Example 4; weaker).
    #[arg(long, value_enum, default_value_t = DiversityArg::Frequency)]
    diversity: DiversityArg,
    /// Item partition into the p columns: `repaired` (k-medoids, then items moved until every
    /// column admits l), `clustered` (the paper's k-medoids alone, often infeasible on sparse
    /// data) or `diverse` (built for Definition 5's l, no clustering: the highest l).
    #[arg(long, value_enum, default_value_t = PartitioningArg::Repaired)]
    partitioning: PartitioningArg,
    /// The item partition to publish under instead of building one: a file with one line per
    /// column, its item labels separated by blanks or commas (`#` lines are comments), as many
    /// lines as --columns. Every item of the input must be in one; labels it lacks are passed
    /// over. Keeps the same columns across releases (a table.json's columns, say).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["partitioning", "headroom"])]
    item_columns: Option<PathBuf>,
    /// With --partitioning repaired: aim every column's most frequent value at 1/(l·(1 + H))
    /// of the records; more headroom gives smaller buckets and less correlated columns.
    #[arg(long, value_name = "H", default_value_t = 0.25, value_parser = crate::numbers::real(0.0, crate::numbers::End::Closed, f64::INFINITY, crate::numbers::End::Open))]
    headroom: f64,
    /// Seed of every random choice (only to reproduce a run; by default the OS seeds ChaCha20).
    /// A secret, like a key: keyed with a digest of the input, it repeats the run byte for
    /// byte; it is never written into the publication.
    #[arg(long, value_parser = crate::numbers::any::<u64>())]
    seed: Option<u64>,
    /// The publication: table.json, anonymized.dat (flattened; .csv for text labels),
    /// summary.json and manifest.json.
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    report: crate::anonymize::RunReport,
    #[command(flatten)]
    format: crate::anonymize::PublishedFormat,
}

/// `--diversity`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DiversityArg {
    /// Most frequent value at most 1/l of every bucket and column (Definition 5).
    Frequency,
    /// At least l distinct values in every bucket and column.
    Distinct,
}

impl From<DiversityArg> for Diversity {
    fn from(d: DiversityArg) -> Self {
        match d {
            DiversityArg::Frequency => Diversity::Frequency,
            DiversityArg::Distinct => Diversity::Distinct,
        }
    }
}

/// `--partitioning`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PartitioningArg {
    /// k-medoids, then repaired so that every column admits l.
    Repaired,
    /// k-medoids alone (the paper).
    Clustered,
    /// Built for Definition 5 on a sample, no clustering: reaches the highest l.
    Diverse,
}

/// Arguments of `txanon audit anatomy`.
#[derive(Debug, Args)]
pub struct AuditAnatomyArgs {
    /// The published table (table.json).
    table: PathBuf,
    /// The diversity l to verify (the table's own claim is printed, never used).
    #[arg(long, short = 'l', value_parser = crate::numbers::whole(2u64, u64::MAX))]
    l: u64,
    /// The reading of l-diversity to verify.
    #[arg(long, value_enum, default_value_t = DiversityArg::Frequency)]
    diversity: DiversityArg,
    /// The flattened records published beside the table (anonymized.dat): checked to hold
    /// each bucket's values.
    #[arg(long, value_name = "FILE")]
    flattened: Option<PathBuf>,
    /// The original transactions: every column's values must come from them.
    #[arg(long, value_name = "FILE")]
    original: Option<PathBuf>,
    #[command(flatten)]
    manifest: crate::publication::ManifestArgs,
}

/// Runs `txanon anonymize anatomy`.
pub fn run(args: AnatomyArgs) -> Result<()> {
    let inputs = [Some(args.input.input.as_path())];
    let staged = args.output.prepare(&inputs)?;
    let item_columns = args.item_columns.as_deref().map(read_item_columns).transpose()?;
    let (db, _) = args.input.read()?;
    let progress = txanon_data::progress::Progress::new();
    let params = AnatomyParams::new(args.columns, args.l)
        .item_columns(item_columns)
        .seed(args.seed)
        .diversity(args.diversity.into())
        .partitioning(match args.partitioning {
            PartitioningArg::Repaired => ItemPartitioning::Repaired,
            PartitioningArg::Clustered => ItemPartitioning::Clustered,
            PartitioningArg::Diverse => ItemPartitioning::Diverse,
        })
        .headroom(args.headroom)
        .progress(progress.clone())
        .check()?;
    let release = {
        let _meter = crate::progress::Spinner::follow(&progress);
        txanon_publish::anatomy::release(&args.input.input.display().to_string(), &db, &params)?
    };
    crate::publication::commit(&release, staged, args.format.to, &inputs)?;
    let reported = crate::outcome::report(release.outcome(), release.summary(), args.report.json);
    // The process ends here: freeing the table's allocations one by one (a few per bucket and
    // column, tens of millions at 10⁷ records) took seconds the operating system saves.
    std::mem::forget(release);
    reported
}

/// `--item-columns`: one column per line that is not blank or a `#` comment.
fn read_item_columns(path: &std::path::Path) -> Result<Vec<Vec<String>>> {
    let text = txanon_data::read_text(path).context("--item-columns")?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            line.split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .collect())
}

/// Runs `txanon audit anatomy`.
pub fn run_audit(args: AuditAnatomyArgs) -> Result<()> {
    let claim = format!(
        "l-diversity with l = {} ({} reading) of {}",
        args.l,
        match args.diversity {
            DiversityArg::Frequency => "frequency",
            DiversityArg::Distinct => "distinct",
        },
        args.table.display()
    );
    let json = args.manifest.json;
    crate::publication::conclude(&claim, json, audited_anatomy(args))
}

fn audited_anatomy(args: AuditAnatomyArgs) -> Result<serde_json::Value> {
    use crate::publication::{check_publication, read_published, sibling, unreadable};
    let manifest = check_publication(&args.table, args.manifest.no_manifest)?;
    let text = txanon_data::read_text(&args.table).map_err(|e| unreadable(&args.table, e))?;
    let table = AnatomizedTable::from_json(&text).map_err(|e| unreadable(&args.table, e))?;
    let claim = AnatomyClaim::new(args.l, args.diversity.into())?;
    // The flattened records are part of the publication: read from beside the table when the
    // auditor names no other file.
    let flattened_path = args.flattened.clone().or_else(|| {
        sibling(&args.table, &manifest, &TRANSACTION_FILES.map(|ext| format!("anonymized.{ext}")))
    });
    let flattened = flattened_path.as_deref().map(read_published).transpose()?;
    let original = args.original.as_deref().map(read_transactions).transpose()?;
    let report = audit(&table, &claim, flattened.as_ref(), original.as_ref())
        .with_context(|| format!("auditing {}", args.table.display()))?;
    crate::publication::report_value(&report, &manifest)
}
