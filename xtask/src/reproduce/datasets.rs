//! Experiment `datasets`: the statistics of every dataset found, beside the manifest's figures and
//! the papers' tables.

use anyhow::Result;
use txanon_data::{Schema, Table, TransactionDb, datasets::DATASETS};

use super::{Context, Figure, FigureKind, Output, ResultTable, Series, Value};

/// Relative support of the items by rank (most frequent first), thinned to at most ~200 points.
pub fn rank_support_curve(db: &TransactionDb) -> Vec<(f64, f64)> {
    let mut s: Vec<u32> = db.supports().iter().copied().filter(|&s| s > 0).collect();
    s.sort_unstable_by(|a, b| b.cmp(a));
    let n = db.len().max(1) as f64;
    let mut points = Vec::new();
    let mut next = 1.0f64;
    for (rank, &sup) in s.iter().enumerate() {
        let r = (rank + 1) as f64;
        if r >= next || rank + 1 == s.len() {
            points.push((r, f64::from(sup) / n));
            next = (next * 1.04).max(r + 1.0);
        }
    }
    points
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-12)
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<Output> {
    let mut table = ResultTable::new(
        "datasets",
        &[
            "dataset",
            "kind",
            "transactions",
            "items",
            "avg_len",
            "max_len",
            "density",
            "manifest_transactions",
            "manifest_items",
            "manifest_avg_len",
            "manifest_match",
            "paper",
            "paper_transactions",
            "paper_avg_len",
            "paper_items",
        ],
    );
    let mut figure = Figure {
        name: "datasets-item-supports".into(),
        title: "Item support by rank".into(),
        x_label: "item rank".into(),
        y_label: "fraction of transactions".into(),
        kind: FigureKind::Line { log_x: true, log_y: true },
        categories: Vec::new(),
        series: Vec::new(),
    };
    // Bars: measured average length beside the paper's, for every dataset a paper reports.
    let mut lengths = Figure {
        name: "datasets-avg-length".into(),
        title: "Average transaction length: measured vs paper".into(),
        x_label: "dataset".into(),
        y_label: "average length".into(),
        kind: FigureKind::Bars,
        categories: Vec::new(),
        series: vec![
            Series { label: "measured".into(), points: Vec::new() },
            Series { label: "paper".into(), points: Vec::new() },
        ],
    };
    let mut out = Output::default();
    type Info = txanon_data::datasets::DatasetInfo;
    type Paper = txanon_data::datasets::PaperFigures;
    let mut row =
        |name: &str, kind: &str, db: &TransactionDb, info: Option<&Info>, paper: Option<Paper>| {
            let s = db.stats();
            let matches = info.map(|i| {
                let ok = s.transactions == i.transactions
                    && s.items_present == i.items
                    && close(s.avg_len, i.avg_len, 5e-4)
                    && s.max_len == i.max_len;
                if ok { "yes" } else { "NO" }
            });
            table.push(vec![
                name.into(),
                kind.into(),
                s.transactions.into(),
                s.items_present.into(),
                Value::Float(s.avg_len, 3),
                s.max_len.into(),
                Value::Float(s.density, 5),
                info.map(|i| i.transactions).into(),
                info.map(|i| i.items).into(),
                info.map_or(Value::Empty, |i| Value::Float(i.avg_len, 3)),
                matches.into(),
                paper.map(|p| p.source).into(),
                paper.map(|p| p.transactions).into(),
                paper.map_or(Value::Empty, |p| Value::Float(p.avg_len, 1)),
                paper.map(|p| p.items).into(),
            ]);
            figure.series.push(Series { label: name.into(), points: rank_support_curve(db) });
            if let Some(p) = paper {
                let x = lengths.categories.len() as f64;
                lengths.categories.push(name.into());
                lengths.series[0].points.push((x, s.avg_len));
                lengths.series[1].points.push((x, p.avg_len));
            }
        };

    for info in DATASETS.iter().filter(|d| d.file.ends_with(".dat")) {
        if let Some((_, db)) = ctx.real(info.name)? {
            row(info.name, "real", &db, Some(info), info.paper);
        }
    }
    let t40_paper = txanon_data::datasets::dataset("t40-sample").and_then(|d| d.paper);
    row("quest-T40I10D100K", "generated", ctx.quest_t40(), None, t40_paper);

    for (name, db) in ctx.examples()? {
        row(&name, "example", &db, None, None);
    }

    if !ctx.quick {
        let schema_path = crate::project_root().join("datasets/adult.schema.json");
        let schema = Schema::from_path(&schema_path)?;
        let mut adult = ResultTable::new(
            "datasets-adult",
            &["file", "data_rows", "kept", "dropped_missing", "manifest_rows"],
        );
        for name in ["adult", "adult-test"] {
            if let Some(path) = txanon_data::datasets::locate_verified(name)? {
                let t = Table::read(&path, &schema)?;
                let info = txanon_data::datasets::dataset(name).expect("in manifest");
                adult.push(vec![
                    info.file.into(),
                    (t.len() + t.dropped_rows()).into(),
                    t.len().into(),
                    t.dropped_rows().into(),
                    info.transactions.into(),
                ]);
            }
        }
        if !adult.rows.is_empty() {
            out.tables.push(adult);
            out.notes.push(
                "Adult rows with a missing value (`?`) are dropped, as the slicing paper does: 30,162 of adult.data and 15,060 of adult.test remain (45,222 in all).".into(),
            );
        }
    }
    out.note_if(
        !ctx.quick,
        "T40I10D100K is available here only as its first 10,000 transactions; the full-size stand-in is Quest data with T = 40, I = 10, N = 1000, |D| = 100,000, |L| = 2000.",
    );
    out.notes.push("manifest_match compares n, items present, average length (to 0.05%) and maximum length with ../shared/datasets/MANIFEST.md.".into());
    out.parameters.push(("quest seed".into(), ctx.seed.to_string()));
    out.tables.insert(0, table);
    out.figures.push(figure);
    out.figures.push(lengths);
    Ok(out)
}
