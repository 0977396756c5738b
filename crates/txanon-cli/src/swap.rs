//! `txanon anonymize swap` and `txanon audit swap`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;
use txanon_data::{ItemCategories, TransactionDb, random_categories, read_categories};
use txanon_swap::{Method, SwapAudit, SwapClaim, SwapParams, SwapStats, anonymize, audit};

use crate::anonymize::{output_dir, write_text, write_transactions};
use crate::exit::UsageError;
use crate::input::{InputArgs, emit, os_seed};

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
    #[arg(long, value_name = "N", required_unless_present = "categories")]
    random_categories: Option<usize>,
    /// Seed of every random choice (categories, processing order, partners, publication
    /// order); by default the operating system seeds ChaCha20.
    #[arg(long)]
    seed: Option<u64>,
    /// Records that may still show their tendency, beyond what the method leaves exposed by
    /// design, for the run to publish (its audit fails otherwise and nothing is written).
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_exposed: usize,
    /// Output directory: published.dat (or .csv), key.txt (secret), summary.json, and
    /// categories.txt with --random-categories.
    #[arg(long, short = 'o', value_name = "DIR")]
    out: PathBuf,
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
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_exposed: usize,
}

#[derive(Debug, Serialize)]
struct Summary {
    input: String,
    method: &'static str,
    categories: usize,
    #[serde(flatten)]
    stats: SwapStats,
    audit: SwapAudit,
    seconds: f64,
}

/// Runs `txanon anonymize swap`.
pub fn run(args: SwapArgs) -> Result<()> {
    let (db, _) = args.input.read()?;
    let started = Instant::now();
    let seed = args.seed.unwrap_or_else(os_seed);
    let categories = match (&args.categories, args.random_categories) {
        (Some(path), _) => category_file(&db, path)?,
        (None, Some(n)) => random_categories(&db, n, seed)?,
        (None, None) => unreachable!("clap requires one"),
    };
    let method = Method::from(args.method);
    let params = SwapParams::new(method).seed(Some(seed)).max_exposed(args.max_exposed).check()?;
    let swapped = anonymize(&db, &categories, &params)?;
    let summary = Summary {
        input: args.input.input.display().to_string(),
        method: method.name(),
        categories: categories.len(),
        stats: swapped.stats.clone(),
        audit: swapped.audit.clone(),
        seconds: started.elapsed().as_secs_f64(),
    };
    output_dir(&args.out)?;
    write_transactions(&args.out, "published", &swapped.published)?;
    let mut key = String::from(
        "# SECRET, not for publication: for each published record (line order), the input\n\
         # record (1-based) it comes from. `txanon audit swap --key` reads it.\n",
    );
    for &k in &swapped.key {
        writeln!(key, "{}", k + 1).expect("writing to a String");
    }
    write_text(&args.out.join("key.txt"), &key)?;
    if args.random_categories.is_some() {
        let mut text =
            String::from("# item category (txanon anonymize swap --random-categories)\n");
        for (i, &c) in categories.categories().iter().enumerate() {
            writeln!(text, "{} {}", db.label(i as u32), categories.names()[c as usize])
                .expect("writing to a String");
        }
        write_text(&args.out.join("categories.txt"), &text)?;
    }
    let json = serde_json::to_string_pretty(&summary)? + "\n";
    write_text(&args.out.join("summary.json"), &json)?;
    emit(&json)
}

fn category_file(db: &TransactionDb, path: &Path) -> Result<ItemCategories> {
    Ok(read_categories(path, db)?.0)
}

fn read_key(path: &Path) -> Result<Vec<u32>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
    let mut key = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line.parse::<u32>() {
            Ok(k) if k >= 1 => key.push(k - 1),
            _ => {
                return Err(UsageError(format!(
                    "{}:{}: expected a record number (1-based), found {line:?}",
                    path.display(),
                    n + 1
                ))
                .into());
            }
        }
    }
    Ok(key)
}

/// Runs `txanon audit swap`.
pub fn run_audit(args: AuditSwapArgs) -> Result<()> {
    let read = |path: &Path| -> Result<TransactionDb> {
        Ok(txanon_data::read_path(path, &txanon_data::ReadOptions::new())
            .with_context(|| format!("reading {}", path.display()))?
            .0)
    };
    let original = read(&args.original)?;
    let published = read(&args.published)?;
    let categories = category_file(&original, &args.categories)?;
    let key = read_key(&args.key)?;
    let claim = SwapClaim::new(Method::from(args.method)).max_exposed(args.max_exposed);
    let report = audit(&original, &published, &key, &categories, &claim)
        .with_context(|| format!("auditing {}", args.published.display()))?;
    emit(&(serde_json::to_string_pretty(&report)? + "\n"))
}
