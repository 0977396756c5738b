//! The papers' claims beside ours, with a computed verdict.
//!
//! The papers' numbers are data: `xtask/paper/<experiment>.csv`, one value per line with the
//! claim it supports, the table and row of ours it is joined to (`key`: `column=value` pairs
//! separated by `;`), the column, where in the paper it comes from, and a tolerance (`25%`
//! relative or `0.05` absolute). A claim's verdict is computed from all its values:
//! reproduced when every value of ours lies within tolerance, trend reproduced when ours move in
//! the same direction between consecutive values (and keep the paper's ordering), not
//! reproduced otherwise, and not comparable when the run did not produce the rows (data not
//! used in this mode) or when the paper's setting cannot be rebuilt (the reason is given).
//! Qualitative claims ("PartSwap keeps the most similar itemsets") are predicates computed by
//! the experiment over its own tables.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result, bail};
use serde::Serialize;

use txanon_data::split_csv;

use super::output::ResultTable;
use super::rows::{Col, col, table};

/// A claim's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Verdict {
    /// Every value of ours within the paper's value's tolerance.
    Reproduced,
    /// Same direction and ordering, another magnitude.
    TrendReproduced,
    /// Ours contradicts the paper.
    NotReproduced,
    /// No comparison possible; the reason.
    NotComparable(String),
}

impl Verdict {
    /// The verdict in the report's words.
    pub fn show(&self) -> String {
        match self {
            Verdict::Reproduced => "reproduced".into(),
            Verdict::TrendReproduced => "trend reproduced".into(),
            Verdict::NotReproduced => "**not reproduced**".into(),
            Verdict::NotComparable(why) => format!("not comparable ({why})"),
        }
    }
}

/// One claim of a paper, the paper's number, ours, and the verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Claim {
    /// The paper, short (`CAHD, ICDE 2008`).
    pub paper: &'static str,
    /// The claim in one line.
    pub statement: String,
    /// The paper's figure for it.
    pub theirs: String,
    /// Ours.
    pub ours: String,
    /// The verdict.
    pub verdict: Verdict,
}

impl Claim {
    /// A claim checked by a predicate over our results: `holds` is `None` when the run did not
    /// produce what the predicate needs.
    pub fn qualitative(
        paper: &'static str,
        statement: impl Into<String>,
        theirs: impl Into<String>,
        ours: impl Into<String>,
        holds: Option<bool>,
    ) -> Self {
        Self {
            paper,
            statement: statement.into(),
            theirs: theirs.into(),
            ours: ours.into(),
            verdict: match holds {
                Some(true) => Verdict::Reproduced,
                Some(false) => Verdict::NotReproduced,
                None => Verdict::NotComparable("not run in this mode".into()),
            },
        }
    }
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
}

/// The numbers of one experiment's paper, `xtask/paper/<experiment>.csv`.
#[derive(Debug, Clone, Default)]
pub struct PaperValues {
    values: Vec<PaperValue>,
}

impl PaperValues {
    /// Reads `path`: header `claim,table,key,column,paper,source,tolerance`.
    pub fn read(path: &Path) -> Result<Self> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses the text of a paper file; `origin` names it in errors.
    fn parse(text: &str, origin: &str) -> Result<Self> {
        let mut values = Vec::new();
        let mut f = Vec::new();
        for (n, line) in text.lines().enumerate().skip(1) {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let at = format!("{origin}:{}", n + 1);
            split_csv(line, b',', &mut f)
                .map_err(|(column, why)| anyhow::anyhow!("{at}, column {column}: {why}"))?;
            let [claim, table, key, column, paper, source, tolerance] = f.as_slice() else {
                bail!("{at}: 7 fields expected, found {}", f.len());
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
            });
        }
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

    /// The claim `id`: the paper's values joined to ours in `tables`, and the verdict.
    ///
    /// # Panics
    /// When the paper's file has no value for `id` (a typo in the experiment).
    pub fn claim(
        &self,
        paper: &'static str,
        id: &str,
        statement: impl Into<String>,
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
        let verdict = if found.is_empty() {
            Verdict::NotComparable("not run in this mode".into())
        } else if within == pairs.len() {
            Verdict::Reproduced
        } else if one_quantity && found.len() >= 2 && same_trend(&found) {
            Verdict::TrendReproduced
        } else {
            Verdict::NotReproduced
        };
        if !one_quantity {
            let theirs = format!("{} values: {}", pairs.len(), columns.join(", "));
            let ours = if found.is_empty() {
                "—".to_string()
            } else {
                format!("{within} of {} within tolerance", pairs.len())
            };
            return Claim { paper, statement: statement.into(), theirs, ours, verdict };
        }
        let theirs = span(pairs.iter().map(|p| p.0));
        let mut ours = span(found.iter().map(|p| p.1));
        if found.len() < pairs.len() {
            let _ = write!(ours, " ({} of {} values run)", found.len(), pairs.len());
        }
        Claim { paper, statement: statement.into(), theirs, ours, verdict }
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
            source: &'a str,
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
                    source: &v.source,
                    tolerance: match v.tolerance {
                        Tolerance::Relative(r) => format!("{}%", 100.0 * r),
                        Tolerance::Absolute(a) => a.to_string(),
                    },
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
        let text = format!("claim,table,key,column,paper,source,tolerance\n{lines}");
        PaperValues::parse(&text, "test.csv").unwrap()
    }

    #[test]
    fn verdicts_follow_tolerance_then_trend() {
        let t = tables();
        let within = paper("c,kl,dataset=bms1;p=4,KL,0.021,\"Fig. 9, read off the plot\",10%\n");
        assert_eq!(within.claim("X", "c", "s", &t).verdict, Verdict::Reproduced);
        let trend =
            paper("c,kl,dataset=bms1;p=4,KL,0.4,f,10%\nc,kl,dataset=bms1;p=8,KL,0.7,f,10%\n");
        assert_eq!(trend.claim("X", "c", "s", &t).verdict, Verdict::TrendReproduced);
        let against =
            paper("c,kl,dataset=bms1;p=4,KL,0.7,f,10%\nc,kl,dataset=bms1;p=8,KL,0.4,f,10%\n");
        assert_eq!(against.claim("X", "c", "s", &t).verdict, Verdict::NotReproduced);
        let absent = paper("c,kl,dataset=bms2;p=4,KL,0.05,f,0.01\n");
        assert!(matches!(absent.claim("X", "c", "s", &t).verdict, Verdict::NotComparable(_)));
        let side = trend.beside_ours("e", &t).unwrap();
        assert_eq!(side.name, "e-paper");
        assert_eq!(side.rows.len(), 2);
    }

    #[test]
    fn several_quantities_have_no_trend() {
        let mut t = ResultTable::new("data", &["dataset", "records", "items"]);
        t.push(vec!["bms1".into(), Value::Int(5000), Value::Int(264)]);
        let t = vec![t];
        let exact =
            paper("d,data,dataset=bms1,records,5000,f,0\nd,data,dataset=bms1,items,264,f,0\n");
        let c = exact.claim("X", "d", "s", &t);
        assert_eq!(c.verdict, Verdict::Reproduced);
        assert_eq!(
            (c.theirs.as_str(), c.ours.as_str()),
            ("2 values: records, items", "2 of 2 within tolerance")
        );
        // One value off, in the direction a trend would excuse: still not reproduced.
        let off =
            paper("d,data,dataset=bms1,records,4000,f,0\nd,data,dataset=bms1,items,200,f,0\n");
        let c = off.claim("X", "d", "s", &t);
        assert_eq!(c.verdict, Verdict::NotReproduced);
        assert_eq!(c.ours, "0 of 2 within tolerance");
    }

    #[test]
    fn a_malformed_line_names_its_place() {
        let text = "claim,table,key,column,paper,source,tolerance\nc,kl,p=4,KL,0.4,f\n";
        let e = PaperValues::parse(text, "cahd.csv").unwrap_err().to_string();
        assert!(e.contains("cahd.csv:2") && e.contains("7 fields"), "{e}");
        let quoted = paper("c,kl,dataset=bms1;p=4,KL,0.021,\"Fig. 9, read off the plot\",10%\n");
        assert_eq!(quoted.values[0].source, "Fig. 9, read off the plot");
    }
}
