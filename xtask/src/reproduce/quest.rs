//! Experiment `quest`: the Quest generator's T40I10D100K-like output against the real file's
//! published figures and its available 10,000-transaction sample.

use anyhow::Result;
use serde::Serialize;
use txanon_data::TransactionDb;
use txanon_mining::{MinSupport, MiningParams, count_itemsets};

use super::claims::PaperValues;
use super::datasets::rank_support_curve;
use super::rows::{col, table};
use super::{Context, Figure, FigureKind, Legend, Output, Series};

const QUEST: &str = "Quest T40I10D100K (generated)";
const SAMPLE: &str = "T40I10D100K sample (real, 10k)";

/// One database's size (the paper's, in `xtask/paper/quest.csv`, joins to the Quest row).
#[derive(Serialize)]
struct SizeRow {
    data: &'static str,
    transactions: usize,
    #[serde(rename = "average length")]
    avg_len: f64,
    #[serde(rename = "items present")]
    items: usize,
}

/// The shape of one database's item-support distribution, as fractions of its transactions:
/// what the frequent itemsets inherit.
#[derive(Serialize)]
struct ProfileRow {
    data: &'static str,
    #[serde(rename = "most frequent item")]
    top: f64,
    #[serde(rename = "10th item")]
    tenth: f64,
    #[serde(rename = "100th item")]
    hundredth: f64,
    #[serde(rename = "median item")]
    median: f64,
    #[serde(rename = "items in at least 1%")]
    frequent: usize,
}

impl ProfileRow {
    fn of(data: &'static str, db: &TransactionDb) -> Self {
        let n = db.len() as f64;
        let mut s: Vec<f64> =
            db.supports().iter().filter(|&&x| x > 0).map(|&x| f64::from(x) / n).collect();
        s.sort_unstable_by(|a, b| b.total_cmp(a));
        let at = |rank: usize| s.get(rank - 1).copied().unwrap_or(0.0);
        ProfileRow {
            data,
            top: at(1),
            tenth: at(10),
            hundredth: at(100),
            median: s.get(s.len() / 2).copied().unwrap_or(0.0),
            frequent: s.iter().filter(|&&x| x >= 0.01).count(),
        }
    }
}

#[derive(Serialize)]
struct ItemsetRow {
    length: usize,
    #[serde(rename = "quest itemsets at 1%")]
    quest: u128,
    #[serde(rename = "T40 sample itemsets at 1%")]
    sample: Option<u128>,
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<Output> {
    let quest = ctx.quest_t40();
    let sample = ctx.real("t40-sample")?.map(|(_, db)| db);
    let mut sizes = Vec::new();
    let mut profiles = Vec::new();
    for (data, db) in std::iter::once((QUEST, quest)).chain(sample.as_ref().map(|db| (SAMPLE, db)))
    {
        let s = db.stats();
        sizes.push(SizeRow {
            data,
            transactions: s.transactions,
            avg_len: s.avg_len,
            items: s.items_present,
        });
        profiles.push(ProfileRow::of(data, db));
    }

    let mut figure = Figure {
        name: "quest-item-supports".into(),
        title: "Item support by rank: Quest T40I10D100K vs the real sample".into(),
        x_label: "item rank".into(),
        y_label: "fraction of transactions".into(),
        kind: FigureKind::Line { log_x: false, log_y: true },
        categories: Vec::new(),
        legend: Legend::default(),
        series: vec![Series { label: QUEST.into(), points: rank_support_curve(quest) }],
    };
    let mut out = Output::default();
    match &sample {
        Some(db) => {
            figure.series.push(Series { label: SAMPLE.into(), points: rank_support_curve(db) });
            out.data = vec![SAMPLE.into()];
        }
        None => out.notes.push("The real T40I10D100K sample was not used (--quick, or not found): the comparison is with the paper's figures only.".into()),
    }
    out.parameters = parameters(ctx.seed);
    out.tables.push(table("quest", &sizes, &[col("average length", 2)]));
    out.tables.push(table(
        "quest-profile",
        &profiles,
        &[
            col("most frequent item", 4),
            col("10th item", 4),
            col("100th item", 4),
            col("median item", 4),
        ],
    ));
    out.tables.push(table("quest-itemsets", &itemset_profile(quest, sample.as_ref())?, &[]));
    out.claims.push(PaperValues::of("quest")?.claim(
        "quest-t40",
        "Our Quest generator with T = 40, I = 10, N = 1000, |D| = 100,000 makes data of T40I10D100K's size",
        "generated with the experiment's seed",
        &out.tables,
    ));
    out.figures.push(figure);
    Ok(out)
}

/// The generator's settings, as the report states them.
fn parameters(seed: u64) -> Vec<(String, String)> {
    vec![
        ("T".into(), "40".into()),
        ("I".into(), "10".into()),
        ("N".into(), "1000".into()),
        ("|D|".into(), "100000".into()),
        ("|L|".into(), "2000".into()),
        ("seed".into(), seed.to_string()),
    ]
}

/// Frequent itemsets per length at 1% support, generated beside real: whether Quest's patterns
/// give T40I10D100K's itemset structure, not only its item supports.
fn itemset_profile(
    quest: &TransactionDb,
    sample: Option<&TransactionDb>,
) -> Result<Vec<ItemsetRow>> {
    let params = MiningParams::new(MinSupport::Fraction(0.01)).check()?;
    let ours = count_itemsets(quest, &params)?.by_len;
    let theirs = sample.map(|db| count_itemsets(db, &params)).transpose()?.map(|s| s.by_len);
    let longest = ours.len().max(theirs.as_ref().map_or(0, Vec::len));
    Ok((1..longest)
        .map(|length| ItemsetRow {
            length,
            quest: ours.get(length).copied().unwrap_or(0),
            sample: theirs.as_ref().map(|t| t.get(length).copied().unwrap_or(0)),
        })
        .collect())
}
