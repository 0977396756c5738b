//! `txanon generate`: synthetic data that needs no download.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};
use txanon_data::{Format, QuestParams};

use crate::input::{output_format, write_output};
use crate::progress::Spinner;

/// Generators.
#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// IBM Quest market-basket data (Agrawal & Srikant, VLDB 1994). The defaults make a
    /// T40I10D100K-like file: `txanon generate quest --out t40.dat`.
    Quest(QuestArgs),
}

/// Arguments of `txanon generate quest`.
#[derive(Debug, Args)]
pub struct QuestArgs {
    /// Number of transactions |D|.
    #[arg(long, default_value_t = 100_000, value_parser = crate::numbers::positive::<usize>())]
    transactions: usize,
    /// Mean transaction length |T|.
    #[arg(long, default_value_t = 40.0, value_parser = crate::numbers::real(0.0, crate::numbers::End::Open, f64::INFINITY, crate::numbers::End::Open))]
    avg_len: f64,
    /// Mean length of the potentially large itemsets |I|.
    #[arg(long, default_value_t = 10.0, value_parser = crate::numbers::real(0.0, crate::numbers::End::Open, f64::INFINITY, crate::numbers::End::Open))]
    pattern_len: f64,
    /// Number of items N.
    #[arg(long, default_value_t = 1000, value_parser = crate::numbers::positive::<u32>())]
    items: u32,
    /// Number of potentially large itemsets |L|.
    #[arg(long, default_value_t = 2000, value_parser = crate::numbers::positive::<usize>())]
    patterns: usize,
    /// Correlation between consecutive patterns.
    #[arg(long, default_value_t = 0.25, value_parser = crate::numbers::real(0.0, crate::numbers::End::Closed, 1.0, crate::numbers::End::Closed))]
    correlation: f64,
    /// Mean pattern confidence (1 − mean corruption level).
    #[arg(long, default_value_t = 0.75, value_parser = crate::numbers::real(0.0, crate::numbers::End::Closed, 1.0, crate::numbers::End::Closed))]
    confidence: f64,
    /// Variance of the pattern confidence.
    #[arg(long, default_value_t = 0.1, value_parser = crate::numbers::real(0.0, crate::numbers::End::Closed, f64::INFINITY, crate::numbers::End::Open))]
    confidence_var: f64,
    /// Seed; the same seed gives the same file. Synthetic data holds no person, so a fixed
    /// default keeps the embedded data reproducible.
    #[arg(long, default_value_t = 0, value_parser = crate::numbers::any::<u64>())]
    seed: u64,
    /// Output file (`.gz` compresses; `-` is stdout).
    #[arg(long, short)]
    out: PathBuf,
    /// Output format, if the name does not say [possible values: fimi, spmf, basket-long, basket-wide, parquet, arrow].
    #[arg(long = "to", value_name = "FORMAT")]
    to: Option<Format>,
}

/// Runs `txanon generate`.
pub fn run(cmd: GenerateCommand) -> Result<()> {
    match cmd {
        GenerateCommand::Quest(a) => {
            let format = output_format(&a.out, a.to)?;
            let params = QuestParams::new(a.transactions, a.avg_len, a.pattern_len, a.items)
                .patterns(a.patterns)
                .correlation(a.correlation)
                .confidence(a.confidence, a.confidence_var)
                .seed(a.seed)
                .check()
                .map_err(txanon_data::DataError::from)?;
            let spinner = Spinner::start("generating Quest data");
            let db = params.generate();
            spinner.set_message(format!("writing {}", a.out.display()));
            write_output(&db, format, &a.out)?;
            drop(spinner);
            let s = db.stats();
            eprintln!(
                "{} transactions, {} items present, average length {:.2} -> {}",
                s.transactions,
                s.items_present,
                s.avg_len,
                a.out.display()
            );
            Ok(())
        }
    }
}
