//! Experiment `quest`: the Quest generator's T40I10D100K-like output against the real file's
//! published figures and its available 10,000-transaction sample.

use anyhow::Result;
use txanon_data::{TransactionDb, datasets};
use txanon_mining::{MinSupport, MiningParams, count_itemsets};

use super::datasets::rank_support_curve;
use super::{Context, Figure, FigureKind, Output, ResultTable, Series, Value};

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<Output> {
    let quest = ctx.quest_t40();
    let q = quest.stats();
    let paper = datasets::dataset("t40-sample")
        .and_then(|d| d.paper)
        .expect("paper figures in the manifest");
    let sample = ctx.real("t40-sample")?;
    let s = sample.as_ref().map(|(_, db)| db.stats());

    let mut table = ResultTable::new(
        "quest",
        &[
            "statistic",
            "quest",
            "T40I10D100K (paper)",
            "deviation",
            "within 5%",
            "T40 sample (10k)",
        ],
    );
    let mut stat = |name: &str, ours: f64, theirs: f64, sample: Option<f64>, decimals: usize| {
        let dev = (ours - theirs) / theirs;
        table.push(vec![
            name.into(),
            Value::Float(ours, decimals),
            Value::Float(theirs, decimals),
            format!("{:+.2}%", 100.0 * dev).into(),
            (if dev.abs() <= 0.05 { "yes" } else { "NO" }).into(),
            sample.map_or(Value::Empty, |v| Value::Float(v, decimals)),
        ]);
    };
    stat(
        "transactions",
        q.transactions as f64,
        paper.transactions as f64,
        s.as_ref().map(|s| s.transactions as f64),
        0,
    );
    stat("average length", q.avg_len, paper.avg_len, s.as_ref().map(|s| s.avg_len), 2);
    stat(
        "items present",
        q.items_present as f64,
        paper.items as f64,
        s.as_ref().map(|s| s.items_present as f64),
        0,
    );

    let mut figure = Figure {
        name: "quest-item-supports".into(),
        title: "Item support by rank: Quest T40I10D100K vs the real sample".into(),
        x_label: "item rank".into(),
        y_label: "fraction of transactions".into(),
        kind: FigureKind::Line { log_x: false, log_y: true },
        categories: Vec::new(),
        series: vec![Series {
            label: "Quest T40I10D100K (generated)".into(),
            points: rank_support_curve(quest),
        }],
    };
    let mut out = Output::default();
    match &sample {
        Some((_, db)) => figure.series.push(Series { label: "T40I10D100K sample (real)".into(), points: rank_support_curve(db) }),
        None => out.notes.push("The real T40I10D100K sample was not used (--quick, or not found): the comparison is with the paper's figures only.".into()),
    }
    out.parameters = vec![
        ("T".into(), "40".into()),
        ("I".into(), "10".into()),
        ("N".into(), "1000".into()),
        ("|D|".into(), "100000".into()),
        ("|L|".into(), "2000".into()),
        ("seed".into(), ctx.seed.to_string()),
    ];
    // The shape of the item-support distribution, on the same scale (fraction of transactions),
    // generated beside real: what the frequent itemsets will inherit.
    let profile = |db: &txanon_data::TransactionDb| {
        let n = db.len() as f64;
        let mut s: Vec<f64> =
            db.supports().iter().filter(|&&x| x > 0).map(|&x| f64::from(x) / n).collect();
        s.sort_unstable_by(|a, b| b.total_cmp(a));
        let at = |rank: usize| s.get(rank - 1).copied().unwrap_or(0.0);
        vec![
            ("support of the most frequent item", at(1)),
            ("support of the 10th item", at(10)),
            ("support of the 100th item", at(100)),
            ("median item support", s[s.len() / 2]),
            (
                "items in at least 1% of transactions",
                s.iter().filter(|&&x| x >= 0.01).count() as f64,
            ),
        ]
    };
    let mut shape = ResultTable::new("quest-profile", &["statistic", "quest", "T40 sample (10k)"]);
    let theirs = sample.as_ref().map(|(_, db)| profile(db));
    for (k, (name, ours)) in profile(quest).into_iter().enumerate() {
        let decimals = if name.starts_with("items") { 0 } else { 4 };
        let real = theirs.as_ref().map_or(Value::Empty, |t| Value::Float(t[k].1, decimals));
        shape.push(vec![name.into(), Value::Float(ours, decimals), real]);
    }
    out.tables.push(table);
    out.tables.push(shape);
    out.tables.push(itemset_profile(quest, sample.as_ref().map(|(_, db)| db))?);
    out.figures.push(figure);
    Ok(out)
}

/// Frequent itemsets per length at 1% support, generated beside real: whether Quest's patterns
/// give T40I10D100K's itemset structure, not only its item supports.
fn itemset_profile(quest: &TransactionDb, sample: Option<&TransactionDb>) -> Result<ResultTable> {
    let params = MiningParams::new(MinSupport::Fraction(0.01)).check()?;
    let ours = count_itemsets(quest, &params)?.by_len;
    let theirs = sample.map(|db| count_itemsets(db, &params)).transpose()?.map(|s| s.by_len);
    let longest = ours.len().max(theirs.as_ref().map_or(0, Vec::len));
    let mut table = ResultTable::new(
        "quest-itemsets",
        &["length", "quest itemsets at 1%", "T40 sample itemsets at 1%"],
    );
    let cell = |v: Option<&u128>| Value::Int(v.copied().unwrap_or(0) as i64);
    for len in 1..longest {
        let real = theirs.as_ref().map_or(Value::Empty, |t| cell(t.get(len)));
        table.push(vec![len.into(), cell(ours.get(len)), real]);
    }
    Ok(table)
}
