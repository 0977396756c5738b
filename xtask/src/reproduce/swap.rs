//! Experiment `swap`: the swap paper's Table 3 and Figures 3–6 on its own data (the first
//! 5,000 records of BMS-WebView-1, 5,000 of BMS-WebView-2 drawn at random, Quest data in the
//! shape of its unpublished WarpDrive log), then on the whole BMS files and retail; 50 random
//! categories as its Section 5.1: frequent itemsets (FP-Growth) at 0.2%–0.5% for the original
//! and every method's output, their similarity U, the dissimilarity Diss, and time; partial
//! swapping of every tied heaviest category beside the paper's; then PartSwap's time against n.

use anyhow::Result;
use serde::Serialize;
use txanon_data::{Categorized, ItemCategories, QuestParams, TransactionDb, random_categories};
use txanon_metrics::{dissimilarity, jaccard_itemsets};
use txanon_mining::{Algorithm, FrequentItemsets, MinSupport, MiningParams, frequent_itemsets};
use txanon_swap::{
    Method, Search, SwapParams, SwapPublication, Ties, anonymize, heaviest_categories,
};

use super::claims::{Claim, PaperValues, by_construction, every, predicate, setting_on};
use super::output::slug;
use super::rows::{col, table, timed, volatile};
use super::{Context, Figure, FigureKind, Output, Series};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

const SUPPORTS: [f64; 4] = [0.002, 0.003, 0.004, 0.005];
/// The paper's four methods, then full swapping alone, both swappings together, and partial
/// swapping that moves every category tied for a record's heaviest.
const METHODS: [MethodSetting; 7] = [
    MethodSetting { method: Method::PartSwap, ties: Ties::First },
    MethodSetting { method: Method::RandSwap, ties: Ties::First },
    MethodSetting { method: Method::PartSupp, ties: Ties::First },
    MethodSetting { method: Method::SplitPerson, ties: Ties::First },
    MethodSetting { method: Method::FullSwap, ties: Ties::First },
    MethodSetting { method: Method::PartAndFullSwap, ties: Ties::First },
    MethodSetting { method: Method::PartSwap, ties: Ties::All },
];

/// One setting of the method study: a method and its tie rule.
#[derive(Debug, Clone, Copy)]
struct MethodSetting {
    method: Method,
    ties: Ties,
}

/// A method's name in the tables: the family's, and the tie rule when it is not the paper's.
fn label(method: Method, ties: Ties) -> &'static str {
    match (method, ties) {
        (Method::PartSwap, Ties::All) => "partswap, all ties",
        (Method::PartSupp, Ties::All) => "partsupp, all ties",
        (Method::RandSwap, Ties::All) => "randswap, all ties",
        (method, _) => method.name(),
    }
}

fn mine(db: &TransactionDb, support: f64) -> Result<FrequentItemsets> {
    let params = MiningParams::new(MinSupport::Fraction(support)).check()?;
    Ok(frequent_itemsets(db, Algorithm::FpGrowth, &params)?)
}

#[derive(Serialize)]
struct RunRow<'a> {
    dataset: &'a str,
    method: &'static str,
    records: usize,
    #[serde(rename = "records with a tendency")]
    with_tendency: usize,
    #[serde(rename = "single-category records")]
    single_category: usize,
    pairs: usize,
    unmatched: usize,
    #[serde(rename = "occurrences moved")]
    moved: usize,
    #[serde(rename = "occurrences lost")]
    lost: u64,
    #[serde(rename = "records published")]
    published: usize,
    #[serde(rename = "tendencies exposed")]
    exposed: usize,
    #[serde(rename = "tied heaviest")]
    tied: usize,
    #[serde(rename = "tied, one still heaviest")]
    tied_kept: usize,
    #[serde(rename = "false swaps")]
    false_swaps: usize,
    #[serde(rename = "Diss")]
    diss: f64,
    seconds: f64,
}

#[derive(Serialize)]
struct UtilityRow<'a> {
    dataset: &'a str,
    #[serde(rename = "support %")]
    support: f64,
    method: &'static str,
    #[serde(rename = "frequent itemsets")]
    itemsets: usize,
    #[serde(rename = "U (Jaccard with the original's)")]
    u: f64,
}

/// PartSwap's bounded searches beside the paper's whole candidate bucket.
const WINDOWS: [Option<usize>; 4] = [None, Some(16), Some(64), Some(1024)];

#[derive(Serialize)]
struct WindowRow<'a> {
    dataset: &'a str,
    search: String,
    pairs: usize,
    unmatched: usize,
    #[serde(rename = "occurrences moved")]
    moved: usize,
    #[serde(rename = "destinations as the paper's")]
    same: usize,
    #[serde(rename = "mean Jaccard of a pair")]
    mean_jaccard: f64,
    #[serde(rename = "Diss")]
    diss: f64,
    #[serde(rename = "U at the lowest support")]
    u: f64,
    seconds: f64,
}

#[derive(Serialize)]
struct ScalingRow {
    data: String,
    records: usize,
    #[serde(rename = "records with a tendency")]
    with_tendency: usize,
    pairs: usize,
    seconds: f64,
}

/// The heaviest categories of `t` (`txanon_swap::heaviest_categories`). Two or more is a tie:
/// the paper's "the category with the highest frequency" is then not one category.
fn heaviest(t: &[u32], categories: &ItemCategories) -> Vec<u32> {
    heaviest_categories(t, categories.categories(), &mut Vec::new())
}

/// Records whose heaviest categories tie, and those of them whose published record (the
/// first published from them) still has one of those categories among its heaviest.
fn ties(
    db: &TransactionDb,
    categories: &ItemCategories,
    swapped: &SwapPublication,
) -> (usize, usize) {
    let mut published_of = vec![None; db.len()];
    for (j, &r) in swapped.key().iter().enumerate() {
        published_of[r as usize].get_or_insert(j);
    }
    let (mut tied, mut kept) = (0, 0);
    for (r, t) in db.iter().enumerate() {
        let before = heaviest(t, categories);
        if before.len() < 2 {
            continue;
        }
        tied += 1;
        let Some(j) = published_of[r] else { continue };
        let after = heaviest(swapped.published.transaction(j), categories);
        if after.iter().any(|c| before.contains(c)) {
            kept += 1;
        }
    }
    (tied, kept)
}

/// A database the experiment runs on: how it was drawn, and the paper's supports for it.
struct Data {
    name: String,
    drawn: &'static str,
    db: TransactionDb,
    /// Where frequent itemsets are mined (none on the WD stand-in, see [`data`]).
    supports: &'static [f64],
}

const BMS1_5K: &str = "bms1, first 5,000";
const BMS2_5K: &str = "bms2, 5,000 at random";
const WD_SHAPE: &str = "Quest in WD's shape";

/// The paper's data (its Table 3): the first 5,000 records of BMS-WebView-1 (its Table 3 figures
/// exactly), 5,000 records of BMS-WebView-2 drawn at random (no contiguous run of the file has
/// its figures; a random draw does, within sampling error), and Quest data in the shape of the
/// WarpDrive log (797 records of 219 items on average, 26,506 distinct items); then the whole
/// BMS files and retail, beyond the paper. `--quick`: a Quest stand-in.
///
/// The paper mines WD at 20%-50%; the Quest stand-in has WD's size and lengths but no item in
/// 20% of its records (its support profile is not published), so no itemsets are mined on it:
/// it stands in for Figures 5 and 6 (Diss, time), not 3 and 4.
fn data(ctx: &Context) -> Result<Vec<Data>> {
    let whole = ctx.transaction_data(&["bms1", "bms2", "retail"], |seed| {
        Ok((
            "quest-T5I2D5K".into(),
            QuestParams::new(5000, 5.0, 2.0, 500).seed(seed).check()?.generate(),
        ))
    })?;
    let mut data = Vec::new();
    for (name, db) in &whole {
        let paper = match name.as_str() {
            "bms1" => Some((BMS1_5K, "the file's first 5,000 records", db.select(0..5000))),
            "bms2" => {
                let mut rows: Vec<usize> = (0..db.len()).collect();
                rows.shuffle(&mut ChaCha8Rng::seed_from_u64(ctx.seed));
                rows.truncate(5000);
                rows.sort_unstable();
                Some((BMS2_5K, "5,000 records drawn at random (seeded)", db.select(rows)))
            }
            _ => None,
        };
        if let Some((name, drawn, db)) = paper {
            data.push(Data { name: name.into(), drawn, db, supports: &SUPPORTS });
        }
    }
    if !ctx.quick {
        data.push(Data {
            name: WD_SHAPE.into(),
            drawn: "Quest |D| = 797, |T| = 219, |I| = 10, N = 40,000, |L| = 20,000",
            db: QuestParams::new(797, 219.0, 10.0, 40_000)
                .patterns(20_000)
                .seed(ctx.seed)
                .check()?
                .generate(),
            supports: &[],
        });
    }
    for (name, db) in whole {
        let drawn = if ctx.quick { "generated" } else { "the whole file (beyond the paper)" };
        data.push(Data { name, drawn, db, supports: &SUPPORTS });
    }
    Ok(data)
}

#[derive(Serialize)]
struct DataRow<'a> {
    dataset: &'a str,
    drawn: &'static str,
    records: usize,
    occurrences: usize,
    items: usize,
    #[serde(rename = "average length")]
    avg_len: f64,
}

/// Runs the experiment: every method on the paper's data (Figures 3-6), the bounded search
/// beside the paper's, and PartSwap against n.
pub fn run(ctx: &Context) -> Result<Output> {
    let data = data(ctx)?;
    let mut out =
        Output { data: data.iter().map(|d| d.name.clone()).collect(), ..Output::default() };
    let data_rows = data_rows(&data);
    let MethodStudy { runs, utility, windows } = method_study(ctx, &data, &mut out)?;
    let scaling = scaling_study(ctx, &data, &mut out)?;
    out.tables = vec![
        table("swap-data", &data_rows, &[col("average length", 2)]),
        table("swap-runs", &runs, &[col("Diss", 5), volatile("seconds", 3)]),
        table("swap-utility", &utility, &[col("support %", 1)]),
        table("swap-scaling", &scaling, &[volatile("seconds", 3)]),
        table(
            "swap-window",
            &windows,
            &[col("mean Jaccard of a pair", 5), col("Diss", 5), volatile("seconds", 3)],
        ),
    ];
    out.claims = claims(&out, &runs, &utility)?;
    describe(&mut out, &runs, &utility);
    out.parameters = vec![
        ("seed".into(), ctx.seed.to_string()),
        ("categories".into(), "50, random, equal shares".into()),
        ("supports".into(), "0.2%, 0.3%, 0.4%, 0.5%; 20%-50% on WD's shape (the paper's)".into()),
    ];
    Ok(out)
}

/// The data as the experiment used it.
fn data_rows(data: &[Data]) -> Vec<DataRow<'_>> {
    data.iter()
        .map(|d| {
            let s = d.db.stats();
            DataRow {
                dataset: &d.name,
                drawn: d.drawn,
                records: s.transactions,
                occurrences: d.db.occurrences(),
                items: s.items_present,
                avg_len: s.avg_len,
            }
        })
        .collect()
}

/// What the method study measured.
struct MethodStudy<'a> {
    runs: Vec<RunRow<'a>>,
    utility: Vec<UtilityRow<'a>>,
    windows: Vec<WindowRow<'a>>,
}

/// Every method on every dataset (Figures 3-6): the run's figures, the frequent itemsets and
/// their similarity U at each support, and the bounded search beside the paper's.
///
/// Long as one function: one run of a method feeds five figures and two tables; apart, each would
/// run the method again or take the accumulators.
fn method_study<'a>(ctx: &Context, data: &'a [Data], out: &mut Output) -> Result<MethodStudy<'a>> {
    let mut runs = Vec::new();
    let mut utility = Vec::new();
    let mut windows = Vec::new();
    let mut diss_figure =
        Figure::new("swap-diss", "Diss per method (Fig. 5)", "dataset", "Diss", FigureKind::Bars);
    let mut time_figure = Figure::new(
        "swap-time",
        "Time per method (Fig. 6)",
        "dataset",
        "seconds",
        FigureKind::Bars,
    );
    diss_figure.categories = data.iter().map(|d| d.name.clone()).collect();
    time_figure.categories = diss_figure.categories.clone();
    let mut diss_series: Vec<Series> = METHODS
        .iter()
        .map(|r| Series { label: label(r.method, r.ties).into(), points: Vec::new() })
        .collect();
    let mut time_series = diss_series.clone();
    for (d, Data { name, db, supports, .. }) in data.iter().enumerate() {
        let categories = random_categories(db, 50.min(db.num_items()), ctx.seed)?;
        let originals: Vec<FrequentItemsets> =
            supports.iter().map(|&s| mine(db, s)).collect::<Result<_>>()?;
        let mut count_figure = Figure::new(
            &format!("swap-fi-{}", slug(name)),
            &format!("{name}: frequent itemsets, original and anonymized (Fig. 3)"),
            "support (%)",
            "frequent itemsets",
            FigureKind::Line { log_x: false, log_y: true },
        );
        let mut u_figure = Figure::new(
            &format!("swap-u-{}", slug(name)),
            &format!("{name}: similarity U of the frequent itemsets to the original's (Fig. 4)"),
            "support (%)",
            "U",
            FigureKind::Line { log_x: false, log_y: false },
        );
        count_figure.series.push(Series {
            label: "original".into(),
            points: supports
                .iter()
                .zip(&originals)
                .map(|(&s, f)| (100.0 * s, f.len().max(1) as f64))
                .collect(),
        });
        for (s, f) in supports.iter().zip(&originals) {
            utility.push(UtilityRow {
                dataset: name,
                support: 100.0 * s,
                method: "original",
                itemsets: f.len(),
                u: 1.0,
            });
        }
        for (m, &MethodSetting { method, ties: tie_rule }) in METHODS.iter().enumerate() {
            // The baselines' exposure is what the experiment measures, not a claim: any number
            // of exposed records is allowed.
            let params = SwapParams::new(method)
                .seed(Some(ctx.seed))
                .max_exposed(usize::MAX)
                .ties(tie_rule)
                .check()?;
            let (swapped, seconds) =
                timed(|| anonymize(Categorized::new(db, &categories)?, &params));
            let swapped = swapped?;
            let diss = dissimilarity(db, &swapped.published);
            let audit = &swapped.audit;
            let (tied, tied_kept) = ties(db, &categories, &swapped);
            runs.push(RunRow {
                dataset: name,
                method: label(method, tie_rule),
                records: db.len(),
                with_tendency: swapped.stats.with_tendency,
                single_category: swapped.stats.single_category,
                pairs: swapped.stats.pairs,
                unmatched: swapped.stats.unmatched,
                moved: swapped.stats.items_moved,
                lost: audit.occurrences_lost,
                published: swapped.published.len(),
                exposed: audit.exposed + audit.exposed_by_design + audit.exposed_unmatched,
                tied,
                tied_kept,
                false_swaps: audit.false_swaps,
                diss,
                seconds,
            });
            diss_series[m].points.push((d as f64, diss));
            time_series[m].points.push((d as f64, seconds));
            let mut counts = Vec::new();
            let mut us = Vec::new();
            for (&s, original) in supports.iter().zip(&originals) {
                let found = mine(&swapped.published, s)?;
                let u = jaccard_itemsets(original, &found);
                utility.push(UtilityRow {
                    dataset: name,
                    support: 100.0 * s,
                    method: label(method, tie_rule),
                    itemsets: found.len(),
                    u,
                });
                counts.push((100.0 * s, found.len().max(1) as f64));
                us.push((100.0 * s, u));
            }
            count_figure
                .series
                .push(Series { label: label(method, tie_rule).into(), points: counts });
            u_figure.series.push(Series { label: label(method, tie_rule).into(), points: us });
        }
        if let (Some(&lowest), Some(original)) = (supports.first(), originals.first()) {
            windows.extend(window_rows(name, db, &categories, ctx.seed, lowest, original)?);
        }
        if !supports.is_empty() {
            out.figures.push(count_figure);
            out.figures.push(u_figure);
        }
    }
    diss_figure.series = diss_series;
    time_figure.series = time_series;
    out.figures.push(diss_figure);
    out.figures.push(time_figure);
    Ok(MethodStudy { runs, utility, windows })
}

/// PartSwap (indexed) against n, on Quest data of BMS-like shape, and retail.
fn scaling_study(ctx: &Context, data: &[Data], out: &mut Output) -> Result<Vec<ScalingRow>> {
    let mut scaling = Vec::new();
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
        let (swapped, seconds) = timed(|| anonymize(Categorized::new(&db, &categories)?, &params));
        let swapped = swapped?;
        scaling.push(ScalingRow {
            data: format!("Quest T5I2D{}K", n / 1000),
            records: n,
            with_tendency: swapped.stats.with_tendency,
            pairs: swapped.stats.pairs,
            seconds,
        });
        points.push((n as f64, seconds));
    }
    scaling_figure.series.push(Series { label: "PartSwap (indexed search)".into(), points });
    if let Some(Data { db: retail, .. }) = data.iter().find(|d| d.name == "retail") {
        let categories = random_categories(retail, 50, ctx.seed)?;
        let params = SwapParams::new(Method::PartSwap).seed(Some(ctx.seed)).check()?;
        let (swapped, seconds) =
            timed(|| anonymize(Categorized::new(retail, &categories)?, &params));
        let swapped = swapped?;
        scaling.push(ScalingRow {
            data: "retail".into(),
            records: retail.len(),
            with_tendency: swapped.stats.with_tendency,
            pairs: swapped.stats.pairs,
            seconds,
        });
    }
    out.figures.push(scaling_figure);
    Ok(scaling)
}

/// The experiment's notes: the categories and eligibility, the measures, ties and windows.
fn describe(out: &mut Output, runs: &[RunRow<'_>], utility: &[UtilityRow<'_>]) {
    out.notes.push(
        "Categories: 50, sharing the items at random in equal shares (the paper's Section 5.1), seeded. A record's tendency is its heaviest category when it weighs more than |t| / (categories in t); a record of several items in one category has no such tendency (its weight equals the mean) and only full swapping moves it. Each record takes part in at most one swap; sources are taken in a seeded order independent of the input's, destinations are the least similar (Jaccard) eligible records, ties to the earliest in that order. Eligible: another tendency, and no item of either side already on the other, so PartSwap never loses an occurrence."
            .into(),
    );
    out.notes.push(
        "U is the Jaccard similarity of the frequent-itemset collections (Eq. 2), Diss the dissimilarity of Oliveira and Zaïane, Σ|f_D(i) − f_D̃(i)| / Σ f_D(i) over items. SplitPerson's supports are relative to its own, larger number of records. `tendencies exposed`: original records with a tendency (a category above the mean, the first of equally heavy ones, or several items of one category) that some published record of theirs still shows, by the same definition (the audit's; records left unswapped for want of a partner and those each method leaves by design included); `false swaps`: changed records among them (RandSwap's partner may share the category). Times are in memory, audit included."
            .into(),
    );
    out.notes.push(tie_note(runs, utility));
    out.notes.push(
        "swap-window: PartSwap with `--window W` (the least similar eligible record among the next W records of another tendency in the processing order) beside the paper's whole candidate bucket, same seed and categories. `destinations as the paper's`: sources whose destination is the one the paper's search gives them. The window is what keeps PartSwap linear on skewed data (docs/SCALE.md); this table is what it changes in the publication."
            .into(),
    );
}

/// PartSwap on `db` with each of [`WINDOWS`]: what the bounded search changes against the
/// paper's (first row), with U at `support` against the original's itemsets `original`.
fn window_rows<'a>(
    name: &'a str,
    db: &TransactionDb,
    categories: &ItemCategories,
    seed: u64,
    support: f64,
    original: &FrequentItemsets,
) -> Result<Vec<WindowRow<'a>>> {
    let mut rows = Vec::new();
    let mut paper: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for window in WINDOWS {
        let search =
            window.and_then(std::num::NonZeroUsize::new).map_or(Search::Indexed, Search::Window);
        let params = SwapParams::new(Method::PartSwap)
            .search(search)
            .seed(Some(seed))
            .max_exposed(usize::MAX)
            .check()?;
        let (swapped, seconds) = timed(|| anonymize(Categorized::new(db, categories)?, &params));
        let swapped = swapped?;
        if window.is_none() {
            paper = swapped.pairs.iter().copied().collect();
        }
        let same = swapped.pairs.iter().filter(|(t, c)| paper.get(t) == Some(c)).count();
        let jaccard: f64 = swapped
            .pairs
            .iter()
            .map(|&(t, c)| {
                let (a, b) = (db.transaction(t as usize), db.transaction(c as usize));
                let shared = txanon_data::sets::intersection_len(a, b);
                shared as f64 / (a.len() + b.len() - shared).max(1) as f64
            })
            .sum();
        rows.push(WindowRow {
            dataset: name,
            search: window.map_or("the paper's (whole bucket)".into(), |w| format!("window {w}")),
            pairs: swapped.stats.pairs,
            unmatched: swapped.stats.unmatched,
            moved: swapped.stats.items_moved,
            same,
            mean_jaccard: jaccard / swapped.pairs.len().max(1) as f64,
            diss: dissimilarity(db, &swapped.published),
            u: jaccard_itemsets(original, &mine(&swapped.published, support)?),
            seconds,
        });
    }
    Ok(rows)
}

/// What moving every tied heaviest category costs and buys, per dataset, from the rows.
fn tie_note(runs: &[RunRow<'_>], utility: &[UtilityRow<'_>]) -> String {
    let all_ties = label(Method::PartSwap, Ties::All);
    let mut per_data = Vec::new();
    for first in runs.iter().filter(|r| r.method == Method::PartSwap.name()) {
        let Some(all) = runs.iter().find(|r| r.dataset == first.dataset && r.method == all_ties)
        else {
            continue;
        };
        let mean_u = |method: &str| {
            let us: Vec<f64> = utility
                .iter()
                .filter(|u| u.dataset == first.dataset && u.method == method)
                .map(|u| u.u)
                .collect();
            (!us.is_empty()).then(|| us.iter().sum::<f64>() / us.len() as f64)
        };
        let u = match (mean_u(Method::PartSwap.name()), mean_u(all_ties)) {
            (Some(a), Some(b)) => format!(", mean U {a:.3} → {b:.3}"),
            _ => String::new(),
        };
        per_data.push(format!(
            "{}: {} of {} tied records still show a tied category → {}; occurrences moved {} → {}; Diss {:.5} → {:.5}{u}",
            first.dataset, first.tied_kept, first.tied, all.tied_kept, first.moved, all.moved, first.diss, all.diss
        ));
    }
    format!(
        "`tied heaviest`: records whose heaviest categories tie (two or more, above the mean). The paper's Algorithm 1 swaps \"the category with the highest item frequency\", one category, so after PartSwap such a record still shows another of its tied categories as heaviest (`tied, one still heaviest`). `partswap, all ties` (`--ties all`) moves every tied category, and its audit requires that no published record show any of them: {}.",
        per_data.join("; ")
    )
}

/// Table 3 and Figures 3-6 of the swap paper, over the paper's data (Table 3's figures from
/// `xtask/paper/swap.csv`, the figures as predicates over our tables).
///
/// Long as one function: each claim is a few lines reading the tables as the paper states it, in
/// the paper's order; apart, they would be a dozen functions of one use each.
fn claims(out: &Output, runs: &[RunRow<'_>], utility: &[UtilityRow<'_>]) -> Result<Vec<Claim>> {
    let paper = PaperValues::of("swap")?;
    let mut claims = vec![
        paper.claim(
            "swap-bms1",
            "Our BMS1 has Table 3's records, occurrences and items",
            "BMS-WebView-1's first 5,000 records: our draw, the paper does not say how it drew them",
            &out.tables,
        ),
        paper.claim(
            "swap-bms2",
            "Our BMS2 has Table 3's records, occurrences and items",
            "5,000 records of BMS-WebView-2 drawn at random: our draw, the paper does not say how it drew them",
            &out.tables,
        ),
        paper.claim(
            "swap-wd",
            "Our Quest stand-in has the WarpDrive log's records, occurrences and items (Table 3)",
            "Quest data generated to the log's shape; the log is not public",
            &out.tables,
        ),
    ];
    let paper_data = [BMS1_5K, BMS2_5K, WD_SHAPE];
    let real = paper_data.iter().any(|d| out.used(d));
    let paper_four = [
        Method::PartSwap.name(),
        Method::RandSwap.name(),
        Method::PartSupp.name(),
        Method::SplitPerson.name(),
    ];
    let run = |d: &str, m: &str| runs.iter().find(|r| r.dataset == d && r.method == m);
    let datasets: Vec<&str> =
        out.data.iter().map(String::as_str).filter(|d| paper_data.contains(d)).collect();
    let mut fewer = (0, 0);
    let mut highest_u = (0, 0);
    for u in utility.iter().filter(|u| u.method == "original" && datasets.contains(&u.dataset)) {
        let at = |m: &str| {
            utility
                .iter()
                .find(|x| x.dataset == u.dataset && x.support == u.support && x.method == m)
        };
        for m in paper_four {
            if let Some(x) = at(m) {
                fewer.1 += 1;
                fewer.0 += usize::from(x.itemsets < u.itemsets);
            }
        }
        if let Some(ps) = at(Method::PartSwap.name()) {
            highest_u.1 += 1;
            highest_u.0 +=
                usize::from(paper_four.iter().all(|m| at(m).is_none_or(|x| x.u <= ps.u)));
        }
    }
    let count = |f: &dyn Fn(&str) -> Option<bool>| -> (usize, usize) {
        datasets.iter().filter_map(|d| f(d)).fold((0, 0), |(w, t), ok| (w + usize::from(ok), t + 1))
    };
    let diss_lower = count(&|d| {
        Some(
            run(d, Method::PartSwap.name())?.diss
                < run(d, Method::RandSwap.name())?.diss.min(run(d, Method::PartSupp.name())?.diss),
        )
    });
    let supp_highest = count(&|d| {
        let s = run(d, Method::PartSupp.name())?.diss;
        Some(paper_four.iter().all(|m| run(d, m).is_none_or(|r| r.diss <= s)))
    });
    let split_zero = count(&|d| Some(run(d, Method::SplitPerson.name())?.diss == 0.0));
    let split_fastest = count(&|d| {
        let s = run(d, Method::SplitPerson.name())?.seconds;
        Some(paper_four.iter().all(|m| run(d, m).is_none_or(|r| r.seconds >= s)))
    });
    let part_before_rand = count(&|d| {
        Some(run(d, Method::PartSwap.name())?.seconds < run(d, Method::RandSwap.name())?.seconds)
    });
    let tied: (usize, usize) = datasets
        .iter()
        .filter_map(|d| run(d, Method::PartSwap.name()))
        .fold((0, 0), |(k, t), r| (k + r.tied_kept, t + r.tied));
    // PartSwap against PartSupp and SplitPerson: more frequent itemsets at each support.
    let mut more_fi = (0, 0);
    let mut fi_ratio = Vec::new();
    for ps in utility
        .iter()
        .filter(|u| u.method == Method::PartSwap.name() && datasets.contains(&u.dataset))
    {
        for m in [Method::PartSupp.name(), Method::SplitPerson.name()] {
            if let Some(x) = utility
                .iter()
                .find(|x| x.dataset == ps.dataset && x.support == ps.support && x.method == m)
            {
                more_fi.1 += 1;
                more_fi.0 += usize::from(ps.itemsets > x.itemsets);
                fi_ratio.push(ps.itemsets as f64 / x.itemsets.max(1) as f64);
            }
        }
    }
    fi_ratio.sort_by(f64::total_cmp);
    let every_item = count(&|d| {
        let r = run(d, Method::PartSwap.name())?;
        Some(r.lost == 0 && r.published == r.records)
    });
    let setting = setting_on(
        real,
        "BMS1, BMS2 (5,000 records each) and the Quest stand-in of the WarpDrive log, supports of Fig. 3",
    );
    let of = |(w, t): (usize, usize)| format!("{w} of {t}");
    claims.extend([
        Claim::new(
            "swap-every-item",
            "PartSwap loses no item occurrence and no record",
            setting("occurrences lost and records published per dataset"),
            "every single item preserved",
            format!("no loss on {} datasets", of(every_item)),
            every(every_item, "no occurrence lost, every record published"),
        ),
        Claim::new(
            "swap-fewer",
            "Every method finds fewer frequent itemsets than the original",
            setting("PartSwap, RandSwap, PartSupp, SplitPerson"),
            "fewer, every method and support",
            format!("fewer in {} (method, dataset, support)", of(fewer)),
            every(fewer, "fewer frequent itemsets than the original"),
        ),
        Claim::new(
            "swap-more-fi",
            "PartSwap finds more frequent itemsets than PartSupp and SplitPerson",
            setting("each (dataset, support, baseline)"),
            "considerably higher (no figure given)",
            format!(
                "more in {} (dataset, support, baseline); PartSwap/baseline from {} to {}",
                of(more_fi),
                fi_ratio.first().map_or("—".into(), |r| format!("{r:.2}")),
                fi_ratio.last().map_or("—".into(), |r| format!("{r:.2}"))
            ),
            every(more_fi, "more frequent itemsets (the margin is shown, not tested)"),
        ),
        Claim::new(
            "swap-similar",
            "PartSwap's itemsets are the most similar to the original's",
            setting("U, the Jaccard similarity of the frequent itemsets"),
            "highest U at every support",
            format!("highest U in {} (dataset, support)", of(highest_u)),
            every(highest_u, "PartSwap's U at least every other method's"),
        ),
        Claim::new(
            "swap-diss-lower",
            "PartSwap's Diss is below RandSwap's and PartSupp's",
            setting("Diss per dataset"),
            "lower on every dataset",
            format!("lower on {} datasets", of(diss_lower)),
            every(diss_lower, "PartSwap's Diss strictly below both"),
        ),
        Claim::new(
            "swap-supp-highest",
            "PartSupp has the highest Diss",
            setting("Diss per dataset"),
            "highest on every dataset",
            format!("highest on {} datasets", of(supp_highest)),
            every(supp_highest, "PartSupp's Diss at least every other method's"),
        ),
        Claim::new(
            "swap-split-zero",
            "SplitPerson's Diss is zero",
            setting("Diss per dataset"),
            "always zero",
            format!("zero on {} datasets", of(split_zero)),
            if split_zero.1 == 0 {
                predicate(None, "")
            } else {
                by_construction("splitting moves and removes no item, so Diss is zero by its definition")
            },
        ),
        Claim::new(
            "swap-split-fastest",
            "SplitPerson is the fastest method",
            setting("each method's time; times vary run to run"),
            "lowest time",
            format!("fastest on {} datasets", of(split_fastest)),
            every(split_fastest, "SplitPerson's time at most every other method's"),
        ),
        Claim::new(
            "swap-faster",
            "PartSwap is faster than RandSwap, the existing swapping technique",
            setting("each method's time; times vary run to run"),
            "considerably lower time (no figure given)",
            format!("faster on {} datasets", of(part_before_rand)),
            every(part_before_rand, "PartSwap faster than RandSwap (the margin is not tested)"),
        ),
        Claim::new(
            "swap-tendency",
            "PartSwap hides the personal tendency of every swapped record",
            setting("records whose heaviest categories tie"),
            "hidden",
            format!(
                "{} of {} records with tied heaviest categories still show one after PartSwap",
                tied.0, tied.1
            ),
            predicate((tied.1 > 0).then_some(tied.0 == 0), "no record with tied heaviest categories still shows one (not run without such records)"),
        ),
    ]);
    for c in &mut claims[3..] {
        c.stand_in = !real;
    }
    Ok(claims)
}
