//! Test-only helpers shared by the workspace's suites (a dev-dependency, never a dependency).
//!
//! - [`rejects!`]: a tamper suite's assertion that an edited publication fails its audit with
//!   a given violation among those reported;
//! - [`exercised`]: a property test that counts how many of its cases really took the path it
//!   is about (a publication, say, rather than a refusal) and fails when too few did;
//! - [`reaudits`]: the family contract's round trip, for any family;
//! - [`supports_by_definition`]: the support of every itemset that occurs, by brute force;
//! - [`command`]: a command line written as a user writes it, run as a process.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
#[doc(hidden)]
pub use txanon_data;

/// Asserts that `$run` fails its audit with at least one violation matching `$pattern`: the
/// error is the family's (`$family` implements [`txanon_data::Family`]) and
/// [`Family::violations`](txanon_data::Family::violations) finds the violations in it. Names
/// the pattern on stderr first, so a failing suite says which tamper it was.
#[macro_export]
macro_rules! rejects {
    ($run:expr, $family:ty, $pattern:pat) => {{
        eprintln!("tampering to reach {}", stringify!($pattern));
        match $run {
            Err(e) => match <$family as $crate::txanon_data::Family>::violations(&e) {
                Some(v) => assert!(
                    v.list().iter().any(|x| matches!(x, $pattern)),
                    "expected {}, got {v}",
                    stringify!($pattern)
                ),
                None => {
                    panic!("expected a failed audit reaching {}, got {e}", stringify!($pattern))
                }
            },
            Ok(other) => {
                panic!("expected a failed audit reaching {}, got {other:?}", stringify!($pattern))
            }
        }
    }};
}

/// How many cases a property test ran, and how many of them took its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exercised {
    /// Cases run.
    pub cases: u32,
    /// Cases whose test returned `true`: the path the property is about was taken.
    pub taken: u32,
}

impl Exercised {
    /// Panics unless at least `share` of the cases took the path (`what` names it).
    pub fn at_least(self, share: f64, what: &str) {
        assert!(self.cases > 0, "no case ran");
        assert!(
            f64::from(self.taken) >= share * f64::from(self.cases),
            "only {} of {} cases {what} (at least {:.0}% wanted): the property was barely tested",
            self.taken,
            self.cases,
            share * 100.0
        );
    }
}

/// Runs `test` on `cases` values of `strategy` (shrinking a failure as proptest does) and
/// counts the cases for which it returned `Ok(true)`.
///
/// # Panics
/// When a case fails, with proptest's minimal failing input.
pub fn exercised<S: Strategy>(
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<bool, TestCaseError>,
) -> Exercised
where
    S::Value: std::fmt::Debug,
{
    let taken = AtomicU32::new(0);
    let ran = AtomicU32::new(0);
    let mut runner = TestRunner::new(Config { cases, ..Config::default() });
    let result = runner.run(&strategy, |value| {
        ran.fetch_add(1, Ordering::Relaxed);
        if test(value)? {
            taken.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // Shrinking reruns cases; only a passing run is counted, and it ran each case once.
    Exercised { cases: ran.load(Ordering::Relaxed), taken: taken.load(Ordering::Relaxed) }
}

/// Audits `publication` (family `F`'s, from `input` under `params`) again through the
/// contract: the claim of `params`, every published file, the original and the family's
/// secrets, as its data holder would. Asserts that it passes with the report the publication
/// carries.
///
/// # Panics
/// When the second audit fails or reports otherwise.
pub fn reaudits<'a, F: txanon_data::Family>(
    input: F::Input<'a>,
    params: &F::Params,
    publication: &'a F::Publication,
) {
    let name = F::NAME;
    let again = txanon_data::reaudit::<F>(input, params, publication)
        .unwrap_or_else(|e| panic!("{name}: the publication fails its audit run again: {e}"));
    assert_eq!(&again, F::report(publication), "{name}: the audit run again reports otherwise");
}

/// Every itemset of 1 to `max_len` items that occurs in `rows`, with its support: each row
/// taken as a set (sorted, duplicates dropped) and every subset of it counted, the definition
/// with nothing clever, for the tests to check the searches against.
///
/// # Panics
/// When a row holds more than 24 distinct items (its subsets would not fit a test).
pub fn supports_by_definition<T: Ord + Clone>(
    rows: &[Vec<T>],
    max_len: usize,
) -> BTreeMap<Vec<T>, u64> {
    let mut supports = BTreeMap::new();
    for row in rows {
        let mut row = row.clone();
        row.sort();
        row.dedup();
        assert!(row.len() <= 24, "a row of {} items is too long to enumerate", row.len());
        for mask in 1u32..(1 << row.len()) {
            if mask.count_ones() as usize <= max_len {
                let set: Vec<T> =
                    (0..row.len()).filter(|b| mask >> b & 1 == 1).map(|b| row[b].clone()).collect();
                *supports.entry(set).or_insert(0) += 1;
            }
        }
    }
    supports
}

/// The words of `line` as a shell would split it (on whitespace; no quoting), each `{name}`
/// in a word replaced by its value in `vars` (a value may hold spaces: it stays one word).
///
/// # Panics
/// When a word names a variable `vars` does not hold.
pub fn words(line: &str, vars: &[(&str, &str)]) -> Vec<String> {
    line.split_whitespace()
        .map(|word| {
            let mut out = String::new();
            let mut rest = word;
            while let Some(open) = rest.find('{') {
                let close = rest[open..].find('}').map(|c| open + c).expect("a closing brace");
                let name = &rest[open + 1..close];
                let value = vars.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
                out.push_str(&rest[..open]);
                out.push_str(
                    value.unwrap_or_else(|| panic!("no value for {{{name}}} in {line:?}")),
                );
                rest = &rest[close + 1..];
            }
            out.push_str(rest);
            out
        })
        .collect()
}

/// `program` with the arguments of `line` ([`words`]): a test states a command as the README
/// would.
pub fn command(program: &str, line: &str, vars: &[(&str, &str)]) -> std::process::Command {
    let mut command = std::process::Command::new(program);
    command.args(words(line, vars));
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supports_by_definition_counts_every_subset_once_per_row() {
        let rows = vec![vec![3, 1, 2], vec![2, 3, 3], vec![1]];
        let s = supports_by_definition(&rows, 2);
        assert_eq!(s[&vec![1]], 2);
        assert_eq!(s[&vec![2, 3]], 2);
        assert_eq!(s[&vec![1, 2]], 1);
        assert!(!s.contains_key(&vec![1, 2, 3]), "longer than max_len");
        assert_eq!(s.len(), 3 + 3);
    }

    #[test]
    fn words_split_on_whitespace_and_substitute_whole_values() {
        let w = words("anonymize km {in} --k 10 -o {out}/pub", &[("in", "a b.csv"), ("out", "/t")]);
        assert_eq!(w, ["anonymize", "km", "a b.csv", "--k", "10", "-o", "/t/pub"]);
        assert!(std::panic::catch_unwind(|| words("{missing}", &[])).is_err());
    }

    #[test]
    fn exercised_counts_the_cases_that_took_the_path() {
        let e = exercised(100, 0u32..10, |v| Ok(v < 5));
        assert_eq!(e.cases, 100);
        assert!(e.taken > 20 && e.taken < 80, "{e:?}");
        e.at_least(0.2, "were below 5");
        let none = exercised(50, 0u32..10, |_| Ok(false));
        assert!(std::panic::catch_unwind(|| none.at_least(0.1, "took the path")).is_err());
    }
}
