//! `txanon stats`: the figures of a transaction file or a CSV table.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use serde::Serialize;
use txanon_data::{Column, DbStats, ReadReport, Schema, Table};

use crate::input::InputArgs;

/// Arguments of `txanon stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Read the input as a relational CSV table with this JSON schema (see datasets/adult.schema.json).
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// How many of the most frequent items to list.
    #[arg(long, default_value_t = 10)]
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
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let s = &report.stats;
    println!("file            {}", report.file);
    println!(
        "format          {}{}",
        report.read.format.map_or("?", |f| f.name()),
        if report.read.gzip { " (gzip)" } else { "" }
    );
    println!("transactions    {}", s.transactions);
    println!("  empty         {}", s.empty_transactions);
    println!("items           {}", s.items);
    println!("  present       {}", s.items_present);
    println!("occurrences     {}", s.occurrences);
    println!("avg length      {:.3}", s.avg_len);
    println!("max length      {}", s.max_len);
    println!("density         {:.6}", s.density);
    if report.read.duplicates_dropped > 0 {
        println!("duplicates      {} repeated items dropped", report.read.duplicates_dropped);
    }
    println!("support histogram (items per support range):");
    for (k, &count) in report.support_histogram.iter().enumerate() {
        let lo = 1u64 << k;
        let hi = (1u64 << (k + 1)) - 1;
        println!("  {lo:>8}..{hi:<8} {count}");
    }
    println!("top items:");
    for t in &report.top_items {
        println!("  {:<16} {:>9}  {:6.2}%", t.label, t.support, 100.0 * t.fraction);
    }
    Ok(())
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
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!("file            {}", args.input.input.display());
    println!("rows            {}", table.len());
    println!(
        "dropped rows    {} (missing values, policy {:?})",
        table.dropped_rows(),
        schema.missing_policy
    );
    println!("attributes:");
    for a in &attrs {
        println!("  {:<16} {:<12} {:<16} {} distinct", a.name, a.kind, a.role, a.distinct);
    }
    Ok(())
}
