//! Typed result rows and the grid runner.
//!
//! A table's rows are one `#[derive(Serialize)]` struct: its field names (or `serde(rename)`s)
//! are the header, so a header cannot drift from its values. A [`Col`] spec says how many
//! decimals a float column shows and whether it is volatile (left out of `--check`). A
//! setting a family refuses as infeasible is a [`Refusal`], listed once under the experiment,
//! never a row of empty cells; [`Grid::attempt`] is the one place that times a call and tells
//! an infeasible setting from a failure.

use std::fmt::{self, Display};
use std::time::Instant;

use anyhow::Result;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::{Serialize, Serializer};

use super::output::{ResultTable, Value};

/// How one column shows: decimals of a float, and whether the column changes run to run.
#[derive(Debug, Clone, Copy)]
pub struct Col {
    name: &'static str,
    decimals: usize,
    volatile: bool,
}

/// A float column shown with `decimals` decimals.
pub const fn col(name: &'static str, decimals: usize) -> Col {
    Col { name, decimals, volatile: false }
}

/// A column that differs between runs (a time), shown with `decimals` decimals.
pub const fn volatile(name: &'static str, decimals: usize) -> Col {
    Col { name, decimals, volatile: true }
}

/// Decimals of a float column no spec names.
const DEFAULT_DECIMALS: usize = 4;

/// A serialized row's fields in declaration order (serde_json's map would sort them).
struct Fields(Vec<(String, serde_json::Value)>);

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Fields;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a row struct")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        d.deserialize_map(InOrder)
    }
}

fn cell(value: serde_json::Value, decimals: usize) -> Value {
    use serde_json::Value as J;
    match value {
        J::Null => Value::Empty,
        J::Bool(b) => Value::Text(if b { "yes" } else { "no" }.into()),
        J::String(s) => Value::Text(s),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(f)) if n.is_f64() => Value::Float(f, decimals),
            _ => Value::Text(n.to_string()),
        },
        other => Value::Text(other.to_string()),
    }
}

/// The table `name` of `rows`, its header the rows' field names.
///
/// # Panics
/// When two rows serialize different fields, a spec names no field, or a row is not a struct:
/// mistakes in the experiment's code, not in data.
pub fn table<R: Serialize>(name: &str, rows: &[R], spec: &[Col]) -> ResultTable {
    let mut columns: Option<Vec<String>> = None;
    let mut cells = Vec::with_capacity(rows.len());
    for row in rows {
        let text = serde_json::to_string(row).expect("a row serializes");
        let Fields(fields) = serde_json::from_str(&text).expect("a row is a struct");
        let names: Vec<String> = fields.iter().map(|(k, _)| k.clone()).collect();
        match &columns {
            None => columns = Some(names),
            Some(c) => assert_eq!(c, &names, "every row of {name} has the same fields"),
        }
        cells.push(
            fields
                .into_iter()
                .map(|(k, v)| {
                    let decimals =
                        spec.iter().find(|c| c.name == k).map_or(DEFAULT_DECIMALS, |c| c.decimals);
                    cell(v, decimals)
                })
                .collect(),
        );
    }
    let columns = columns.unwrap_or_default();
    for c in spec {
        assert!(
            columns.is_empty() || columns.iter().any(|n| n == c.name),
            "{name}: the spec names {:?}, which no field has",
            c.name
        );
    }
    let mut t = ResultTable::new(name, &columns.iter().map(String::as_str).collect::<Vec<_>>());
    t.volatile = spec.iter().filter(|c| c.volatile).map(|c| c.name.to_string()).collect();
    t.rows = cells;
    t
}

/// What a setting gave: a publication (and whatever was measured of it), or the family's
/// refusal (its reason recorded once, in the grid's [`Refusal`]s).
#[derive(Debug, Clone)]
pub enum Outcome<T> {
    /// The family published; the run took `seconds`.
    Published {
        /// What the call returned.
        value: T,
        /// Wall-clock seconds of the call.
        seconds: f64,
    },
    /// The family refused the setting as infeasible.
    Refused,
}

/// A setting a family refused: listed under the experiment, one line each.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refusal {
    /// The table the setting belongs to.
    pub table: String,
    /// The setting, as `name = value` pairs.
    pub setting: String,
    /// The family's reason.
    pub reason: String,
}

/// Whether a family's error says the setting cannot be met on this data (recorded as a
/// refusal), rather than a failure that stops the experiment: the kind every family's error
/// reports.
pub fn infeasible(e: &impl txanon_data::Classify) -> bool {
    e.kind() == txanon_data::ErrorKind::Infeasible
}

/// Runs an experiment's settings: times each call and collects the refusals.
#[derive(Debug, Default)]
pub struct Grid {
    refusals: Vec<Refusal>,
}

impl Grid {
    /// Runs `call` for the setting of `table`: its value and seconds, a refusal (recorded), or
    /// the error when it is a failure rather than an infeasible setting.
    pub fn attempt<T, E>(
        &mut self,
        table: &str,
        setting: impl Display,
        call: impl FnOnce() -> Result<T, E>,
    ) -> Result<Outcome<T>>
    where
        E: txanon_data::Classify + std::error::Error + Send + Sync + 'static,
    {
        let started = Instant::now();
        match call() {
            Ok(value) => Ok(Outcome::Published { value, seconds: started.elapsed().as_secs_f64() }),
            Err(e) if infeasible(&e) => {
                self.refuse(table, setting, e);
                Ok(Outcome::Refused)
            }
            Err(e) => Err(anyhow::Error::new(e).context(format!("{table}, {setting}"))),
        }
    }

    /// Records a refusal of a setting whose call ran elsewhere (an experiment that compares
    /// engines needs the error itself, not only the outcome).
    pub fn refuse(&mut self, table: &str, setting: impl Display, reason: impl Display) {
        self.refusals.push(Refusal {
            table: table.into(),
            setting: setting.to_string(),
            reason: reason.to_string(),
        });
    }

    /// The refusals so far, in the order they happened.
    pub fn into_refusals(self) -> Vec<Refusal> {
        self.refusals
    }
}

/// One study of an experiment: a table measured over a grid of settings. The study owns the
/// loop: each setting is run through [`Grid::attempt`] (timed; an infeasible one recorded as
/// a refusal of the study's table and skipped, a failure stopping the experiment), and what it
/// published becomes a row with its figure point. An experiment states its grid (the settings,
/// how each is shown) and its measurement (the run, the row); the loop, the timing and the
/// refusals are the study's.
pub struct Study<'g> {
    table: &'static str,
    grid: &'g mut Grid,
}

/// What one published setting gave a study: its table row and its point on a figure.
pub struct Measured<R> {
    /// The row.
    pub row: R,
    /// The point `(x, y)` of the setting's series.
    pub point: (f64, f64),
}

impl<'g> Study<'g> {
    /// A study of the table `table`, its refusals recorded in `grid`.
    pub fn new(table: &'static str, grid: &'g mut Grid) -> Self {
        Self { table, grid }
    }

    /// Runs every setting of `settings` in order: `shown` names it (for a refusal), `run`
    /// publishes it, `measure` reads the publication and its seconds into a row and a point.
    /// Returns the rows and the series' points of the settings that published, in order.
    ///
    /// # Errors
    /// A failure of `run` other than an infeasible setting, or of `measure`.
    pub fn over<S, T, E, R>(
        &mut self,
        settings: impl IntoIterator<Item = S>,
        shown: impl Fn(&S) -> Vec<(&'static str, String)>,
        mut run: impl FnMut(&S) -> Result<T, E>,
        mut measure: impl FnMut(&S, T, f64) -> Result<Measured<R>>,
    ) -> Result<Findings<R>>
    where
        E: txanon_data::Classify + std::error::Error + Send + Sync + 'static,
    {
        let (mut rows, mut points) = (Vec::new(), Vec::new());
        for s in settings {
            let outcome = self.grid.attempt(self.table, Setting(&shown(&s)), || run(&s))?;
            if let Outcome::Published { value, seconds } = outcome {
                let Measured { row, point } = measure(&s, value, seconds)?;
                rows.push(row);
                points.push(point);
            }
        }
        Ok(Findings { rows, points })
    }
}

/// What a study found over its settings: a row and a point for each that published.
pub struct Findings<R> {
    /// The table's rows.
    pub rows: Vec<R>,
    /// The series' points.
    pub points: Vec<(f64, f64)>,
}

/// Seconds of `f`, with its value.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed().as_secs_f64())
}

/// A setting shown as `a = 1, b = 2`.
pub struct Setting<'a>(pub &'a [(&'a str, String)]);

impl Display for Setting<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, (name, value)) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name} = {value}")?;
        }
        Ok(())
    }
}

/// A number too large for i64 (mole counts), serialized as its decimal text.
#[derive(Debug, Clone, Copy)]
pub struct Big(pub u128);

impl Serialize for Big {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(self.0) {
            Ok(v) => s.serialize_i64(v),
            Err(_) => s.serialize_str(&self.0.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        dataset: &'static str,
        #[serde(rename = "KL (r = 4)")]
        kl: Option<f64>,
        groups: usize,
        seconds: f64,
    }

    #[test]
    fn the_header_is_the_fields_in_declaration_order() {
        let rows = [
            Row { dataset: "b", kl: Some(0.123456), groups: 3, seconds: 1.5 },
            Row { dataset: "a", kl: None, groups: 4, seconds: 0.25 },
        ];
        let t = table("t", &rows, &[col("KL (r = 4)", 3), volatile("seconds", 2)]);
        assert_eq!(t.columns, ["dataset", "KL (r = 4)", "groups", "seconds"]);
        assert_eq!(t.stable_csv(), "dataset,KL (r = 4),groups\nb,0.123,3\na,,4\n");
        assert_eq!(t.rows[0][3], Value::Float(1.5, 2));
    }

    #[test]
    #[should_panic(expected = "which no field has")]
    fn a_spec_must_name_a_field() {
        let rows = [Row { dataset: "a", kl: None, groups: 1, seconds: 0.0 }];
        table("t", &rows, &[col("KL", 3)]);
    }

    #[test]
    fn a_refusal_is_recorded_and_a_failure_is_an_error() {
        let mut grid = Grid::default();
        let refused = grid
            .attempt("t", "p = 2", || -> Result<(), _> {
                Err(txanon_slicing::SlicingError::Infeasible("too few values".into()))
            })
            .unwrap();
        assert!(matches!(refused, Outcome::Refused));
        let failed = grid.attempt("t", "p = 3", || -> Result<(), _> {
            Err(txanon_slicing::SlicingError::Malformed("bad".into()))
        });
        assert!(failed.is_err());
        let refusals = grid.into_refusals();
        assert_eq!(refusals.len(), 1, "only the infeasible setting is a refusal");
        assert!(refusals[0].reason.contains("too few values"));
        assert_eq!(refusals[0].setting, "p = 2");
    }
}
