//! `txanon compare`: every utility metric between an original and an anonymized file.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use serde::Serialize;
use txanon_data::{Format, ReadOptions, read_path};
use txanon_metrics::{
    ItemAlignment, ItemLoss, Ratio, dissimilarity, item_loss, itemset_accuracy, jaccard_itemsets,
    record_distortion, relative_support_error, rule_accuracy,
};
use txanon_mining::{Algorithm, MinSupport, MiningParams, RuleParams, frequent_itemsets, rules};

use crate::input::emit;

/// Arguments of `txanon compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The original transaction file.
    original: PathBuf,
    /// The anonymized (published) transaction file.
    anonymized: PathBuf,
    /// Minimum support for mining both: a percentage (0.5%), a fraction or a count. A relative
    /// support is resolved against each file's own number of transactions.
    #[arg(long, short = 's', value_parser = |s: &str| s.parse::<MinSupport>())]
    support: MinSupport,
    /// Minimum rule confidence.
    #[arg(long, default_value_t = 0.8, value_parser = crate::numbers::share())]
    confidence: f64,
    /// Largest itemset and rule length mined (the anatomy paper counts rules of 2 to 4 items).
    #[arg(long, value_parser = crate::numbers::positive::<usize>())]
    max_len: Option<usize>,
    /// Read both files as this format instead of guessing from their names.
    #[arg(long = "from", value_name = "FORMAT")]
    from: Option<Format>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// The key linking each published record to its original record (as swap's --key-out
    /// writes it): needed for the record distortion, since a publication's records are in a
    /// shuffled order and do not correspond by position.
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
struct Comparison {
    original: String,
    anonymized: String,
    transactions: (usize, usize),
    support: String,
    confidence: f64,
    max_len: Option<usize>,
    itemsets: (usize, usize),
    rules: (usize, usize),
    rule_accuracy: Ratio,
    itemset_accuracy: Ratio,
    jaccard_itemsets: f64,
    relative_support_error: f64,
    dissimilarity: f64,
    item_loss: ItemLoss,
    /// `None` without a key that pairs every original record with one published record.
    record_distortion: Option<f64>,
}

/// Runs `txanon compare`.
pub fn run(args: CompareArgs) -> Result<()> {
    let mut options = ReadOptions::new();
    if let Some(f) = args.from {
        options = options.format(f);
    }
    let (original, _) = read_path(&args.original, &options)?;
    let (anonymized, _) = read_path(&args.anonymized, &options)?;
    let params = MiningParams::new(args.support).max_len(args.max_len).check()?;
    let rule_params = RuleParams::new(args.confidence).max_len(args.max_len).check()?;

    let f_orig = frequent_itemsets(&original, Algorithm::FpGrowth, &params)?;
    let f_anon_raw = frequent_itemsets(&anonymized, Algorithm::FpGrowth, &params)?;
    let r_orig = rules::generate(&f_orig, &rule_params, false)?;
    let r_anon_raw = rules::generate(&f_anon_raw, &rule_params, false)?;
    let forward = ItemAlignment::new(&original, &anonymized);
    let backward = ItemAlignment::new(&anonymized, &original);
    let f_anon = forward.itemsets(&f_anon_raw);
    let r_anon = forward.rules(&r_anon_raw);

    // Records correspond only through the key: by position, a shuffled identical copy would
    // look almost entirely distorted.
    let aligned = match &args.key {
        Some(path) => Some(
            in_original_order(&anonymized, &crate::input::read_key(path)?, original.len())
                .map_err(|e| crate::exit::UsageError(format!("{}: {e}", path.display())))?,
        ),
        None => None,
    };
    let report = Comparison {
        original: args.original.display().to_string(),
        anonymized: args.anonymized.display().to_string(),
        transactions: (original.len(), anonymized.len()),
        support: args.support.to_string(),
        confidence: args.confidence,
        max_len: args.max_len,
        itemsets: (f_orig.len(), f_anon_raw.len()),
        rules: (r_orig.len(), r_anon_raw.len()),
        rule_accuracy: rule_accuracy(&r_orig, &r_anon),
        itemset_accuracy: itemset_accuracy(&f_orig, &f_anon),
        jaccard_itemsets: jaccard_itemsets(&f_orig, &f_anon),
        relative_support_error: relative_support_error(&f_orig, &anonymized, |i| {
            backward.original(i)
        }),
        dissimilarity: dissimilarity(&original, &anonymized),
        item_loss: item_loss(&original, &anonymized),
        record_distortion: match &aligned {
            Some(aligned) => record_distortion(&original, aligned).ok(),
            None => None,
        },
    };
    if args.json {
        return emit(&(serde_json::to_string_pretty(&report)? + "\n"));
    }
    let mut out = String::new();
    let r = &report;
    let rows: Vec<(&str, String)> = vec![
        (
            "transactions (original, anonymized)",
            format!("{} / {}", r.transactions.0, r.transactions.1),
        ),
        ("frequent itemsets", format!("{} / {}", r.itemsets.0, r.itemsets.1)),
        ("association rules", format!("{} / {}", r.rules.0, r.rules.1)),
        ("rule accuracy AR = M/N", ratio(&r.rule_accuracy)),
        ("itemset accuracy", ratio(&r.itemset_accuracy)),
        ("Jaccard |F∩F̃|/|F∪F̃|", format!("{:.6}", r.jaccard_itemsets)),
        ("relative support error", format!("{:.6}", r.relative_support_error)),
        ("dissimilarity Σ|f−f̃|/Σf", format!("{:.6}", r.dissimilarity)),
        (
            "item occurrences removed",
            format!(
                "{} ({:.4}%)",
                r.item_loss.occurrences_removed,
                100.0 * r.item_loss.fraction_removed
            ),
        ),
        ("item occurrences added", r.item_loss.occurrences_added.to_string()),
        (
            "distinct items removed",
            format!("{} of {}", r.item_loss.distinct_removed, r.item_loss.distinct_original),
        ),
        (
            "record distortion (mean Jaccard distance)",
            r.record_distortion.map_or(
                "n/a (give --key: published records are shuffled, they correspond only through it)"
                    .into(),
                |d| format!("{d:.6}"),
            ),
        ),
    ];
    writeln!(
        out,
        "support {}, confidence {}, max length {}",
        r.support,
        r.confidence,
        r.max_len.map_or("none".into(), |m| m.to_string())
    )?;
    for (name, value) in rows {
        writeln!(out, "{name:<42} {value}")?;
    }
    emit(&out)
}

fn ratio(r: &Ratio) -> String {
    format!("{:.6} ({} of {})", r.ratio, r.matched, r.total)
}

/// `published` reordered so that record `o` is the published record the key maps to original
/// record `o`.
///
/// # Errors
/// A key that does not pair the records one to one.
fn in_original_order(
    published: &txanon_data::TransactionDb,
    key: &[u32],
    records: usize,
) -> std::result::Result<txanon_data::TransactionDb, String> {
    if key.len() != published.len() || key.len() != records {
        return Err(format!(
            "{} key entries for {} published and {records} original records: records do not correspond one to one",
            key.len(),
            published.len()
        ));
    }
    let mut at = vec![usize::MAX; records];
    for (p, &o) in key.iter().enumerate() {
        match at.get_mut(o as usize) {
            Some(slot) if *slot == usize::MAX => *slot = p,
            _ => {
                return Err(format!(
                    "key line {} names record {} twice or beyond the original",
                    p + 1,
                    o + 1
                ));
            }
        }
    }
    Ok(published.select(at))
}
