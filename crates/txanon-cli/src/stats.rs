//! `txanon stats`: the figures of a transaction file or a CSV table.

use std::path::PathBuf;

use std::fmt::Write as _;

use anyhow::Result;
use clap::Args;
use serde::Serialize;
use txanon_data::{Column, DbStats, ReadReport, Schema, Table};

use crate::input::{InputArgs, emit};

/// Arguments of `txanon stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Read the input as a relational CSV table with this JSON schema (see datasets/adult.schema.json).
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// How many of the most frequent items to list.
    #[arg(long, default_value_t = 10, value_parser = crate::numbers::any::<usize>())]
    top: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct TopItem {
    label: String,
    support: u32,
    fraction: f64,
}

#[derive(Debug, Serialize)]
struct StatsReport {
    file: String,
    #[serde(flatten)]
    stats: DbStats,
    read: ReadReport,
    /// Entry k counts items with support in [2^k, 2^(k+1)).
    support_histogram: Vec<usize>,
    top_items: Vec<TopItem>,
}

/// Runs `txanon stats`.
pub fn run(args: StatsArgs) -> Result<()> {
    if let Some(schema) = &args.schema {
        return table_stats(&args, schema);
    }
    let (db, read) = args.input.read()?;
    let mut out = String::new();
    let stats = db.stats();
    let n = stats.transactions.max(1) as f64;
    let report = StatsReport {
        file: args.input.input.display().to_string(),
        support_histogram: db.support_histogram(),
        top_items: db
            .top_items(args.top)
            .into_iter()
            .map(|(i, s)| TopItem {
                label: db.label(i).to_string(),
                support: s,
                fraction: f64::from(s) / n,
            })
            .collect(),
        stats,
        read,
    };
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
        return emit(&out);
    }
    let s = &report.stats;
    writeln!(out, "file            {}", report.file)?;
    writeln!(
        out,
        "format          {}{}",
        report.read.format.map_or("?", |f| f.name()),
        if report.read.gzip { " (gzip)" } else { "" }
    )?;
    writeln!(out, "transactions    {}", s.transactions)?;
    writeln!(out, "  empty         {}", s.empty_transactions)?;
    writeln!(out, "items           {}", s.items)?;
    writeln!(out, "  present       {}", s.items_present)?;
    writeln!(out, "occurrences     {}", s.occurrences)?;
    writeln!(out, "avg length      {:.3}", s.avg_len)?;
    writeln!(out, "max length      {}", s.max_len)?;
    writeln!(out, "density         {:.6}", s.density)?;
    if report.read.duplicates_dropped > 0 {
        writeln!(out, "duplicates      {} repeated items dropped", report.read.duplicates_dropped)?;
    }
    writeln!(out, "support histogram (items per support range):")?;
    for (k, &count) in report.support_histogram.iter().enumerate() {
        let lo = 1u64 << k;
        let hi = (1u64 << (k + 1)) - 1;
        writeln!(out, "  {lo:>8}..{hi:<8} {count}")?;
    }
    writeln!(out, "top items:")?;
    for t in &report.top_items {
        writeln!(out, "  {:<16} {:>9}  {:6.2}%", t.label, t.support, 100.0 * t.fraction)?;
    }
    emit(&out)
}

#[derive(Debug, Serialize)]
struct AttributeStats {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    role: String,
    distinct: usize,
}

fn table_stats(args: &StatsArgs, schema_path: &std::path::Path) -> Result<()> {
    let schema = Schema::from_path(schema_path)?;
    let table = Table::read(&args.input.input, &schema)?;
    let mut out = String::new();
    let attrs: Vec<AttributeStats> = schema
        .attributes
        .iter()
        .zip(table.columns())
        .map(|(a, c)| AttributeStats {
            name: a.name.clone(),
            kind: match c {
                Column::Categorical { .. } => "categorical".into(),
                Column::Numeric(_) => "numeric".into(),
            },
            role: format!("{:?}", a.role),
            distinct: c.distinct(),
        })
        .collect();
    if args.json {
        let v = serde_json::json!({
            "file": args.input.input.display().to_string(),
            "rows": table.len(),
            "dropped_rows": table.dropped_rows(),
            "attributes": attrs,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return emit(&out);
    }
    writeln!(out, "file            {}", args.input.input.display())?;
    writeln!(out, "rows            {}", table.len())?;
    writeln!(
        out,
        "dropped rows    {} (missing values, policy {:?})",
        table.dropped_rows(),
        schema.missing_policy
    )?;
    writeln!(out, "attributes:")?;
    for a in &attrs {
        writeln!(out, "  {:<16} {:<12} {:<16} {} distinct", a.name, a.kind, a.role, a.distinct)?;
    }
    emit(&out)
}
