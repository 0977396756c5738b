//! `txanon`: publish transaction data and microdata without exposing the people in it.
//!
//! This binary only parses arguments and dispatches; each subcommand lives in its own module.
//! Exit codes: 0 success, 2 bad input or parameters (the error on stderr), 3 a publication that
//! failed its audit, 1 an internal failure (a panic included).

mod anatomy;
mod anonymize;
mod band;
mod cahd;
mod coherence;
mod compare;
mod convert;
mod evaluate;
mod exit;
mod generate;
mod input;
mod km;
mod mine;
mod numbers;
mod outcome;
mod progress;
mod publication;
mod slicing;
mod stats;
mod swap;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Publish transaction (set-valued) data and microdata without exposing the people in it.
#[derive(Debug, Parser)]
#[command(name = "txanon", version, about, long_about = None, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print statistics of a transaction file (or, with --schema, of a CSV table).
    Stats(stats::StatsArgs),
    /// Convert a transaction file between FIMI, SPMF and basket CSV (long or wide), plain or gzip.
    Convert(convert::ConvertArgs),
    /// Mine frequent itemsets (all, maximal, closed, or only their counts) or association rules.
    Mine(mine::MineArgs),
    /// Anonymize a file with one of the published methods; the output is verified before it is
    /// written.
    #[command(subcommand)]
    Anonymize(anonymize::AnonymizeCommand),
    /// Verify a published output from the output alone.
    #[command(subcommand)]
    Audit(anonymize::AuditCommand),
    /// Reorder the transactions into a band (reverse Cuthill-McKee): bandwidth and profile
    /// before and after, and a picture with --plot.
    Band(band::BandArgs),
    /// Compare an anonymized file with its original: every utility metric.
    Compare(compare::CompareArgs),
    /// Every method at matched privacy levels on one file: attacked by one adversary, measured
    /// by one utility yardstick, reported in one self-contained HTML page.
    Evaluate(Box<evaluate::EvaluateArgs>),
    /// Generate synthetic data.
    #[command(subcommand)]
    Generate(generate::GenerateCommand),
}

/// The command line, parsed with negative numbers taken as values (`--k -1` reaches the
/// option's checked parser, which names the range) in every subcommand.
fn parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let matches = command().try_get_matches()?;
    Cli::from_arg_matches(&matches)
}

/// The command line as parsed: every subcommand takes negative numbers as values.
fn command() -> clap::Command {
    use clap::CommandFactory;
    fn negative_numbers(command: clap::Command) -> clap::Command {
        command.allow_negative_numbers(true).mut_subcommands(negative_numbers)
    }
    negative_numbers(Cli::command())
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) => {
            // A refused value is one line naming the option, the value and the range.
            if let Some(message) = numbers::refusal(&e) {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
            // clap prints help and version to stdout with success, usage errors with code 2.
            let _ = e.print();
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    exit::guarded(move || match cli.command {
        Command::Stats(args) => stats::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Generate(cmd) => generate::run(cmd),
        Command::Mine(args) => mine::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Evaluate(args) => evaluate::run(*args),
        Command::Band(args) => band::run(args),
        Command::Anonymize(cmd) => anonymize::run(cmd),
        Command::Audit(cmd) => anonymize::run_audit(cmd),
    })
}
