//! `txanon anonymize swap` and `txanon audit swap`.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use txanon_publish::swap::CategoriesFrom;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use txanon_data::{Categorized, ItemCategories, TransactionDb, random_categories, read_categories};
use txanon_swap::{Method, Search, SwapClaim, SwapParams, Ties, audit};

use crate::anonymize::OutputArgs;
use crate::exit::UsageError;
use crate::input::InputArgs;

/// `--method`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum MethodArg {
    /// Partial swapping: tendency items exchanged with the least similar record of another
    /// tendency (the paper's method).
    Partswap,
    /// Full swapping: single-category records exchanged whole.
    Fullswap,
    /// Partial swapping, then full swapping of the single-category records.
    Both,
    /// Baseline: the tendency items exchanged with a uniformly random record.
    Randswap,
    /// Baseline: the tendency items deleted.
    Partsupp,
    /// Baseline: one record per category of each record.
    Splitperson,
}

/// `--ties`.
#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub enum TiesArg {
    /// The paper's Algorithm 1: the category with the highest item frequency, the first of
    /// equally heavy ones; another tied category then shows after the swap.
    #[default]
    First,
    /// Every category tied for the heaviest moves (or is deleted), so none is left to show.
    All,
}

impl From<TiesArg> for Ties {
    fn from(t: TiesArg) -> Self {
        match t {
            TiesArg::First => Ties::First,
            TiesArg::All => Ties::All,
        }
    }
}

impl From<MethodArg> for Method {
    fn from(m: MethodArg) -> Self {
        match m {
            MethodArg::Partswap => Method::PartSwap,
            MethodArg::Fullswap => Method::FullSwap,
            MethodArg::Both => Method::PartAndFullSwap,
            MethodArg::Randswap => Method::RandSwap,
            MethodArg::Partsupp => Method::PartSupp,
            MethodArg::Splitperson => Method::SplitPerson,
        }
    }
}

/// Arguments of `txanon anonymize swap`.
#[derive(Debug, Args)]
pub struct SwapArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The method.
    #[arg(long, value_enum, default_value_t = MethodArg::Partswap)]
    method: MethodArg,
    /// An item → category file (`item category` per line, blank- or comma-separated).
    #[arg(long, value_name = "FILE", conflicts_with = "random_categories")]
    categories: Option<PathBuf>,
    /// The paper's artificial categorization: N categories sharing the items at random in
    /// equal shares (written to categories.txt).
    #[arg(long, value_name = "N", required_unless_present = "categories", value_parser = crate::numbers::positive::<usize>())]
    random_categories: Option<usize>,
    /// Seed of every random choice (categories, processing order, partners, publication
    /// order); by default the operating system seeds ChaCha20.
    /// A secret, like a key: keyed with a digest of the input, it repeats the run byte for
    /// byte; it is never written into the publication.
    #[arg(long, value_parser = crate::numbers::any::<u64>())]
    seed: Option<u64>,
    /// Records that may still show their tendency, beyond what the method leaves exposed by
    /// design, for the run to publish (its audit fails otherwise and nothing is written).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = crate::numbers::any::<usize>())]
    max_exposed: usize,
    /// Which of a record's equally heavy heaviest categories (its weight WR above the mean
    /// MTV) are its tendency: what partswap, randswap and partsupp move or delete.
    #[arg(long, value_enum, default_value_t = TiesArg::First)]
    ties: TiesArg,
    /// Bound partswap's search for a destination: the least similar eligible record among the
    /// next W records of another tendency in the processing order, a sample of the paper's
    /// candidate bucket C_t (Algorithm 2), instead of all of it. The paper's whole bucket (the
    /// default) costs time quadratic in the records once every candidate shares an item with
    /// the record, as on skewed data (docs/SCALE.md: minutes for a million kosarak-shaped
    /// records, where --window 64 takes seconds); the window also leaves fewer records
    /// without a partner, and costs some utility there.
    #[arg(long, value_name = "W", value_parser = crate::numbers::positive::<u64>())]
    window: Option<u64>,
    /// Where to write the key (secret: it links every published record to its input record
    /// and undoes the anonymization), with mode 0600; never inside the publication. Without it
    /// no key is kept, and the per-record audit cannot be run later.
    #[arg(long, value_name = "PATH")]
    key_out: Option<PathBuf>,
    /// The publication: published.dat (or .csv), summary.json, manifest.json, and
    /// categories.txt with --random-categories.
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    report: crate::anonymize::RunReport,
    #[command(flatten)]
    format: crate::anonymize::PublishedFormat,
}

/// Arguments of `txanon audit swap`.
#[derive(Debug, Args)]
pub struct AuditSwapArgs {
    /// The original transaction file.
    original: PathBuf,
    /// The published transaction file.
    published: PathBuf,
    /// The item → category file (the one the run used: its category names order ties).
    #[arg(long, value_name = "FILE")]
    categories: PathBuf,
    /// The key written by the run (key.txt): per published record, the original record it
    /// comes from. The per-record decisions (is the tendency still shown?) need it.
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// The method whose guarantee is verified.
    #[arg(long, value_enum)]
    method: MethodArg,
    /// Records that may still show their tendency beyond the method's design.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = crate::numbers::any::<usize>())]
    max_exposed: usize,
    /// The tie rule whose guarantee is verified: with `all`, a published record shows the
    /// tendency when any of its heaviest categories is one of the original's tied heaviest.
    #[arg(long, value_enum, default_value_t = TiesArg::First)]
    ties: TiesArg,
    #[command(flatten)]
    manifest: crate::publication::ManifestArgs,
}

/// The destination search `--window` asks for.
fn search(window: Option<u64>) -> Search {
    match window.and_then(|w| NonZeroUsize::new(usize::try_from(w).unwrap_or(usize::MAX))) {
        Some(w) => Search::Window(w),
        None => Search::Indexed,
    }
}

/// Runs `txanon anonymize swap`.
///
/// Long as one function: one subcommand's run, options checked, categories, publication, key and
/// summary, in the order they happen.
pub fn run(args: SwapArgs) -> Result<()> {
    if args.window.is_some() && !matches!(args.method, MethodArg::Partswap | MethodArg::Both) {
        return Err(UsageError(
            "--window bounds partial swapping's search: it applies to --method partswap and both"
                .into(),
        )
        .into());
    }
    if let Some(key) = &args.key_out {
        check_key_path(key, &args.output.out)?;
    }
    let inputs = [Some(args.input.input.as_path()), args.categories.as_deref()];
    let staged = args.output.prepare(&inputs)?;
    let (db, _) = args.input.read()?;
    // The categorization is the paper's artificial one, published beside the data: drawn from a
    // seed keyed like the publication, so that categories.txt does not give --seed away (the
    // publication's own randomness is seeded from all 256 bits of the OS when no --seed).
    let (categories, from) = match (&args.categories, args.random_categories) {
        (Some(path), _) => (category_file(&db, path)?, CategoriesFrom::File),
        (None, Some(n)) => (
            random_categories(&db, n, txanon_data::draw_seed(args.seed, &db))
                .with_context(|| args.input.input.display().to_string())?,
            CategoriesFrom::Random(n),
        ),
        (None, None) => unreachable!("clap requires one"),
    };
    let method = Method::from(args.method);
    let progress = txanon_data::progress::Progress::new();
    let params = SwapParams::new(method)
        .search(search(args.window))
        .seed(args.seed)
        .max_exposed(args.max_exposed)
        .ties(args.ties.into())
        .progress(progress.clone())
        .check()?;
    let (release, key) = {
        let _meter = crate::progress::Spinner::follow(&progress);
        txanon_publish::swap::release(
            &args.input.input.display().to_string(),
            &db,
            &categories,
            from,
            &params,
            args.key_out.is_some(),
        )?
    };
    if let Some(path) = &args.key_out {
        let key = key.to_text();
        txanon_data::write_atomic_with_mode(path, 0o600, |file| -> Result<()> {
            std::io::Write::write_all(file, key.as_bytes())?;
            Ok(())
        })
        .with_context(|| format!("writing {}", path.display()))?;
    }
    crate::publication::commit(&release, staged, args.format.to, &inputs)?;
    crate::outcome::report(release.outcome(), release.summary(), args.report.json)
}

/// The key's path must lie outside the publication and its directory must exist.
fn check_key_path(key: &Path, out: &Path) -> Result<()> {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    if absolute(key).starts_with(absolute(out)) {
        return Err(UsageError(format!(
            "--key-out {}: the key undoes the anonymization and must not be inside the publication {}",
            key.display(),
            out.display()
        ))
        .into());
    }
    crate::input::check_output("--key-out", key)
}

fn category_file(db: &TransactionDb, path: &Path) -> Result<ItemCategories> {
    Ok(read_categories(path, db)?.0)
}

/// Runs `txanon audit swap`.
pub fn run_audit(args: AuditSwapArgs) -> Result<()> {
    let claim = format!(
        "{} as published, at most {} records showing their tendency beyond its design, in {}",
        Method::from(args.method).name(),
        args.max_exposed,
        args.published.display()
    );
    let json = args.manifest.json;
    crate::publication::conclude(&claim, json, audited_swap(args))
}

fn audited_swap(args: AuditSwapArgs) -> Result<serde_json::Value> {
    use crate::publication::{check_publication, published_or, read_published};
    let manifest = check_publication(&args.published, args.manifest.no_manifest)?;
    let original = crate::input::read_transactions(&args.original)?;
    let published = read_published(&args.published)?;
    let categories =
        published_or(&args.categories, &manifest, category_file(&original, &args.categories))?;
    let key = crate::input::read_key(&args.key)?;
    let claim = SwapClaim::new(Method::from(args.method))
        .max_exposed(args.max_exposed)
        .ties(args.ties.into());
    let report = audit(Categorized::new(&original, &categories)?, &published, &key, &claim)
        .with_context(|| format!("auditing {}", args.published.display()))?;
    crate::publication::report_value(&report, &manifest)
}
