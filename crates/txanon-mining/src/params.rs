//! Mining and rule parameters, validated once by `check()`.

use std::fmt;
use std::str::FromStr;

use txanon_data::ParamError;
use txanon_data::progress::Progress;

/// A minimum support: an absolute number of transactions, or a fraction of all transactions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MinSupport {
    /// At least this many transactions.
    Count(u32),
    /// At least this fraction of the transactions, in `(0, 1]`.
    Fraction(f64),
}

impl MinSupport {
    /// The absolute minimum support in a database of `transactions` transactions, at least 1.
    ///
    /// A fraction `f` becomes `⌈f · n⌉`, where a product within 10⁻⁹ (relative) of an integer is
    /// taken as that integer, so that `0.5%` of 10,000 is 50 and not 51 through rounding error.
    /// This is also how Borgelt's programs (pyfim) resolve a percentage.
    pub fn count(&self, transactions: usize) -> u32 {
        match *self {
            MinSupport::Count(c) => c.max(1),
            MinSupport::Fraction(f) => {
                let x = f * transactions as f64;
                let nearest = x.round();
                let c = if (x - nearest).abs() <= 1e-9 * x.max(1.0) { nearest } else { x.ceil() };
                (c as u32).max(1)
            }
        }
    }

    fn check(&self) -> Result<(), ParamError> {
        match *self {
            MinSupport::Count(0) => Err(ParamError::OutOfRange {
                name: "support",
                value: "0".into(),
                reason: "an absolute support must be at least 1",
            }),
            MinSupport::Fraction(f) if !(f > 0.0 && f <= 1.0) => Err(ParamError::OutOfRange {
                name: "support",
                value: f.to_string(),
                reason: "a relative support must lie in (0, 1] (0% excluded, 100% included)",
            }),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for MinSupport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MinSupport::Count(c) => write!(f, "{c}"),
            MinSupport::Fraction(x) => write!(f, "{}%", x * 100.0),
        }
    }
}

impl FromStr for MinSupport {
    type Err = String;

    /// `"0.5%"` is a percentage, a number with a decimal point or exponent (`"0.005"`, `"1e-3"`)
    /// a fraction, and a plain integer (`"50"`) an absolute count.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let bad = || {
            format!(
                "{s:?} is not a support: write a percentage (0.5%), a fraction (0.005) or a count (50)"
            )
        };
        let support = if let Some(percent) = s.strip_suffix('%') {
            let p: f64 = percent.trim().parse().map_err(|_| bad())?;
            MinSupport::Fraction(p / 100.0)
        } else if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() {
            s.parse().map(MinSupport::Count).map_err(|_| {
                format!(
                    "{s} is out of range: an absolute support is a count from 1 to {}",
                    u32::MAX
                )
            })?
        } else {
            s.parse().map(MinSupport::Fraction).map_err(|_| bad())?
        };
        // Refused where it is written, so that every option taking a support (mine's -s,
        // coherence's --nugget-support, …) accepts and refuses exactly the same values.
        match support.check() {
            Ok(()) => Ok(support),
            Err(ParamError::OutOfRange { reason, .. }) => {
                Err(format!("{s} is out of range: {reason}"))
            }
            Err(e) => Err(e.to_string()),
        }
    }
}

fn check_limit(limit: u64) -> Result<(), ParamError> {
    if limit == 0 {
        return Err(ParamError::OutOfRange {
            name: "limit",
            value: "0".into(),
            reason: "must be at least 1",
        });
    }
    Ok(())
}

/// Parameters of frequent-itemset mining; build with [`MiningParams::new`], validate with
/// [`MiningParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct MiningParams {
    min_support: MinSupport,
    min_len: usize,
    max_len: Option<usize>,
    limit: u64,
    progress: Option<Progress>,
}

/// Checked [`MiningParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct ValidMiningParams(MiningParams);

/// Default listing limit: 50 million itemsets, about 2 GB in memory at 10 items each.
pub const DEFAULT_LIMIT: u64 = 50_000_000;

impl MiningParams {
    /// Mining at `min_support`.
    pub fn new(min_support: MinSupport) -> Self {
        Self { min_support, min_len: 1, max_len: None, limit: DEFAULT_LIMIT, progress: None }
    }

    /// Reports FP-Growth's search to `progress`: the total is the FP-tree's nodes, and each
    /// first-level item's conditional search advances it by the item's nodes once done (the
    /// work of a branch grows with them). The caller names the phase. Apriori reports nothing.
    pub fn progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Smallest itemset length reported (default 1; 0 also reports the empty itemset, whose
    /// support is the number of transactions).
    pub fn min_len(mut self, min_len: usize) -> Self {
        self.min_len = min_len;
        self
    }

    /// Largest itemset length reported (default: no bound). The miners also stop searching
    /// beyond it, which is what makes a bounded run cheap.
    pub fn max_len(mut self, max_len: Option<usize>) -> Self {
        self.max_len = max_len;
        self
    }

    /// Most itemsets a listing may hold before it fails with
    /// [`MiningError::LimitExceeded`](crate::MiningError::LimitExceeded) (default
    /// [`DEFAULT_LIMIT`]). Counting is not limited.
    pub fn limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for a zero count, a fraction outside `(0, 1]`, a maximum
    /// length of 0 or below the minimum length, or a zero limit.
    pub fn check(self) -> Result<ValidMiningParams, ParamError> {
        self.min_support.check()?;
        if let Some(max) = self.max_len
            && (max == 0 || max < self.min_len)
        {
            return Err(ParamError::OutOfRange {
                name: "max-len",
                value: max.to_string(),
                reason: "must be at least 1 and at least min-len",
            });
        }
        check_limit(self.limit)?;
        Ok(ValidMiningParams(self))
    }
}

impl ValidMiningParams {
    /// The minimum support as given.
    pub fn min_support(&self) -> MinSupport {
        self.0.min_support
    }

    /// Smallest reported length.
    pub fn min_len(&self) -> usize {
        self.0.min_len
    }

    /// Largest reported length, `usize::MAX` when unbounded.
    pub fn max_len(&self) -> usize {
        self.0.max_len.unwrap_or(usize::MAX)
    }

    /// The listing limit.
    pub fn limit(&self) -> u64 {
        self.0.limit
    }

    /// Where the search reports how far it has come, if anywhere.
    pub fn progress_handle(&self) -> Option<&Progress> {
        self.0.progress.as_ref()
    }

    /// The same parameters without length bounds (maximal and closed itemsets need the whole
    /// lattice).
    pub(crate) fn unbounded(&self) -> Self {
        Self(MiningParams { min_len: 0, max_len: None, ..self.0.clone() })
    }
}

/// Parameters of association-rule generation; build with [`RuleParams::new`], validate with
/// [`RuleParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct RuleParams {
    min_confidence: f64,
    min_len: usize,
    max_len: Option<usize>,
    limit: u64,
}

/// Checked [`RuleParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct ValidRuleParams(RuleParams);

impl RuleParams {
    /// Rules of confidence at least `min_confidence`, in `[0, 1]`.
    pub fn new(min_confidence: f64) -> Self {
        Self { min_confidence, min_len: 2, max_len: None, limit: DEFAULT_LIMIT }
    }

    /// Smallest `|X ∪ Y|` (default 2, the smallest possible).
    pub fn min_len(mut self, min_len: usize) -> Self {
        self.min_len = min_len;
        self
    }

    /// Largest `|X ∪ Y|` (default: no bound).
    pub fn max_len(mut self, max_len: Option<usize>) -> Self {
        self.max_len = max_len;
        self
    }

    /// Most rules a listing may hold (default [`DEFAULT_LIMIT`]).
    pub fn limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for a confidence outside `[0, 1]`, a maximum length below 2 or
    /// below the minimum, or a zero limit.
    pub fn check(self) -> Result<ValidRuleParams, ParamError> {
        if !(0.0..=1.0).contains(&self.min_confidence) {
            return Err(ParamError::OutOfRange {
                name: "confidence",
                value: self.min_confidence.to_string(),
                reason: "must lie in [0, 1]",
            });
        }
        if let Some(max) = self.max_len
            && (max < 2 || max < self.min_len)
        {
            return Err(ParamError::OutOfRange {
                name: "max-len",
                value: max.to_string(),
                reason: "a rule has at least 2 items, and max-len must be at least min-len",
            });
        }
        check_limit(self.limit)?;
        Ok(ValidRuleParams(self))
    }
}

impl ValidRuleParams {
    /// Minimum confidence.
    pub fn min_confidence(&self) -> f64 {
        self.0.min_confidence
    }

    /// Smallest `|X ∪ Y|`, at least 2.
    pub fn min_len(&self) -> usize {
        self.0.min_len.max(2)
    }

    /// Largest `|X ∪ Y|`, `usize::MAX` when unbounded.
    pub fn max_len(&self) -> usize {
        self.0.max_len.unwrap_or(usize::MAX)
    }

    /// The listing limit.
    pub fn limit(&self) -> u64 {
        self.0.limit
    }
}
