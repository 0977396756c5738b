//! `txanon mine`: frequent itemsets, maximal or closed ones, counts, and association rules.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;
use txanon_data::progress::Unit;
use txanon_data::{ItemId, TransactionDb, write_atomic};
use txanon_mining::{
    Algorithm, FrequentItemsets, MinSupport, MiningParams, Rule, RuleParams, closed_itemsets,
    count_itemsets, frequent_itemsets, maximal_itemsets, rules,
};

use crate::exit::UsageError;
use crate::input::{InputArgs, emit};

/// The miners the CLI offers.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AlgorithmArg {
    /// FP-Growth with perfect-extension pruning, parallel (the fast one).
    Fpgrowth,
    /// Level-wise Apriori.
    Apriori,
}

impl From<AlgorithmArg> for Algorithm {
    fn from(a: AlgorithmArg) -> Self {
        match a {
            AlgorithmArg::Fpgrowth => Algorithm::FpGrowth,
            AlgorithmArg::Apriori => Algorithm::Apriori,
        }
    }
}

/// Arguments of `txanon mine`.
#[derive(Debug, Args)]
pub struct MineArgs {
    /// The algorithm (both give the same itemsets).
    algorithm: AlgorithmArg,
    #[command(flatten)]
    input: InputArgs,
    /// Minimum support: a percentage (0.5%), a fraction (0.005) or a transaction count (50).
    #[arg(long, short = 's', value_parser = parse_support)]
    support: MinSupport,
    /// Smallest itemset (or, with --rules, rule) length reported.
    #[arg(long, value_parser = crate::numbers::positive::<usize>())]
    min_len: Option<usize>,
    /// Largest itemset (or rule) length reported; the search stops there too.
    #[arg(long, value_parser = crate::numbers::positive::<usize>())]
    max_len: Option<usize>,
    /// Only the maximal frequent itemsets.
    #[arg(long, conflicts_with_all = ["closed", "rules", "count_only"])]
    maximal: bool,
    /// Only the closed frequent itemsets.
    #[arg(long, conflicts_with_all = ["rules", "count_only"])]
    closed: bool,
    /// Association rules X → Y instead of itemsets (see --confidence, --single-consequent).
    #[arg(long)]
    rules: bool,
    /// Minimum rule confidence, in [0, 1].
    #[arg(long, default_value_t = 0.8, requires = "rules", value_parser = crate::numbers::share())]
    confidence: f64,
    /// Only rules with one item in the consequent (how pyfim and Weka count rules).
    #[arg(long, requires = "rules")]
    single_consequent: bool,
    /// Count the itemsets of each length without listing them (FP-Growth with perfect-extension
    /// pruning: exact even for astronomically many).
    #[arg(long, conflicts_with = "rules")]
    count_only: bool,
    /// Most itemsets or rules a listing may hold before failing (memory bound).
    #[arg(long, default_value_t = txanon_mining::DEFAULT_LIMIT, value_parser = crate::numbers::positive::<u64>())]
    limit: u64,
    /// Mine on one thread.
    #[arg(long)]
    sequential: bool,
    /// Write the listing here (written whole or not at all); `-` or absent: stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    out: Option<PathBuf>,
    /// Print a JSON summary (counts and seconds) on stdout; the listing goes only to --out.
    #[arg(long)]
    json: bool,
}

fn parse_support(s: &str) -> Result<MinSupport, String> {
    s.parse()
}

#[derive(Debug, Serialize)]
struct Summary {
    file: String,
    algorithm: &'static str,
    mode: &'static str,
    transactions: usize,
    items: usize,
    min_support: String,
    min_support_count: u32,
    /// Itemsets (all, maximal or closed) found: a JSON number, exact up to 2^128 (a reader
    /// in doubles sees counts past 2^53 rounded).
    itemsets: u128,
    /// Itemsets per length, index = length.
    by_len: Vec<u128>,
    rules: Option<u64>,
    seconds: Seconds,
}

#[derive(Debug, Serialize)]
struct Seconds {
    load: f64,
    mine: f64,
    rules: Option<f64>,
}

/// Runs `txanon mine`.
pub fn run(args: MineArgs) -> Result<()> {
    if let Some(out) = &args.out {
        crate::input::check_output("--out", out)?;
    }
    if args.sequential {
        // The same search on a pool of one thread: the miners parallelize only with threads.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
        return pool.install(|| mine(args));
    }
    mine(args)
}

/// Long as one function: one subcommand's run, read, mined, each output form and the summary, in
/// the order the user sees them.
fn mine(args: MineArgs) -> Result<()> {
    let started = Instant::now();
    let (db, _) = args.input.read()?;
    let load = started.elapsed().as_secs_f64();
    let algorithm = Algorithm::from(args.algorithm);
    if args.count_only && !matches!(algorithm, Algorithm::FpGrowth) {
        return Err(
            UsageError("--count-only needs fpgrowth (perfect-extension pruning)".into()).into()
        );
    }
    let mut params = MiningParams::new(args.support).limit(args.limit);
    // Rule bodies and heads need the support of every shorter itemset: mine from length 1.
    if let (Some(m), false) = (args.min_len, args.rules) {
        params = params.min_len(m);
    }
    params = params.max_len(args.max_len);
    let progress = txanon_data::progress::Progress::new();
    if matches!(algorithm, Algorithm::FpGrowth) {
        params = params.progress(progress.clone());
        progress.begin("FP-Growth (FP-tree nodes mined)", Unit::Items, 0);
    } else {
        progress.begin("Apriori", Unit::Items, 0);
    }
    let params = params.check()?;
    let min_count = args.support.count(db.len());

    let mode = if args.count_only {
        "count"
    } else if args.maximal {
        "maximal"
    } else if args.closed {
        "closed"
    } else if args.rules {
        "rules"
    } else {
        "itemsets"
    };
    let mining_started = Instant::now();
    let meter = crate::progress::Spinner::follow(&progress);
    let listing: Listing;
    let (itemsets, by_len, rule_count, rule_seconds, mine_seconds);
    if args.count_only {
        let spectrum = count_itemsets(&db, &params)?;
        mine_seconds = mining_started.elapsed().as_secs_f64();
        itemsets = spectrum.total().expect("checked by count_itemsets");
        by_len = spectrum.by_len.clone();
        let mut text = format!("{itemsets} frequent itemsets\n");
        for (len, c) in spectrum.by_len.iter().enumerate().filter(|(_, c)| **c > 0) {
            writeln!(text, "  length {len:>3}: {c}").ok();
        }
        listing = Listing::Counts(text);
        rule_count = None;
        rule_seconds = None;
    } else {
        let found = if args.maximal {
            maximal_itemsets(&db, &params)?
        } else if args.closed {
            closed_itemsets(&db, &params)?
        } else {
            frequent_itemsets(&db, algorithm, &params)?
        };
        mine_seconds = mining_started.elapsed().as_secs_f64();
        itemsets = found.len() as u128;
        by_len = found.counts_by_len().iter().map(|&c| u128::from(c)).collect();
        if args.rules {
            progress.begin("association rules", Unit::Items, 0);
            let rules_started = Instant::now();
            let mut rp = RuleParams::new(args.confidence).max_len(args.max_len).limit(args.limit);
            if let Some(m) = args.min_len {
                rp = rp.min_len(m);
            }
            let rp = rp.check()?;
            let rules = rules::generate(&found, &rp, args.single_consequent)?;
            rule_seconds = Some(rules_started.elapsed().as_secs_f64());
            rule_count = Some(rules.len() as u64);
            listing = Listing::Rules(rules);
        } else {
            rule_count = None;
            rule_seconds = None;
            listing = Listing::Itemsets(found);
        }
    }

    drop(meter);
    // The listing is streamed, never built as one string: it may hold tens of millions of lines.
    match &args.out {
        Some(path) if path != Path::new("-") => write_atomic(path, |file| -> Result<()> {
            let mut w = std::io::BufWriter::new(file);
            listing.write(&db, &mut w)?;
            w.flush()?;
            Ok(())
        })
        .with_context(|| format!("writing {}", path.display()))?,
        _ if !args.json => {
            let mut w = std::io::BufWriter::new(std::io::stdout().lock());
            match listing.write(&db, &mut w).and_then(|()| w.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                other => other.context("writing to stdout")?,
            }
        }
        _ => {}
    }
    let summary = Summary {
        file: args.input.input.display().to_string(),
        algorithm: if args.count_only || args.maximal || args.closed {
            "fpgrowth"
        } else {
            algorithm.name()
        },
        mode,
        transactions: db.len(),
        items: db.num_items(),
        min_support: args.support.to_string(),
        min_support_count: min_count,
        itemsets,
        by_len,
        rules: rule_count,
        seconds: Seconds { load, mine: mine_seconds, rules: rule_seconds },
    };
    if args.json {
        emit(&(serde_json::to_string_pretty(&summary)? + "\n"))?;
    } else {
        let rules = summary.rules.map(|r| format!(", {r} rules")).unwrap_or_default();
        eprintln!(
            "{} itemsets ({mode}){rules} at support {} ({min_count} transactions) in {:.3} s ({:.3} s loading)",
            summary.itemsets, summary.min_support, mine_seconds, load
        );
    }
    Ok(())
}

/// What `txanon mine` found, to be written out.
enum Listing {
    Counts(String),
    Itemsets(FrequentItemsets),
    Rules(Vec<Rule>),
}

impl Listing {
    /// Itemsets one a line, labels then the support in parentheses (Borgelt's format); rules as
    /// `X -> Y (support confidence)`.
    fn write(&self, db: &TransactionDb, w: &mut impl std::io::Write) -> std::io::Result<()> {
        match self {
            Listing::Counts(text) => w.write_all(text.as_bytes()),
            Listing::Itemsets(found) => found.iter().try_for_each(|(items, support)| {
                write_items(w, db, items)?;
                writeln!(w, " ({support})")
            }),
            Listing::Rules(rules) => rules.iter().try_for_each(|r| {
                write_items(w, db, &r.antecedent)?;
                w.write_all(b" -> ")?;
                write_items(w, db, &r.consequent)?;
                writeln!(w, " ({} {:.6})", r.support, r.confidence())
            }),
        }
    }
}

fn write_items(
    w: &mut impl std::io::Write,
    db: &TransactionDb,
    items: &[ItemId],
) -> std::io::Result<()> {
    for (i, &item) in items.iter().enumerate() {
        if i > 0 {
            w.write_all(b" ")?;
        }
        write!(w, "{}", db.label(item))?;
    }
    Ok(())
}
