//! Result tables and figures, and their files: CSV, JSON, SVG and the Markdown report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::Serialize;

use super::claims::Claim;
use super::rows::Refusal;
use super::{Context, Experiment, plot};

/// One cell of a result table.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Text.
    Text(String),
    /// A whole number.
    Int(i64),
    /// A real number, with the number of decimals to show (JSON gets the full value).
    Float(f64, usize),
    /// Nothing to show (a figure the paper does not report, say).
    Empty,
}

impl Value {
    /// The cell as the CSV and the report show it.
    pub fn show(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            Value::Int(v) => v.to_string(),
            Value::Float(v, d) => format!("{v:.d$}", d = *d),
            Value::Empty => String::new(),
        }
    }

    /// The cell as a number, when it is one.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f, _) => Some(*f),
            _ => None,
        }
    }
}

impl Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Text(t) => s.serialize_str(t),
            Value::Int(v) => s.serialize_i64(*v),
            Value::Float(v, _) => s.serialize_f64(*v),
            Value::Empty => s.serialize_none(),
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Text(s.into())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Text(s)
    }
}
impl From<usize> for Value {
    fn from(v: usize) -> Self {
        Value::Int(v as i64)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Empty, Into::into)
    }
}

/// A table of results: named columns, one row per measurement.
#[derive(Debug, Clone, Serialize)]
pub struct ResultTable {
    /// File stem; `results/<name>.csv`.
    pub name: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, one value per column.
    pub rows: Vec<Vec<Value>>,
    /// Columns that differ from run to run (times): left out of `--check`.
    pub volatile: Vec<String>,
}

impl ResultTable {
    /// An empty table with these columns.
    pub fn new(name: &str, columns: &[&str]) -> Self {
        Self {
            name: name.into(),
            columns: columns.iter().map(|c| (*c).into()).collect(),
            volatile: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (tests build small tables by hand; experiments build theirs from typed
    /// rows with `rows::table`).
    ///
    /// # Panics
    /// When the row does not have one value per column.
    #[cfg(test)]
    pub fn push(&mut self, row: Vec<Value>) {
        assert_eq!(row.len(), self.columns.len(), "one value per column of {}", self.name);
        self.rows.push(row);
    }

    /// The CSV text without the volatile columns: what `--check` compares.
    pub fn stable_csv(&self) -> String {
        let keep: Vec<usize> = (0..self.columns.len())
            .filter(|&j| !self.volatile.contains(&self.columns[j]))
            .collect();
        self.csv(&keep)
    }

    fn to_csv(&self) -> String {
        self.csv(&(0..self.columns.len()).collect::<Vec<_>>())
    }

    /// The columns `keep`, header first, fields quoted where CSV needs it.
    fn csv(&self, keep: &[usize]) -> String {
        let quote = |s: String| {
            if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s }
        };
        let line = |cells: Vec<String>| {
            let mut l = keep.iter().map(|&j| quote(cells[j].clone())).collect::<Vec<_>>().join(",");
            l.push('\n');
            l
        };
        let mut out = line(self.columns.clone());
        for row in &self.rows {
            out.push_str(&line(row.iter().map(Value::show).collect()));
        }
        out
    }

    fn to_markdown(&self) -> String {
        let mut out =
            format!("| {} |\n|{}\n", self.columns.join(" | "), "---|".repeat(self.columns.len()));
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(|v| v.show().replace('|', "\\|")).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out
    }
}

/// How a figure is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FigureKind {
    /// Lines over a numeric x axis.
    Line {
        /// Logarithmic x axis.
        log_x: bool,
        /// Logarithmic y axis.
        log_y: bool,
    },
    /// Grouped bars over categories (the x values of the first series are the categories' order).
    Bars,
}

/// Where a chart's legend sits: where the data leaves room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Legend {
    /// Right, half-way up (plotters' place).
    #[default]
    MiddleRight,
    /// Top left: the corner a privacy–utility frontier leaves empty (low utility, high risk).
    UpperLeft,
}

/// One named series of points.
#[derive(Debug, Clone, Serialize)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// (x, y) points; for bars, x is the category index.
    pub points: Vec<(f64, f64)>,
}

/// A chart, written as `results/<name>.svg`.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    /// File stem.
    pub name: String,
    /// Caption.
    pub title: String,
    /// x-axis label.
    pub x_label: String,
    /// y-axis label.
    pub y_label: String,
    /// Line or bars.
    pub kind: FigureKind,
    /// Category names for bars.
    pub categories: Vec<String>,
    /// Where the legend sits.
    pub legend: Legend,
    /// The data.
    pub series: Vec<Series>,
}

impl Figure {
    /// An empty figure of `kind`.
    pub fn new(name: &str, title: &str, x_label: &str, y_label: &str, kind: FigureKind) -> Self {
        Self {
            name: name.into(),
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            kind,
            categories: Vec::new(),
            legend: Legend::default(),
            series: Vec::new(),
        }
    }

    /// An empty line chart on linear axes.
    pub fn line(name: &str, title: &str, x_label: &str, y_label: &str) -> Self {
        Self::new(name, title, x_label, y_label, FigureKind::Line { log_x: false, log_y: false })
    }
}

/// What an experiment produced.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Output {
    /// Parameters and seeds, as `name = value` lines for the report.
    pub parameters: Vec<(String, String)>,
    /// Result tables.
    pub tables: Vec<ResultTable>,
    /// Charts.
    pub figures: Vec<Figure>,
    /// Remarks for the report: what the paper says beside ours, what was missing.
    pub notes: Vec<String>,
    /// Pictures drawn by the libraries themselves (such as band matrices), written as-is.
    pub pictures: Vec<Picture>,
    /// The data this run used (datasets that were not found or not used in `--quick` are
    /// absent), so that the report never speaks of data the run did not touch.
    pub data: Vec<String>,
    /// The papers' claims this experiment tests, with their verdicts.
    pub claims: Vec<Claim>,
    /// Settings the families refused as infeasible.
    pub refusals: Vec<Refusal>,
}

impl Output {
    /// An output that ran on `data` (named datasets, as `Context::transaction_data` gives them).
    pub fn on<T>(data: &[(String, T)]) -> Self {
        Self { data: data.iter().map(|(n, _)| n.clone()).collect(), ..Self::default() }
    }

    /// Adds `note` when `ran`: a remark about data or settings that this run may not have used.
    pub fn note_if(&mut self, ran: bool, note: impl Into<String>) {
        if ran {
            self.notes.push(note.into());
        }
    }

    /// True when this run used `dataset`.
    pub fn used(&self, dataset: &str) -> bool {
        self.data.iter().any(|d| d == dataset)
    }
}

/// An SVG drawn elsewhere, written as `results/<name>.svg`.
#[derive(Debug, Clone, Serialize)]
pub struct Picture {
    /// File stem.
    pub name: String,
    /// Caption.
    pub title: String,
    /// The SVG text (not repeated in the JSON).
    #[serde(skip)]
    pub svg: String,
}

/// Writes an experiment's tables (CSV and JSON) and figures (SVG).
pub fn write_experiment(out: &Path, exp: &Experiment, result: &Output) -> Result<()> {
    for t in result.tables.iter().filter(|t| !t.rows.is_empty()) {
        write(out.join(format!("{}.csv", t.name)), t.to_csv())?;
    }
    let json = serde_json::json!({ "experiment": exp.name, "title": exp.title, "paper": exp.paper, "output": result });
    write(out.join(format!("{}.json", exp.name)), serde_json::to_string_pretty(&json)?)?;
    for f in &result.figures {
        let svg = plot::draw(f).with_context(|| format!("drawing {}", f.name))?;
        write(out.join(format!("{}.svg", f.name)), svg)?;
    }
    for p in &result.pictures {
        write(out.join(format!("{}.svg", p.name)), p.svg.clone())?;
    }
    Ok(())
}

/// Writes a result file atomically, as every result file in the workspace is written.
pub fn write(path: PathBuf, text: String) -> Result<()> {
    txanon_data::write_atomic(&path, |f| {
        use std::io::Write;
        f.write_all(text.as_bytes())
            .map_err(|e| txanon_data::DataError::Io { path: path.clone(), source: e })
    })
    .with_context(|| format!("writing {}", path.display()))
}

/// Tables up to this size sit inline in the report; longer ones stay in their CSV with a
/// one-line summary.
const INLINE_ROWS: usize = 16;
const INLINE_COLUMNS: usize = 9;

/// Writes `REPORT.md`: the claims table first, then per experiment the data it used, its
/// short tables (long ones summarized and linked), charts, refusals and notes.
pub fn write_report(
    out: &Path,
    ctx: &Context,
    done: &[(&Experiment, Output, f64)],
) -> Result<PathBuf> {
    let (commit, toolchain) = super::context::provenance();
    let mut md = String::from("# txanon: reproduced results\n\n");
    let _ = writeln!(
        md,
        "- mode: {}",
        if ctx.quick {
            "--quick (embedded and generated data only: no claim about the papers' datasets can be checked)"
        } else {
            "full (real datasets)"
        }
    );
    let _ = writeln!(md, "- commit: {commit}\n- toolchain: {toolchain}\n- seed: {}", ctx.seed);
    let _ = writeln!(md, "- command: `cargo xtask reproduce{}`", ctx.flags());
    let _ = writeln!(
        md,
        "- slow references: {}\n",
        if ctx.slow_references {
            "run (--slow-references)"
        } else {
            "not run: the coherence enumeration reference at p = 4 and on retail runs with --slow-references"
        }
    );
    md.push_str(&claims_table(done)?);
    let missing = ctx.missing();
    if !missing.is_empty() {
        md.push_str("## Missing data\n\n");
        for m in &missing {
            let _ = writeln!(md, "- {m}");
        }
        md.push('\n');
    }
    for (exp, result, seconds) in done {
        let _ = writeln!(md, "## {}\n\n{}.\n", exp.name, exp.title);
        let _ = writeln!(md, "Reproduces: {}. Ran in {seconds:.0} s.\n", exp.paper);
        let _ = writeln!(
            md,
            "Data used in this run: {}.\n",
            if result.data.is_empty() { "none".to_string() } else { result.data.join(", ") }
        );
        if !result.parameters.is_empty() {
            md.push_str("Parameters: ");
            md.push_str(
                &result
                    .parameters
                    .iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            md.push_str("\n\n");
        }
        let refusals = super::refusals_table(exp.name);
        for t in result.tables.iter().filter(|t| !t.rows.is_empty() && t.name != refusals) {
            if t.rows.len() <= INLINE_ROWS && t.columns.len() <= INLINE_COLUMNS {
                let _ = writeln!(md, "[`{0}.csv`]({0}.csv)\n\n{1}", t.name, t.to_markdown());
            } else {
                let _ = writeln!(
                    md,
                    "- [`{0}.csv`]({0}.csv): {1} rows of {2} columns ({3}).\n",
                    t.name,
                    t.rows.len(),
                    t.columns.len(),
                    t.columns.join(", ")
                );
            }
        }
        for f in &result.figures {
            let _ = writeln!(md, "![{}]({}.svg)\n", f.title, f.name);
        }
        for p in &result.pictures {
            let _ = writeln!(md, "![{}]({}.svg)\n", p.title, p.name);
        }
        if !result.refusals.is_empty() {
            let _ = writeln!(
                md,
                "Refused settings, the family's reason beside each ([`{refusals}.csv`]({refusals}.csv)):\n"
            );
            for r in &result.refusals {
                let _ = writeln!(md, "- `{}`, {}: {}", r.table, r.setting, r.reason);
            }
            md.push('\n');
        }
        for n in &result.notes {
            let _ = writeln!(md, "- {n}");
        }
        md.push('\n');
    }
    let path = out.join("REPORT.md");
    write(path.clone(), md)?;
    Ok(path)
}

/// The report's opening: the paper claims checked on the papers' data, counted in the headline;
/// then ours beyond the papers, calibrations, guarantee checks and targets, each under its own
/// heading; the claims checked on stand-in data apart; the claims not run in one line.
fn claims_table(done: &[(&Experiment, Output, f64)]) -> Result<String> {
    use super::claims::{Kind, Sources, Verdict};
    let mut md = String::from("## Claims\n\n");
    let sources = Sources::load()?;
    let mut rows = Vec::new();
    for (e, o, _) in done {
        for c in &o.claims {
            let source = sources.get(c.id)?;
            let verdict = Verdict::of(c, source.kind, !source.file.is_empty());
            rows.push((e.name, c, source, verdict));
        }
    }
    if rows.is_empty() {
        md.push_str("No experiment with claims ran.\n\n");
        return Ok(md);
    }
    // Stand-in data decides no paper claim and no claim of ours beyond one: those go apart.
    let stand_in = |(_, c, s, _): &&(&str, &Claim, &super::claims::Source, Verdict)| {
        c.stand_in && matches!(s.kind, Kind::Paper | Kind::Ours)
    };
    let on_papers_data = |kind: Kind| {
        move |r: &&(&str, &Claim, &super::claims::Source, Verdict)| {
            r.2.kind == kind && r.3 != Verdict::NotRun && !stand_in(r)
        }
    };
    let paper: Vec<_> = rows.iter().filter(on_papers_data(Kind::Paper)).collect();
    let count = |f: &dyn Fn(&Verdict) -> bool| paper.iter().filter(|r| f(&r.3)).count();
    if paper.is_empty() {
        md.push_str("No paper claim was checked on the papers' data in this run: what ran on stand-in data is listed apart below, and reproduces nothing.\n\n");
    } else {
        let _ = writeln!(
            md,
            "{} paper claim{} checked on the papers' data: {} reproduced, {} trend reproduced, {} not reproduced; {} compared with numbers or words our copies of the papers do not hold (secondary source, unverified: never counted as reproduced); {} hold by construction; {} not comparable. Only these count; the rows of other kinds follow under their own headings.\n",
            paper.len(),
            if paper.len() == 1 { "" } else { "s" },
            count(&|v| *v == Verdict::Reproduced),
            count(&|v| *v == Verdict::TrendReproduced),
            count(&|v| *v == Verdict::NotReproduced),
            count(&|v| matches!(v, Verdict::Unverified(_))),
            count(&|v| *v == Verdict::ByConstruction),
            count(&|v| matches!(v, Verdict::NotComparable(_))),
        );
    }
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let words = |s: &super::claims::Source| {
        let place = if s.file.is_empty() {
            format!("{}; the paper is not among our copies", s.location)
        } else {
            format!("{}, `{}`", s.location, s.file)
        };
        if s.quote.is_empty() { place } else { format!("“{}” ({place})", s.quote) }
    };
    let write_table =
        |md: &mut String,
         heading: &str,
         picked: &[&(&str, &Claim, &super::claims::Source, Verdict)]| {
            if picked.is_empty() {
                return;
            }
            let _ = writeln!(md, "### {heading}\n");
            md.push_str("| kind | paper | claim | in the paper's words | data and setting | test | paper's number | ours | verdict | section |\n|---|---|---|---|---|---|---|---|---|---|\n");
            for (exp, c, s, v) in picked {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | [{exp}](#{exp}) |",
                    s.kind.show(),
                    cell(&s.paper),
                    cell(&c.statement),
                    cell(&words(s)),
                    cell(&c.setting),
                    cell(&c.test),
                    cell(&c.theirs),
                    cell(&c.ours),
                    v.show(s.kind),
                );
            }
            md.push('\n');
        };
    write_table(&mut md, "Paper claims", &paper);
    for (kind, heading) in [
        (Kind::Ours, "Ours, beyond the paper"),
        (Kind::Calibration, "Calibrations: our data against the papers'"),
        (Kind::Guarantee, "Guarantee checks: our implementations against their definitions"),
        (Kind::Target, "Project targets"),
    ] {
        let picked: Vec<_> = rows.iter().filter(on_papers_data(kind)).collect();
        write_table(&mut md, heading, &picked);
    }
    let apart: Vec<_> = rows.iter().filter(|r| r.3 != Verdict::NotRun && stand_in(r)).collect();
    write_table(
        &mut md,
        "Checked on stand-in data (generated), not on the papers' data: these reproduce nothing",
        &apart,
    );
    let not_run: Vec<String> = rows
        .iter()
        .filter(|r| r.3 == Verdict::NotRun)
        .map(|(exp, c, _, _)| format!("{} ([{exp}](#{exp}))", c.statement))
        .collect();
    if !not_run.is_empty() {
        let _ = writeln!(md, "Not run in this mode ({}): {}.\n", not_run.len(), not_run.join("; "));
    }
    Ok(md)
}

/// A file-name fragment: lower-case letters and digits, the rest as single dashes.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_check_drops_volatile_columns() {
        let mut t = ResultTable::new("t", &["name", "value", "seconds"]);
        t.volatile.push("seconds".into());
        t.push(vec!["a,b".into(), Value::Float(1.23456, 2), Value::Float(0.5, 3)]);
        t.push(vec!["say \"hi\"".into(), Value::Empty, Value::Int(7)]);
        assert_eq!(t.to_csv(), "name,value,seconds\n\"a,b\",1.23,0.500\n\"say \"\"hi\"\"\",,7\n");
        assert_eq!(t.stable_csv(), "name,value\n\"a,b\",1.23\n\"say \"\"hi\"\"\",\n");
        let json = serde_json::to_string(&t.rows[0]).unwrap();
        assert_eq!(
            json, r#"["a,b",1.23456,0.5]"#,
            "JSON keeps full precision, numbers stay numbers"
        );
    }
}
