//! Experiment `swap`: the swap paper's Figures 3–6 on BMS-WebView-1, BMS-WebView-2 and retail
//! (in place of the paper's unavailable WarpDrive log), 50 random categories as its Section
//! 5.1: frequent itemsets (FP-Growth) at 0.2%–0.5% for the original and every method's output,
//! their similarity U, the dissimilarity Diss, and time; then PartSwap's time against n.

use std::time::Instant;

use anyhow::Result;
use txanon_data::{Categorized, QuestParams, TransactionDb, random_categories};
use txanon_metrics::{dissimilarity, jaccard_itemsets};
use txanon_mining::{Algorithm, FrequentItemsets, MinSupport, MiningParams, frequent_itemsets};
use txanon_swap::{Method, Search, SwapParams, anonymize};

use super::{Context, Figure, FigureKind, Output, ResultTable, Series, Value};

const SUPPORTS: [f64; 4] = [0.002, 0.003, 0.004, 0.005];
/// The paper's four methods, then full swapping alone and both swappings together.
const METHODS: [Method; 6] = [
    Method::PartSwap,
    Method::RandSwap,
    Method::PartSupp,
    Method::SplitPerson,
    Method::FullSwap,
    Method::PartAndFullSwap,
];

fn mine(db: &TransactionDb, support: f64) -> Result<FrequentItemsets> {
    let params = MiningParams::new(MinSupport::Fraction(support)).check()?;
    Ok(frequent_itemsets(db, Algorithm::FpGrowth, &params)?)
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<Output> {
    let mut data: Vec<(String, TransactionDb)> = Vec::new();
    if ctx.quick {
        data.push((
            "quest-T5I2D5K".into(),
            QuestParams::new(5000, 5.0, 2.0, 500).seed(ctx.seed).check()?.generate(),
        ));
    } else {
        for name in ["bms1", "bms2", "retail"] {
            if let Some((_, db)) = ctx.real(name)? {
                data.push((name.into(), db));
            }
        }
    }
    let mut out = Output::default();
    let mut runs = ResultTable::new(
        "swap-runs",
        &[
            "dataset",
            "method",
            "records",
            "records with a tendency",
            "single-category records",
            "pairs",
            "unmatched",
            "occurrences moved",
            "occurrences lost",
            "records published",
            "tendencies exposed",
            "false swaps",
            "Diss",
            "seconds",
        ],
    );
    runs.volatile = vec!["seconds".into()];
    let mut utility = ResultTable::new(
        "swap-utility",
        &["dataset", "support %", "method", "frequent itemsets", "U (Jaccard with the original's)"],
    );
    let mut diss_figure =
        Figure::new("swap-diss", "Diss per method (Fig. 5)", "dataset", "Diss", FigureKind::Bars);
    let mut time_figure = Figure::new(
        "swap-time",
        "Time per method (Fig. 6)",
        "dataset",
        "seconds",
        FigureKind::Bars,
    );
    diss_figure.categories = data.iter().map(|(n, _)| n.clone()).collect();
    time_figure.categories = diss_figure.categories.clone();
    let mut diss_series: Vec<Series> =
        METHODS.iter().map(|m| Series { label: m.name().into(), points: Vec::new() }).collect();
    let mut time_series = diss_series.clone();
    for (d, (name, db)) in data.iter().enumerate() {
        let categories = random_categories(db, 50.min(db.num_items()), ctx.seed)?;
        let originals: Vec<FrequentItemsets> =
            SUPPORTS.iter().map(|&s| mine(db, s)).collect::<Result<_>>()?;
        let mut count_figure = Figure::new(
            &format!("swap-fi-{name}"),
            &format!("{name}: frequent itemsets, original and anonymized (Fig. 3)"),
            "support (%)",
            "frequent itemsets",
            FigureKind::Line { log_x: false, log_y: true },
        );
        let mut u_figure = Figure::new(
            &format!("swap-u-{name}"),
            &format!("{name}: similarity U of the frequent itemsets to the original's (Fig. 4)"),
            "support (%)",
            "U",
            FigureKind::Line { log_x: false, log_y: false },
        );
        count_figure.series.push(Series {
            label: "original".into(),
            points: SUPPORTS
                .iter()
                .zip(&originals)
                .map(|(&s, f)| (100.0 * s, f.len().max(1) as f64))
                .collect(),
        });
        for (s, f) in SUPPORTS.iter().zip(&originals) {
            utility.push(vec![
                name.clone().into(),
                Value::Float(100.0 * s, 1),
                "original".into(),
                f.len().into(),
                Value::Float(1.0, 4),
            ]);
        }
        for (m, &method) in METHODS.iter().enumerate() {
            // The baselines' exposure is what the experiment measures, not a claim: any number
            // of exposed records is allowed.
            let params =
                SwapParams::new(method).seed(Some(ctx.seed)).max_exposed(usize::MAX).check()?;
            let started = Instant::now();
            let swapped = anonymize(Categorized::new(db, &categories)?, &params)?;
            let seconds = started.elapsed().as_secs_f64();
            let diss = dissimilarity(db, &swapped.published);
            let audit = &swapped.audit;
            runs.push(vec![
                name.clone().into(),
                method.name().into(),
                db.len().into(),
                swapped.stats.with_tendency.into(),
                swapped.stats.single_category.into(),
                swapped.stats.pairs.into(),
                swapped.stats.unmatched.into(),
                swapped.stats.items_moved.into(),
                (audit.occurrences_lost as usize).into(),
                swapped.published.len().into(),
                (audit.exposed + audit.exposed_by_design + audit.exposed_unmatched).into(),
                audit.false_swaps.into(),
                Value::Float(diss, 5),
                Value::Float(seconds, 3),
            ]);
            diss_series[m].points.push((d as f64, diss));
            time_series[m].points.push((d as f64, seconds));
            let mut counts = Vec::new();
            let mut us = Vec::new();
            for (&s, original) in SUPPORTS.iter().zip(&originals) {
                let found = mine(&swapped.published, s)?;
                let u = jaccard_itemsets(original, &found);
                utility.push(vec![
                    name.clone().into(),
                    Value::Float(100.0 * s, 1),
                    method.name().into(),
                    found.len().into(),
                    Value::Float(u, 4),
                ]);
                counts.push((100.0 * s, found.len().max(1) as f64));
                us.push((100.0 * s, u));
            }
            count_figure.series.push(Series { label: method.name().into(), points: counts });
            u_figure.series.push(Series { label: method.name().into(), points: us });
        }
        out.figures.push(count_figure);
        out.figures.push(u_figure);
    }
    diss_figure.series = diss_series;
    time_figure.series = time_series;
    out.figures.push(diss_figure);
    out.figures.push(time_figure);

    // Scaling: PartSwap (indexed) against n, on Quest data of BMS-like shape, and retail.
    let mut scaling = ResultTable::new(
        "swap-scaling",
        &["data", "records", "records with a tendency", "pairs", "seconds"],
    );
    scaling.volatile = vec!["seconds".into()];
    let sizes: &[usize] =
        if ctx.quick { &[2000, 10_000] } else { &[100_000, 250_000, 500_000, 1_000_000] };
    let mut scaling_figure = Figure::new(
        "swap-scaling",
        "PartSwap time against n (Quest T5I2, 1,000 items, 50 categories)",
        "records",
        "seconds",
        FigureKind::Line { log_x: false, log_y: false },
    );
    let mut points = Vec::new();
    for &n in sizes {
        let db = QuestParams::new(n, 5.0, 2.0, 1000).seed(ctx.seed).check()?.generate();
        let categories = random_categories(&db, 50, ctx.seed)?;
        let params = SwapParams::new(Method::PartSwap)
            .search(Search::Indexed)
            .seed(Some(ctx.seed))
            .check()?;
        let started = Instant::now();
        let swapped = anonymize(Categorized::new(&db, &categories)?, &params)?;
        let seconds = started.elapsed().as_secs_f64();
        scaling.push(vec![
            format!("Quest T5I2D{}K", n / 1000).into(),
            n.into(),
            swapped.stats.with_tendency.into(),
            swapped.stats.pairs.into(),
            Value::Float(seconds, 3),
        ]);
        points.push((n as f64, seconds));
    }
    scaling_figure.series.push(Series { label: "PartSwap (indexed search)".into(), points });
    if let Some((_, retail)) = data.iter().find(|(n, _)| n == "retail") {
        let categories = random_categories(retail, 50, ctx.seed)?;
        let params = SwapParams::new(Method::PartSwap).seed(Some(ctx.seed)).check()?;
        let started = Instant::now();
        let swapped = anonymize(Categorized::new(retail, &categories)?, &params)?;
        scaling.push(vec![
            "retail".into(),
            retail.len().into(),
            swapped.stats.with_tendency.into(),
            swapped.stats.pairs.into(),
            Value::Float(started.elapsed().as_secs_f64(), 3),
        ]);
    }
    out.figures.push(scaling_figure);
    out.notes.push(
        "Categories: 50, sharing the items at random in equal shares (the paper's Section 5.1), seeded. A record's tendency is its heaviest category when it weighs more than |t| / (categories in t); a record of several items in one category has no such tendency (its weight equals the mean) and only full swapping moves it. Each record takes part in at most one swap; sources are taken in a seeded order independent of the input's, destinations are the least similar (Jaccard) eligible records, ties to the earliest in that order. Eligible: another tendency, and no item of either side already on the other, so PartSwap never loses an occurrence."
            .into(),
    );
    out.notes.push(
        "U is the Jaccard similarity of the frequent-itemset collections (Eq. 2), Diss the dissimilarity of Oliveira and Zaïane, Σ|f_D(i) − f_D̃(i)| / Σ f_D(i) over items. SplitPerson's supports are relative to its own, larger number of records. `tendencies exposed`: original records with a tendency (a category above the mean, the first of equally heavy ones, or several items of one category) that some published record of theirs still shows, by the same definition (the audit's; records left unswapped for want of a partner and those each method leaves by design included); `false swaps`: changed records among them (RandSwap's partner may share the category). Times are in memory, audit included."
            .into(),
    );
    out.parameters = vec![
        ("seed".into(), ctx.seed.to_string()),
        ("categories".into(), "50, random, equal shares".into()),
        ("supports".into(), "0.2%, 0.3%, 0.4%, 0.5%".into()),
    ];
    out.tables.extend([runs, utility, scaling]);
    Ok(out)
}
