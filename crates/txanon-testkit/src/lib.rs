//! Test-only helpers shared by the workspace's suites (a dev-dependency, never a dependency).
//!
//! - [`rejects!`]: a tamper suite's assertion that an edited publication fails its audit with
//!   a given violation among those reported;
//! - [`exercised`]: a property test that counts how many of its cases really took the path it
//!   is about (a publication, say, rather than a refusal) and fails when too few did;
//! - [`reaudits`]: the family contract's round trip, for any family.

use std::sync::atomic::{AtomicU32, Ordering};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Asserts that `$run` fails its audit (`Err($audit(violations))`, the family's error variant
/// holding its violations, which have `list()`) with at least one violation matching
/// `$pattern`; names the pattern on stderr first, so a failing suite says which tamper it was.
#[macro_export]
macro_rules! rejects {
    ($run:expr, $audit:path, $pattern:pat) => {{
        eprintln!("tampering to reach {}", stringify!($pattern));
        match $run {
            Err($audit(v)) => assert!(
                v.list().iter().any(|x| matches!(x, $pattern)),
                "expected {}, got {v}",
                stringify!($pattern)
            ),
            other => {
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

#[cfg(test)]
mod tests {
    use super::*;

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
