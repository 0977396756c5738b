//! `txanon convert`: between FIMI, SPMF and basket CSV, keeping the original labels.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use txanon_data::Format;

use crate::input::{InputArgs, output_format, write_output};

/// Arguments of `txanon convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The output file (`.gz` compresses; `-` writes to stdout). It appears only when complete.
    output: PathBuf,
    /// Write this format instead of guessing from the output's name
    /// [possible values: fimi, spmf, basket-long, basket-wide, parquet, arrow].
    #[arg(long = "to", value_name = "FORMAT")]
    to: Option<Format>,
}

/// Runs `txanon convert`.
pub fn run(args: ConvertArgs) -> Result<()> {
    let format = output_format(&args.output, args.to)?;
    let (db, report) = args.input.read()?;
    write_output(&db, format, &args.output)?;
    eprintln!(
        "{} transactions, {} items: {} -> {} ({})",
        db.len(),
        db.num_items(),
        report.format.map_or("?", |f| f.name()),
        format,
        args.output.display()
    );
    Ok(())
}
