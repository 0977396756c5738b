//! The papers' claims beside ours, with a verdict a reviewer can check.
//!
//! Every row of the claims table has a source: `xtask/paper/claims.csv` gives, per claim id, its
//! [`Kind`] (paper claim, ours beyond the paper, calibration, guarantee check, project target),
//! the paper, its file under `../shared/papers/` (empty when our copies do not hold the paper),
//! the location and the sentence in the paper's words, which a test finds verbatim (up to
//! whitespace) in that file. The papers' numbers are `xtask/paper/<experiment>.csv`, one value per
//! line with the claim it supports, the table and row of ours it is joined to (`key`:
//! `column=value` pairs separated by `;`), the column, where in the paper it comes from, a
//! tolerance (`25%` relative or `0.05` absolute) and the paper's text holding it (empty when our
//! copy does not hold it: a secondary source).
//!
//! An experiment decides each claim with one of the verdict functions ([`every`], [`share`],
//! [`predicate`], [`PaperValues::claim`]'s tolerance and trend), each stating its
//! test; [`Verdict::of`] weighs the outcome with the source: a claim compared with numbers or
//! words our copy of the paper does not hold is "secondary source, unverified" and never
//! reproduced, one decided on generated data is "checked on stand-in data", and a test that
//! cannot fail "holds by construction".

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result, bail};
use serde::Serialize;

use txanon_data::split_csv;

use super::output::ResultTable;
use super::rows::{Col, col, table};

/// What a row of the claims table is, shown in its own column; only paper claims count in the
/// report's headline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A paper says it of its method, in words we quote from our copy of the paper.
    Paper,
    /// What we added to a paper's method (repaired columns, sensitive-alone slicing, another
    /// grouping order), checked on its own row so that the paper is not credited with it.
    Ours,
    /// Our stand-in matches the paper's data (a generated dataset, a copy of a file).
    Calibration,
    /// Our implementation meets the definition it claims, checked from outside.
    Guarantee,
    /// A target this project set itself.
    Target,
}

impl Kind {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "paper" => Kind::Paper,
            "ours" => Kind::Ours,
            "calibration" => Kind::Calibration,
            "guarantee" => Kind::Guarantee,
            "target" => Kind::Target,
            _ => return None,
        })
    }

    /// The kind in the report's words.
    pub fn show(self) -> &'static str {
        match self {
            Kind::Paper => "paper claim",
            Kind::Ours => "ours, beyond the paper",
            Kind::Calibration => "calibration",
            Kind::Guarantee => "guarantee check",
            Kind::Target => "project target",
        }
    }
}

/// What an experiment found when it put a claim to its test, before the claim's source is
/// weighed ([`Verdict::of`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Outcome {
    /// The test passed.
    Holds,
    /// Not within tolerance, but every step the paper's way.
    Trend,
    /// The test failed.
    Fails,
    /// The test cannot fail: what it checks follows from a definition or from how the
    /// experiment runs.
    ByConstruction,
    /// The run produced what the test needs for none of its settings.
    NotRun,
    /// The paper's setting cannot be rebuilt here; the reason.
    NotComparable(String),
}

/// How a claim was decided: the outcome and the test, stated as the report prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The outcome.
    pub outcome: Outcome,
    /// The test in words: what must hold, in how many settings, with which tolerance.
    pub test: String,
}

impl Decision {
    fn from(holds: Option<bool>, test: String) -> Self {
        let outcome = match holds {
            Some(true) => Outcome::Holds,
            Some(false) => Outcome::Fails,
            None => Outcome::NotRun,
        };
        Self { outcome, test }
    }
}

/// Holds when it holds in every one of `of` settings (`agree` of them); not run without any.
pub fn every((agree, of): (usize, usize), what: &str) -> Decision {
    Decision::from((of > 0).then_some(agree == of), format!("{what} in every setting run"))
}

/// Holds when it holds in at least `share` of the `of` settings; not run without any.
pub fn share((agree, of): (usize, usize), share: f64, what: &str) -> Decision {
    Decision::from(
        (of > 0).then_some(agree as f64 >= share * of as f64 - 1e-12),
        format!("{what} in at least {:.0}% of the settings run", 100.0 * share),
    )
}

/// A single predicate, `holds` (not run when `None`), with its test in words.
pub fn predicate(holds: Option<bool>, test: impl Into<String>) -> Decision {
    Decision::from(holds, test.into())
}

/// A test that cannot fail, and why.
pub fn by_construction(why: impl Into<String>) -> Decision {
    Decision { outcome: Outcome::ByConstruction, test: why.into() }
}

/// A claim the run cannot put to the paper's setting, and why.
pub fn not_comparable(why: impl Into<String>, test: impl Into<String>) -> Decision {
    Decision { outcome: Outcome::NotComparable(why.into()), test: test.into() }
}

/// A row of the claims table as an experiment states it; its source (the paper's words, where
/// they are, the kind) is `xtask/paper/claims.csv`'s row of the same id.
#[derive(Debug, Clone, Serialize)]
pub struct Claim {
    /// The row of `xtask/paper/claims.csv` that sources it.
    pub id: &'static str,
    /// The claim in one line, as we test it.
    pub statement: String,
    /// The data and the setting it was checked on.
    pub setting: String,
    /// The test in words.
    pub test: String,
    /// The paper's figure for it.
    pub theirs: String,
    /// Ours.
    pub ours: String,
    /// What the test found.
    pub outcome: Outcome,
    /// Checked on generated or embedded stand-in data, not the paper's.
    pub stand_in: bool,
    /// Some number of the paper it is compared with is not in our copy of the paper.
    pub secondary: bool,
}

impl Claim {
    /// The claim `id` decided by `decision` on `setting`; `stand_in` when the data is not the
    /// paper's.
    pub fn new(
        id: &'static str,
        statement: impl Into<String>,
        setting: impl Into<String>,
        theirs: impl Into<String>,
        ours: impl Into<String>,
        decision: Decision,
    ) -> Self {
        Self {
            id,
            statement: statement.into(),
            setting: setting.into(),
            test: decision.test,
            theirs: theirs.into(),
            ours: ours.into(),
            outcome: decision.outcome,
            stand_in: false,
            secondary: false,
        }
    }

    /// The same claim, checked on stand-in data when `stand_in`.
    pub fn stand_in(mut self, stand_in: bool) -> Self {
        self.stand_in = stand_in;
        self
    }
}

/// How far our result agreed with a claim that cannot be reproduced (unverified, stand-in data).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Agreement {
    /// The test passed.
    Agrees,
    /// Only the trend: same direction, another magnitude.
    TrendOnly,
    /// The test failed.
    Disagrees,
}

/// A claim's verdict: its outcome weighed with its source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Verdict {
    /// The test passed on the paper's data, against words or numbers in our copy of the paper.
    Reproduced,
    /// Same direction and ordering, another magnitude.
    TrendReproduced,
    /// The test failed.
    NotReproduced,
    /// The test cannot fail.
    ByConstruction,
    /// Compared with what our copy of the paper does not hold: shown, never reproduced; how far
    /// ours agreed.
    Unverified(Agreement),
    /// Checked on stand-in data only: how far it held there.
    StandIn(Agreement),
    /// No comparison possible; the reason.
    NotComparable(String),
    /// Not run in this mode.
    NotRun,
}

impl Verdict {
    /// The verdict of `claim` of kind `kind`, `verified` when its words are in our copy of the
    /// paper (every kind but paper claims needs no quotation).
    pub fn of(claim: &Claim, kind: Kind, verified: bool) -> Self {
        let agreement = match &claim.outcome {
            Outcome::NotRun => return Verdict::NotRun,
            Outcome::NotComparable(why) => return Verdict::NotComparable(why.clone()),
            Outcome::ByConstruction => return Verdict::ByConstruction,
            Outcome::Holds => Agreement::Agrees,
            Outcome::Trend => Agreement::TrendOnly,
            Outcome::Fails => Agreement::Disagrees,
        };
        let sourced = !claim.secondary && (verified || kind != Kind::Paper);
        if !sourced {
            Verdict::Unverified(agreement)
        } else if claim.stand_in && matches!(kind, Kind::Paper | Kind::Ours) {
            Verdict::StandIn(agreement)
        } else {
            match agreement {
                Agreement::Agrees => Verdict::Reproduced,
                Agreement::TrendOnly => Verdict::TrendReproduced,
                Agreement::Disagrees => Verdict::NotReproduced,
            }
        }
    }

    /// The verdict in the report's words, for a claim of `kind`.
    pub fn show(&self, kind: Kind) -> String {
        let (yes, no) = match kind {
            Kind::Paper | Kind::Ours => ("reproduced", "**not reproduced**"),
            Kind::Calibration => ("matches", "**does not match**"),
            Kind::Guarantee => ("holds", "**fails**"),
            Kind::Target => ("met", "**missed**"),
        };
        match self {
            Verdict::Reproduced => yes.into(),
            Verdict::TrendReproduced => "trend reproduced".into(),
            Verdict::NotReproduced => no.into(),
            Verdict::ByConstruction => "holds by construction".into(),
            Verdict::Unverified(agreement) => format!(
                "secondary source, unverified ({})",
                match agreement {
                    Agreement::Agrees => "ours agrees",
                    Agreement::TrendOnly => "ours follows the trend, not the values",
                    Agreement::Disagrees => "ours disagrees",
                }
            ),
            Verdict::StandIn(agreement) => format!(
                "checked on stand-in data: {}",
                match agreement {
                    Agreement::Agrees => "holds",
                    Agreement::TrendOnly => "the trend holds, not the values",
                    Agreement::Disagrees => "**fails**",
                }
            ),
            Verdict::NotComparable(why) => format!("not comparable ({why})"),
            Verdict::NotRun => "not run".into(),
        }
    }
}

/// Where a claim comes from: a row of `xtask/paper/claims.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// The claim's id.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// The paper (or issue), short.
    pub paper: String,
    /// The paper's file under `../shared/papers/`, empty when our copies do not hold it.
    pub file: String,
    /// Section, figure or table.
    pub location: String,
    /// The sentence, in the paper's words.
    pub quote: String,
}

/// A claim's setting on the experiment's data: `what` beside `data` on a full run, beside the
/// generated stand-in data on a quick one.
pub fn setting_on(real: bool, data: &str) -> impl Fn(&str) -> String + '_ {
    move |what| {
        if real { format!("{what}; {data}") } else { format!("{what}; generated stand-in data") }
    }
}

/// Whether `values` never fall, in order; `None` for fewer than two.
pub fn never_falls(values: &[f64]) -> Option<bool> {
    (values.len() >= 2).then(|| values.windows(2).all(|w| w[1] >= w[0]))
}

/// The median of `ratios` (the upper one of an even count; NaN for none), for a row's "ours".
pub fn median(ratios: &[f64]) -> f64 {
    let mut v = ratios.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// How many of `ratios` are above 1, of how many: the agreement [`every`] weighs for "faster"
/// or "below" when each ratio is the comparator's over ours.
pub fn above_one(ratios: &[f64]) -> (usize, usize) {
    (ratios.iter().filter(|&&r| r > 1.0).count(), ratios.len())
}

/// Calls `record` with each data line of the CSV `text` (after its header; blank lines and
/// `#` comments skipped), split into fields, beside `origin:line` for its errors.
fn for_each_record(
    text: &str,
    origin: &str,
    mut record: impl FnMut(&str, &[std::borrow::Cow<'_, str>]) -> Result<()>,
) -> Result<()> {
    let mut f = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{origin}:{}", n + 1);
        split_csv(line, b',', &mut f)
            .map_err(|(column, why)| anyhow::anyhow!("{at}, column {column}: {why}"))?;
        record(&at, &f)?;
    }
    Ok(())
}

/// Every claim's source, `xtask/paper/claims.csv`.
#[derive(Debug, Clone, Default)]
pub struct Sources(pub Vec<Source>);

impl Sources {
    /// Reads `xtask/paper/claims.csv`.
    pub fn load() -> Result<Self> {
        let path = crate::project_root().join("xtask/paper/claims.csv");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    fn parse(text: &str, origin: &str) -> Result<Self> {
        let mut sources = Vec::new();
        for_each_record(text, origin, |at, f| {
            let [id, kind, paper, file, location, quote] = f else {
                bail!("{at}: 6 fields expected, found {}", f.len());
            };
            let kind = Kind::parse(kind).with_context(|| format!("{at}: kind {kind:?}"))?;
            if sources.iter().any(|s: &Source| s.id == *id) {
                bail!("{at}: claim {id:?} twice");
            }
            sources.push(Source {
                id: id.to_string(),
                kind,
                paper: paper.to_string(),
                file: file.to_string(),
                location: location.to_string(),
                quote: quote.to_string(),
            });
            Ok(())
        })?;
        Ok(Self(sources))
    }

    /// The source of claim `id`.
    pub fn get(&self, id: &str) -> Result<&Source> {
        self.0
            .iter()
            .find(|s| s.id == id)
            .with_context(|| format!("claim {id:?} has no row in xtask/paper/claims.csv"))
    }
}

#[cfg(test)]
/// `text` without whitespace: the papers' extraction broke lines and spaced letters out
/// (`P a r t S w a p`), so a quotation is verbatim when it matches up to whitespace.
pub fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A tolerance: relative (a fraction of the paper's value) or absolute.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tolerance {
    Relative(f64),
    Absolute(f64),
}

impl Tolerance {
    fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        Ok(match s.strip_suffix('%') {
            Some(p) => Tolerance::Relative(p.trim().parse::<f64>()? / 100.0),
            None => Tolerance::Absolute(s.parse()?),
        })
    }

    fn show(self) -> String {
        match self {
            Tolerance::Relative(r) => format!("{}%", 100.0 * r),
            Tolerance::Absolute(a) => a.to_string(),
        }
    }

    fn admits(self, paper: f64, ours: f64) -> bool {
        let slack = match self {
            Tolerance::Relative(r) => r * paper.abs(),
            Tolerance::Absolute(a) => a,
        };
        (ours - paper).abs() <= slack + 1e-12
    }
}

/// One number of a paper.
#[derive(Debug, Clone)]
struct PaperValue {
    claim: String,
    table: String,
    key: Vec<(String, String)>,
    column: String,
    value: f64,
    source: String,
    tolerance: Tolerance,
    /// The paper's text holding the number, verbatim; empty when our copy does not hold it.
    quote: String,
}

/// The numbers of one experiment's paper, `xtask/paper/<experiment>.csv`.
#[derive(Debug, Clone, Default)]
pub struct PaperValues {
    values: Vec<PaperValue>,
}

impl PaperValues {
    /// Reads `path`: header `claim,table,key,column,paper,source,tolerance,quote`.
    pub fn read(path: &Path) -> Result<Self> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses the text of a paper file; `origin` names it in errors.
    fn parse(text: &str, origin: &str) -> Result<Self> {
        let mut values = Vec::new();
        for_each_record(text, origin, |at, f| {
            let [claim, table, key, column, paper, source, tolerance, quote] = f else {
                bail!("{at}: 8 fields expected, found {}", f.len());
            };
            let key = key
                .split(';')
                .filter(|kv| !kv.is_empty())
                .map(|kv| {
                    kv.split_once('=')
                        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                        .with_context(|| format!("{at}: key {kv:?}"))
                })
                .collect::<Result<_>>()?;
            values.push(PaperValue {
                claim: claim.to_string(),
                table: table.to_string(),
                key,
                column: column.to_string(),
                value: paper.parse().with_context(|| format!("{at}: paper value"))?,
                source: source.to_string(),
                tolerance: Tolerance::parse(tolerance)
                    .with_context(|| format!("{at}: tolerance"))?,
                quote: quote.to_string(),
            });
            Ok(())
        })?;
        Ok(Self { values })
    }

    /// The values of experiment `name`, or none when it has no file.
    pub fn of(name: &str) -> Result<Self> {
        let path = crate::project_root().join("xtask/paper").join(format!("{name}.csv"));
        if path.exists() { Self::read(&path) } else { Ok(Self::default()) }
    }

    fn ours(&self, v: &PaperValue, tables: &[ResultTable]) -> Option<f64> {
        let t = tables.iter().find(|t| t.name == v.table)?;
        let at = |name: &str| t.columns.iter().position(|c| c == name);
        let j = at(&v.column)?;
        let keys: Vec<(usize, &str)> =
            v.key.iter().map(|(k, val)| Some((at(k)?, val.as_str()))).collect::<Option<_>>()?;
        let row = t.rows.iter().find(|r| keys.iter().all(|&(i, val)| r[i].show() == val))?;
        row[j].number()
    }

    /// The claim `id`: the paper's values joined to ours in `tables`, decided by tolerance, then
    /// by trend; secondary when some value has no quotation in our copy of the paper.
    ///
    /// # Panics
    /// When the paper's file has no value for `id` (a typo in the experiment).
    pub fn claim(
        &self,
        id: &'static str,
        statement: impl Into<String>,
        setting: impl Into<String>,
        tables: &[ResultTable],
    ) -> Claim {
        let values: Vec<&PaperValue> = self.values.iter().filter(|v| v.claim == id).collect();
        assert!(!values.is_empty(), "no paper values for claim {id}");
        let pairs: Vec<(f64, Option<f64>)> =
            values.iter().map(|v| (v.value, self.ours(v, tables))).collect();
        let found: Vec<(f64, f64)> = pairs.iter().filter_map(|&(p, o)| Some((p, o?))).collect();
        let within = values
            .iter()
            .zip(&pairs)
            .filter(|(v, (p, o))| o.is_some_and(|o| v.tolerance.admits(*p, o)))
            .count();
        let mut columns: Vec<&str> = values.iter().map(|v| v.column.as_str()).collect();
        columns.dedup();
        // A claim over several quantities (a dataset's size, length and items) has no trend:
        // each value is within its tolerance or not.
        let one_quantity = columns.len() == 1;
        let mut tolerances: Vec<String> = values.iter().map(|v| v.tolerance.show()).collect();
        tolerances.dedup();
        let test = if one_quantity {
            format!(
                "each of the {} values within {} of the paper's; else every step the paper's way (trend)",
                pairs.len(),
                tolerances.join(" / ")
            )
        } else {
            format!(
                "each of the {} values within its tolerance ({})",
                pairs.len(),
                tolerances.join(", ")
            )
        };
        let outcome = if found.is_empty() {
            Outcome::NotRun
        } else if within == pairs.len() {
            Outcome::Holds
        } else if one_quantity && found.len() >= 2 && same_trend(&found) {
            Outcome::Trend
        } else {
            Outcome::Fails
        };
        let decision = Decision { outcome, test };
        let (theirs, ours) = if one_quantity {
            let mut ours = span(found.iter().map(|p| p.1));
            if !found.is_empty() && found.len() < pairs.len() {
                let _ = write!(ours, " ({} of {} values run)", found.len(), pairs.len());
            }
            (span(pairs.iter().map(|p| p.0)), ours)
        } else {
            let theirs = format!("{} values: {}", pairs.len(), columns.join(", "));
            let ours = if found.is_empty() {
                "—".to_string()
            } else {
                format!("{within} of {} within tolerance", pairs.len())
            };
            (theirs, ours)
        };
        let mut claim = Claim::new(id, statement, setting, theirs, ours, decision);
        claim.secondary = values.iter().any(|v| v.quote.is_empty());
        claim
    }

    /// Every value's claim and quotation: what the test of verbatim quotations reads.
    #[cfg(test)]
    pub fn quotations(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|v| (v.claim.as_str(), v.quote.as_str()))
    }

    /// The paper's value of `column` in the row of `table` with exactly the keys `key`.
    pub fn value(&self, table: &str, key: &[(&str, &str)], column: &str) -> Option<f64> {
        self.values
            .iter()
            .find(|v| {
                v.table == table
                    && v.column == column
                    && v.key.len() == key.len()
                    && key.iter().all(|(k, x)| v.key.iter().any(|(a, b)| a == k && b == x))
            })
            .map(|v| v.value)
    }

    /// The paper's values of `table` whose keys include every pair of `fixed`, as points with
    /// x the key `x` and y the value: the paper's series drawn beside ours on one figure.
    pub fn series(&self, table: &str, fixed: &[(&str, &str)], x: &str) -> Option<Vec<(f64, f64)>> {
        let points: Vec<(f64, f64)> = self
            .values
            .iter()
            .filter(|v| v.table == table)
            .filter(|v| fixed.iter().all(|(k, val)| v.key.iter().any(|(a, b)| a == k && b == val)))
            .filter_map(|v| {
                let at = v.key.iter().find(|(k, _)| k == x)?.1.parse::<f64>().ok()?;
                Some((at, v.value))
            })
            .collect();
        (!points.is_empty()).then_some(points)
    }

    /// Every value of the paper beside ours, with its own verdict: the experiment's
    /// `<name>-paper` table (none when the experiment has no paper values).
    pub fn beside_ours(&self, name: &str, tables: &[ResultTable]) -> Option<ResultTable> {
        #[derive(Serialize)]
        struct Row<'a> {
            claim: &'a str,
            table: &'a str,
            row: String,
            column: &'a str,
            paper: f64,
            ours: Option<f64>,
            source: String,
            tolerance: String,
            verdict: &'a str,
        }
        let rows: Vec<Row<'_>> = self
            .values
            .iter()
            .map(|v| {
                let ours = self.ours(v, tables);
                Row {
                    claim: &v.claim,
                    table: &v.table,
                    row: v
                        .key
                        .iter()
                        .map(|(k, x)| format!("{k}={x}"))
                        .collect::<Vec<_>>()
                        .join("; "),
                    column: &v.column,
                    paper: v.value,
                    ours,
                    source: if v.quote.is_empty() {
                        format!(
                            "{}; secondary source, unverified: not in our copy of the paper",
                            v.source
                        )
                    } else {
                        v.source.clone()
                    },
                    tolerance: v.tolerance.show(),
                    verdict: match ours {
                        None => "not run",
                        Some(o) if v.tolerance.admits(v.value, o) => "within",
                        Some(_) => "outside",
                    },
                }
            })
            .collect();
        if rows.is_empty() {
            return None;
        }
        const SPEC: &[Col] = &[col("paper", 4), col("ours", 4)];
        Some(table(&format!("{name}-paper"), &rows, SPEC))
    }
}

/// `a` or `a … b` (first and last), three significant digits.
fn span(values: impl Iterator<Item = f64>) -> String {
    let v: Vec<f64> = values.collect();
    let fmt = |x: f64| {
        if x.fract() == 0.0 && x.abs() < 1e12 {
            format!("{x:.0}")
        } else if x != 0.0 && (x.abs() >= 1000.0 || x.abs() < 0.001) {
            format!("{x:.3e}")
        } else {
            let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 4) as usize;
            format!("{x:.digits$}")
        }
    };
    match v.as_slice() {
        [] => "—".into(),
        [a] => fmt(*a),
        [a, .., b] => format!("{} … {}", fmt(*a), fmt(*b)),
    }
}

/// Ours moves the paper's way between consecutive values (a step the paper calls flat, within
/// 2%, may go either way), and ours is ordered as the paper's is.
fn same_trend(pairs: &[(f64, f64)]) -> bool {
    let sign = |a: f64, b: f64| {
        if (b - a).abs() <= 0.02 * a.abs().max(b.abs()) {
            0
        } else if b > a {
            1
        } else {
            -1
        }
    };
    pairs.windows(2).all(|w| {
        let (p, o) = (sign(w[0].0, w[1].0), sign(w[0].1, w[1].1));
        p == 0 || p == o
    })
}

#[cfg(test)]
mod tests {
    use super::super::output::Value;
    use super::*;

    fn tables() -> Vec<ResultTable> {
        let mut t = ResultTable::new("kl", &["dataset", "p", "KL"]);
        for (p, kl) in [(4, 0.02), (6, 0.03), (8, 0.05)] {
            t.push(vec!["bms1".into(), Value::Int(p), Value::Float(kl, 4)]);
        }
        vec![t]
    }

    fn paper(lines: &str) -> PaperValues {
        let text = format!("claim,table,key,column,paper,source,tolerance,quote\n{lines}");
        PaperValues::parse(&text, "test.csv").unwrap()
    }

    fn verdict(c: &Claim) -> Verdict {
        Verdict::of(c, Kind::Paper, true)
    }

    #[test]
    fn verdicts_follow_tolerance_then_trend() {
        let t = tables();
        let within = paper("c,kl,dataset=bms1;p=4,KL,0.021,\"Fig. 9, read off the plot\",10%,q\n");
        assert_eq!(verdict(&within.claim("c", "s", "bms1", &t)), Verdict::Reproduced);
        let trend =
            paper("c,kl,dataset=bms1;p=4,KL,0.4,f,10%,q\nc,kl,dataset=bms1;p=8,KL,0.7,f,10%,q\n");
        assert_eq!(verdict(&trend.claim("c", "s", "bms1", &t)), Verdict::TrendReproduced);
        let against =
            paper("c,kl,dataset=bms1;p=4,KL,0.7,f,10%,q\nc,kl,dataset=bms1;p=8,KL,0.4,f,10%,q\n");
        assert_eq!(verdict(&against.claim("c", "s", "bms1", &t)), Verdict::NotReproduced);
        let absent = paper("c,kl,dataset=bms2;p=4,KL,0.05,f,0.01,q\n");
        assert_eq!(verdict(&absent.claim("c", "s", "bms2", &t)), Verdict::NotRun);
        let side = trend.beside_ours("e", &t).unwrap();
        assert_eq!(side.name, "e-paper");
        assert_eq!(side.rows.len(), 2);
    }

    /// A number our copy of the paper does not hold is shown and compared, never reproduced.
    #[test]
    fn a_secondary_number_never_reproduces() {
        let t = tables();
        let unquoted = paper("c,kl,dataset=bms1;p=4,KL,0.021,f,10%,\n");
        let c = unquoted.claim("c", "s", "bms1", &t);
        assert!(c.secondary);
        assert_eq!(verdict(&c), Verdict::Unverified(Agreement::Agrees));
        assert!(verdict(&c).show(Kind::Paper).starts_with("secondary source, unverified"));
        let off = paper("c,kl,dataset=bms1;p=4,KL,0.5,f,10%,\n").claim("c", "s", "bms1", &t);
        assert_eq!(verdict(&off), Verdict::Unverified(Agreement::Disagrees));
        // Values ten times the paper's, in its direction: the trend only, and said so.
        let scaled =
            paper("c,kl,dataset=bms1;p=4,KL,0.21,f,10%,\nc,kl,dataset=bms1;p=8,KL,0.35,f,10%,\n")
                .claim("c", "s", "bms1", &t);
        assert_eq!(verdict(&scaled), Verdict::Unverified(Agreement::TrendOnly));
        assert!(verdict(&scaled).show(Kind::Paper).contains("not the values"));
        // A quotation that is not in our copy weighs the same.
        let quoted = paper("c,kl,dataset=bms1;p=4,KL,0.021,f,10%,q\n").claim("c", "s", "b", &t);
        assert_eq!(
            Verdict::of(&quoted, Kind::Paper, false),
            Verdict::Unverified(Agreement::Agrees)
        );
        // Stand-in data: shown as such, whichever way it went.
        assert_eq!(verdict(&quoted.clone().stand_in(true)), Verdict::StandIn(Agreement::Agrees));
        let side = unquoted.beside_ours("e", &t).unwrap();
        assert!(side.rows[0].iter().any(|v| v.show().contains("secondary source")));
    }

    #[test]
    fn several_quantities_have_no_trend() {
        let mut t = ResultTable::new("data", &["dataset", "records", "items"]);
        t.push(vec!["bms1".into(), Value::Int(5000), Value::Int(264)]);
        let t = vec![t];
        let exact =
            paper("d,data,dataset=bms1,records,5000,f,0,q\nd,data,dataset=bms1,items,264,f,0,q\n");
        let c = exact.claim("d", "s", "bms1", &t);
        assert_eq!(verdict(&c), Verdict::Reproduced);
        assert_eq!(
            (c.theirs.as_str(), c.ours.as_str()),
            ("2 values: records, items", "2 of 2 within tolerance")
        );
        // One value off, in the direction a trend would excuse: still not reproduced.
        let off =
            paper("d,data,dataset=bms1,records,4000,f,0,q\nd,data,dataset=bms1,items,200,f,0,q\n");
        let c = off.claim("d", "s", "bms1", &t);
        assert_eq!(verdict(&c), Verdict::NotReproduced);
        assert_eq!(c.ours, "0 of 2 within tolerance");
    }

    /// Each verdict function can say "not reproduced", says "not run" without settings, and
    /// states its test.
    #[test]
    fn every_verdict_function_can_fail() {
        let decide = |d: Decision| {
            let test = d.test.clone();
            assert!(!test.is_empty());
            verdict(&Claim::new("c", "s", "d", "t", "o", d))
        };
        assert_eq!(decide(every((3, 3), "x")), Verdict::Reproduced);
        assert_eq!(decide(every((2, 3), "x")), Verdict::NotReproduced);
        assert_eq!(decide(every((0, 0), "x")), Verdict::NotRun);
        assert_eq!(decide(share((5, 10), 0.5, "x")), Verdict::Reproduced);
        assert_eq!(decide(share((4, 10), 0.5, "x")), Verdict::NotReproduced);
        assert_eq!(decide(share((0, 0), 0.5, "x")), Verdict::NotRun);
        assert_eq!(decide(predicate(Some(true), "x")), Verdict::Reproduced);
        assert_eq!(decide(predicate(Some(false), "x")), Verdict::NotReproduced);
        assert_eq!(decide(predicate(None, "x")), Verdict::NotRun);
        assert_eq!(decide(by_construction("x")), Verdict::ByConstruction);
        assert!(matches!(decide(not_comparable("why", "x")), Verdict::NotComparable(_)));
        // The tolerance-and-trend function's failing cases are
        // `verdicts_follow_tolerance_then_trend` and `several_quantities_have_no_trend`.
    }

    #[test]
    fn a_malformed_line_names_its_place() {
        let text = "claim,table,key,column,paper,source,tolerance,quote\nc,kl,p=4,KL,0.4,f,1\n";
        let e = PaperValues::parse(text, "cahd.csv").unwrap_err().to_string();
        assert!(e.contains("cahd.csv:2") && e.contains("8 fields"), "{e}");
        let quoted =
            paper("c,kl,dataset=bms1;p=4,KL,0.021,\"Fig. 9, read off the plot\",10%,\"a, b\"\n");
        assert_eq!(quoted.values[0].source, "Fig. 9, read off the plot");
        assert_eq!(quoted.values[0].quote, "a, b");
        let e = Sources::parse("h\na,claim,p,f,l,q\n", "claims.csv").unwrap_err().to_string();
        assert!(e.contains("claims.csv:2") && e.contains("kind"), "{e}");
        let e = Sources::parse("h\na,paper,p,f,l,q\na,paper,p,f,l,q\n", "claims.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("twice"), "{e}");
    }

    /// The papers' text under `../shared/papers/`, or why it is absent (a failure under CI).
    fn papers() -> Option<std::path::PathBuf> {
        let dir = crate::project_root().join("../shared/papers");
        if dir.is_dir() {
            return Some(dir);
        }
        let why = format!("{} not found: the quotations are not checked", dir.display());
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
        eprintln!("skipped: {why}");
        None
    }

    /// Every paper claim quotes the paper, and every quotation (a claim's, a number's) is in the
    /// paper's file verbatim up to whitespace; a paper our copies do not hold is named as such.
    #[test]
    fn every_quotation_is_in_the_paper() {
        let sources = Sources::load().unwrap();
        assert!(sources.0.len() >= 40, "{} claims", sources.0.len());
        let Some(dir) = papers() else { return };
        let text = |file: &str| -> String {
            squeezed(
                &std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}")),
            )
        };
        let mut checked = 0;
        for s in &sources.0 {
            assert!(!s.location.trim().is_empty(), "claim {}: no location", s.id);
            if matches!(s.kind, Kind::Paper | Kind::Ours) && !s.file.is_empty() {
                assert!(!s.quote.trim().is_empty(), "claim {}: no quotation", s.id);
            }
            if s.file.is_empty() {
                // Not in our copies: the report shows it unverified (Verdict::of).
                continue;
            }
            assert!(
                text(&s.file).contains(&squeezed(&s.quote)),
                "claim {}: {:?} is not in {}",
                s.id,
                s.quote,
                s.file
            );
            checked += 1;
        }
        assert!(checked >= 25, "{checked} quotations checked");
        let dir_values = crate::project_root().join("xtask/paper");
        let mut values = 0;
        for entry in std::fs::read_dir(&dir_values).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == "claims.csv") {
                continue;
            }
            for (claim, quote) in PaperValues::read(&path).unwrap().quotations() {
                let source =
                    sources.get(claim).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                if quote.is_empty() {
                    continue;
                }
                assert!(
                    !source.file.is_empty(),
                    "{claim}: a quotation from a paper we do not hold"
                );
                assert!(
                    text(&source.file).contains(&squeezed(quote)),
                    "{}: claim {claim}: {quote:?} is not in {}",
                    path.display(),
                    source.file
                );
                values += 1;
            }
        }
        assert!(values >= 10, "{values} numbers' quotations checked");
    }
}
