//! Experiment `mining`: itemset and rule counts and mining times on every dataset, our engine
//! beside Borgelt's pyfim (when `python3 -c "import fim"` works), and time against support on
//! T40I10D100K.
//!
//! Times are mining alone (file loading excluded), the median of several runs (one run when it
//! takes a second or more: long enough to stand alone, as the anatomy scaling's); pyfim is timed
//! inside Python around the call, with `report='#'` (a pattern spectrum: every itemset found but
//! none turned into a Python object), its fastest mode. Our `count` column is the like-for-like
//! figure (every class found, none listed); `list` also stores every itemset.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context as _, Result};
use serde::Serialize;
use txanon_data::{QuestParams, TransactionDb};
use txanon_mining::{
    Algorithm, MinSupport, MiningParams, RuleParams, count_itemsets, frequent_itemsets, rules,
};

use super::rows::{Col, col, table, volatile};
use super::{Context, Figure, FigureKind, Legend, Output, ResultTable, Series};

/// One dataset at its minimum support.
struct Setting {
    dataset: &'static str,
    /// The minimum support, in percent.
    percent: f64,
}

/// The issue's settings, then the other datasets.
const SETTINGS: [Setting; 8] = [
    Setting { dataset: "t40-sample", percent: 0.5 },
    Setting { dataset: "retail", percent: 0.05 },
    Setting { dataset: "bms1", percent: 0.1 },
    Setting { dataset: "bms2", percent: 0.1 },
    Setting { dataset: "connect", percent: 80.0 },
    Setting { dataset: "chess", percent: 60.0 },
    Setting { dataset: "mushroom", percent: 10.0 },
    Setting { dataset: "kosarak-sample", percent: 0.2 },
];

/// Supports (percent) of the T40I10D100K time curve.
const T40_CURVE: [f64; 5] = [3.0, 2.0, 1.0, 0.75, 0.5];

const PYFIM: &str = r#"
import sys, time, statistics, fim
path, supp, runs, LONG = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
db = [l.split() for l in open(path)]
for name in ('fpgrowth', 'apriori', 'eclat'):
    f = getattr(fim, name)
    times = []
    for _ in range(runs):
        t = time.perf_counter(); spectrum = f(db, supp=supp, report='#'); times.append(time.perf_counter() - t)
        if times[0] >= LONG: break
    print(name, int(sum(spectrum.values())), statistics.median(times))
"#;

/// pyfim's (itemsets, median seconds) for fpgrowth, apriori and eclat.
type PyfimFigures = [(u64, f64); 3];

/// [`PyfimFigures`] for one setting, or `None` without pyfim.
fn pyfim(path: &Path, percent: f64, runs: usize) -> Result<Option<PyfimFigures>> {
    let available = Command::new("python3")
        .args(["-c", "import fim"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        return Ok(None);
    }
    let out = Command::new("python3")
        .args([
            "-c",
            PYFIM,
            &path.display().to_string(),
            &percent.to_string(),
            &runs.to_string(),
            &LONG_RUN.to_string(),
        ])
        .output()
        .context("running pyfim")?;
    anyhow::ensure!(out.status.success(), "pyfim failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout)?;
    let mut result = [(0, 0.0); 3];
    for (slot, line) in result.iter_mut().zip(text.lines()) {
        let f: Vec<&str> = line.split(' ').collect();
        *slot = (f[1].parse()?, f[2].parse()?);
    }
    Ok(Some(result))
}

/// Seconds from which one run is timed alone: a run that long averages out the short stalls of
/// a shared machine that the median of three guards short runs against.
const LONG_RUN: f64 = 1.0;

/// The median of `runs` timings of `f`, or the first alone when it takes [`LONG_RUN`] or more.
fn median_seconds(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f();
        times.push(t.elapsed().as_secs_f64());
        if times[0] >= LONG_RUN {
            break;
        }
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Our figures for one setting: itemsets, rules of 2 to 4 items at confidence 0.8 (all,
/// single-consequent; unbounded rules explode on dense data such as connect), and
/// median seconds of FP-Growth counting, FP-Growth listing, Apriori listing.
struct Ours {
    min_count: u32,
    itemsets: usize,
    rules: u64,
    single_rules: u64,
    count: f64,
    list: f64,
    apriori: f64,
}

fn ours(db: &TransactionDb, percent: f64, runs: usize) -> Result<Ours> {
    let support = MinSupport::Fraction(percent / 100.0);
    let params = MiningParams::new(support).check()?;
    let found = frequent_itemsets(db, Algorithm::FpGrowth, &params)?;
    let rule_params = RuleParams::new(0.8).max_len(Some(4)).check()?;
    Ok(Ours {
        min_count: support.count(db.len()),
        itemsets: found.len(),
        rules: rules::count(&found, &rule_params, false),
        single_rules: rules::count(&found, &rule_params, true),
        count: median_seconds(runs, || drop(count_itemsets(db, &params))),
        list: median_seconds(runs, || drop(frequent_itemsets(db, Algorithm::FpGrowth, &params))),
        apriori: median_seconds(runs.min(3), || {
            drop(frequent_itemsets(db, Algorithm::Apriori, &params))
        }),
    })
}

/// One setting: our counts and times, pyfim's beside them when it is installed.
#[derive(Clone, Serialize)]
struct MiningRow<'a> {
    dataset: &'a str,
    #[serde(rename = "support %")]
    percent: f64,
    #[serde(rename = "min count")]
    min_count: u32,
    itemsets: usize,
    #[serde(rename = "rules (2-4 items, conf 0.8)")]
    rules: u64,
    #[serde(rename = "single-consequent rules")]
    single_rules: u64,
    #[serde(rename = "pyfim itemsets")]
    pyfim_itemsets: Option<u64>,
    #[serde(rename = "fpgrowth count s")]
    count: f64,
    #[serde(rename = "fpgrowth list s")]
    list: f64,
    #[serde(rename = "apriori list s")]
    apriori: f64,
    #[serde(rename = "pyfim fpgrowth s")]
    pyfim_fpgrowth: Option<f64>,
    #[serde(rename = "pyfim apriori s")]
    pyfim_apriori: Option<f64>,
    #[serde(rename = "pyfim eclat s")]
    pyfim_eclat: Option<f64>,
    #[serde(rename = "fpgrowth ≤ pyfim fpgrowth")]
    fpgrowth_faster: Option<&'static str>,
    #[serde(rename = "fastest ≤ pyfim fastest")]
    fastest_faster: Option<&'static str>,
}

/// The columns from pyfim's count on: they depend on the machine or on pyfim being installed.
const SPEC: [Col; 7] = [
    volatile("pyfim itemsets", 0),
    volatile("fpgrowth count s", 4),
    volatile("fpgrowth list s", 4),
    volatile("apriori list s", 4),
    volatile("pyfim fpgrowth s", 4),
    volatile("pyfim apriori s", 4),
    volatile("pyfim eclat s", 4),
];
const SPEC_VERDICTS: [Col; 2] =
    [volatile("fpgrowth ≤ pyfim fpgrowth", 0), volatile("fastest ≤ pyfim fastest", 0)];

fn mining_table(name: &str, rows: &[MiningRow<'_>]) -> ResultTable {
    table(name, rows, &[&[col("support %", 3)][..], &SPEC, &SPEC_VERDICTS].concat())
}

/// Measures one setting.
fn measure<'a>(
    name: &'a str,
    path: Option<&Path>,
    db: &TransactionDb,
    percent: f64,
    runs: usize,
) -> Result<(MiningRow<'a>, Option<PyfimFigures>)> {
    let o = ours(db, percent, runs)?;
    let theirs = match path {
        Some(p) => pyfim(p, percent, runs)?,
        None => None,
    };
    if let Some([fp, ap, ec]) = theirs {
        anyhow::ensure!(
            fp.0 == ap.0 && ap.0 == ec.0,
            "pyfim's miners disagree on {name}: {} {} {}",
            fp.0,
            ap.0,
            ec.0
        );
    }
    let verdict = |ours: f64, theirs: f64| if ours <= theirs { "yes" } else { "NO" };
    let row = MiningRow {
        dataset: name,
        percent,
        min_count: o.min_count,
        itemsets: o.itemsets,
        rules: o.rules,
        single_rules: o.single_rules,
        pyfim_itemsets: theirs.map(|[fp, _, _]| fp.0),
        count: o.count,
        list: o.list,
        apriori: o.apriori,
        pyfim_fpgrowth: theirs.map(|[fp, _, _]| fp.1),
        pyfim_apriori: theirs.map(|[_, ap, _]| ap.1),
        pyfim_eclat: theirs.map(|[_, _, ec]| ec.1),
        fpgrowth_faster: theirs.map(|[fp, _, _]| verdict(o.count, fp.1)),
        fastest_faster: theirs.map(|[fp, ap, ec]| {
            verdict(o.count.min(o.list).min(o.apriori), fp.1.min(ap.1).min(ec.1))
        }),
    };
    Ok((row, theirs))
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<Output> {
    let runs = if ctx.quick { 1 } else { 3 };
    let mut out = Output::default();
    let (settings_seen, t40) = settings_study(ctx, runs, &mut out)?;
    let (curve_rows, curve_seen) = curve_study(ctx, runs, t40, &mut out)?;
    let pyfim_seen = settings_seen || curve_seen;
    if !pyfim_seen {
        out.notes.push("pyfim not installed (pip install pyfim): no comparison columns.".into());
    }
    out.note_if(
        !ctx.quick,
        "Itemset counts include the singleton of an item present in every transaction (mushroom's 85), which pyfim 6.28 omits: mushroom's pyfim column is one lower.",
    );
    out.parameters = vec![
        (
            "runs per time (median)".into(),
            format!("{runs}; one for a time of {LONG_RUN} s or more"),
        ),
        ("rules".into(), "2 to 4 items (the anatomy paper's range), confidence 0.8".into()),
        ("threads".into(), rayon_threads()),
    ];
    out.tables.push(mining_table("mining-t40-curve", &curve_rows));
    Ok(out)
}

/// A setting measured once and shown in two tables: T40I10D100K's at its support, which the
/// time curve ends at.
type Measured = (MiningRow<'static>, Option<PyfimFigures>);

/// Every dataset at its support (embedded data under `--quick`); whether pyfim ran, and the
/// real T40I10D100K sample's measurement.
fn settings_study(
    ctx: &Context,
    runs: usize,
    out: &mut Output,
) -> Result<(bool, Option<Measured>)> {
    let mut t40 = None;
    let mut rows = Vec::new();
    let mut pyfim_seen = false;
    if ctx.quick {
        // Embedded data only: the papers' examples and a small seeded Quest database.
        let examples = ctx.examples()?;
        for (name, db) in &examples {
            rows.push(measure(name, None, db, 20.0, runs)?.0);
        }
        let quest = QuestParams::new(5_000, 10.0, 4.0, 500).seed(ctx.seed).check()?.generate();
        for percent in [2.0, 1.0, 0.5] {
            rows.push(measure("quest T10I4D5K N500", None, &quest, percent, runs)?.0);
        }
        out.tables.push(mining_table("mining", &rows));
        out.notes.push(
            "--quick: embedded data only; the real datasets and pyfim timings need a full run."
                .into(),
        );
    } else {
        for Setting { dataset: name, percent } in SETTINGS {
            if let Some((path, db)) = ctx.real(name)? {
                let (row, theirs) = measure(name, Some(&path), &db, percent, runs)?;
                pyfim_seen |= theirs.is_some();
                if name == "t40-sample" {
                    t40 = Some((row.clone(), theirs));
                }
                rows.push(row);
            }
        }
        out.tables.push(mining_table("mining", &rows));
    }
    Ok((pyfim_seen, t40))
}

/// Time against support on T40I10D100K (the real sample; else the Quest stand-in's first
/// 2,000); whether pyfim ran. The sample's setting measured by [`settings_study`] (`t40`) is
/// not measured again.
fn curve_study(
    ctx: &Context,
    runs: usize,
    t40: Option<Measured>,
    out: &mut Output,
) -> Result<(Vec<MiningRow<'static>>, bool)> {
    let mut pyfim_seen = false;
    let (label, path, db) = match ctx.real("t40-sample")? {
        Some((p, db)) => ("T40I10D100K sample", Some(p), db),
        None => {
            let db = QuestParams::new(2_000, 40.0, 10.0, 1000).seed(ctx.seed).check()?.generate();
            ("Quest T40I10D2K", None, db)
        }
    };
    let mut curve_rows = Vec::new();
    let mut series: Vec<Series> = [
        "ours: fpgrowth (count)",
        "ours: fpgrowth (list)",
        "ours: apriori (list)",
        "pyfim fpgrowth",
        "pyfim eclat",
    ]
    .iter()
    .map(|l| Series { label: (*l).into(), points: Vec::new() })
    .collect();
    let curve: &[f64] = if ctx.quick { &[3.0, 2.0] } else { &T40_CURVE };
    for &percent in curve {
        let (o, theirs) = match &t40 {
            Some((row, theirs)) if path.is_some() && row.percent == percent => {
                (MiningRow { dataset: label, ..row.clone() }, *theirs)
            }
            _ => measure(label, path.as_deref(), &db, percent, runs)?,
        };
        series[0].points.push((percent, o.count));
        series[1].points.push((percent, o.list));
        series[2].points.push((percent, o.apriori));
        if let Some([fp, _, ec]) = theirs {
            pyfim_seen = true;
            series[3].points.push((percent, fp.1));
            series[4].points.push((percent, ec.1));
        }
        curve_rows.push(o);
    }
    series.retain(|s| !s.points.is_empty());
    out.figures.push(Figure {
        name: "mining-t40-time".into(),
        title: format!("Mining time against minimum support, {label}"),
        x_label: "minimum support (%)".into(),
        y_label: "seconds (median)".into(),
        kind: FigureKind::Line { log_x: false, log_y: true },
        categories: Vec::new(),
        legend: Legend::default(),
        series,
    });
    Ok((curve_rows, pyfim_seen))
}

fn rayon_threads() -> String {
    std::thread::available_parallelism().map_or("unknown".into(), |n| n.to_string())
}
