//! `txanon anonymize swap` and `txanon audit swap`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;
use txanon_data::{ItemCategories, TransactionDb, random_categories, read_categories};
use txanon_swap::{Method, SwapAudit, SwapParams, SwapStats, anonymize, audit};

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
    /// The item → category file.
    #[arg(long, value_name = "FILE")]
    categories: PathBuf,
    /// The key written beside the publication (key.txt): per published record, the original
    /// record it comes from. Without it only item counts are checked.
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
    /// Check the guarantees of this method (with the key): true swaps, nothing lost.
    #[arg(long, value_enum)]
    method: Option<MethodArg>,
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
    let params = SwapParams::new(method).seed(Some(seed)).check()?;
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

/// `published`, re-expressed over `original`'s dictionary.
fn over_dictionary_of(
    original: &TransactionDb,
    published: &TransactionDb,
    path: &Path,
) -> Result<TransactionDb> {
    let mut map = Vec::with_capacity(published.num_items());
    for i in 0..published.num_items() as u32 {
        let label = published.label(i).to_string();
        let Some(id) = original.labels().find(&label) else {
            return Err(UsageError(format!(
                "{}: item {label} is not in the original",
                path.display()
            ))
            .into());
        };
        map.push(id);
    }
    let mut offsets = vec![0];
    let mut items = Vec::with_capacity(published.occurrences());
    for t in published.iter() {
        let start = items.len();
        items.extend(t.iter().map(|&i| map[i as usize]));
        items[start..].sort_unstable();
        offsets.push(items.len());
    }
    Ok(TransactionDb::from_parts(offsets, items, original.labels().clone()))
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
    let published = over_dictionary_of(&original, &read(&args.published)?, &args.published)?;
    let categories = category_file(&original, &args.categories)?;
    let key = args.key.as_deref().map(read_key).transpose()?;
    let report = audit(&original, &published, key.as_deref(), &categories)?;
    let json = serde_json::to_string_pretty(&report)? + "\n";
    // Without --method only what no method allows: occurrences from nowhere.
    let method = args.method.map_or(Method::RandSwap, Method::from);
    if let Err(e) = report.check_publication(method) {
        emit(&json)?;
        return Err(UsageError(format!("{}: {e}", args.published.display())).into());
    }
    emit(&json)
}
