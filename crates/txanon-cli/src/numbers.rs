//! The one checked parser of numeric options.
//!
//! Every numeric option goes through [`whole`] or [`real`], whose messages name the value and
//! the allowed range; `main` prefixes the option ("--k: 0 is out of range 2..=4294967295"), so
//! a user never sees a parser library's own text ("invalid digit found in string"), and a
//! negative number reaches the parser instead of being taken for an option.

use std::fmt::Display;

/// The integer types numeric options are read into.
pub trait Whole: Copy + Display + Send + Sync + 'static {
    /// The value of `v`, when it fits.
    fn from_wide(v: i128) -> Option<Self>;
    /// `self` widened.
    fn wide(self) -> i128;
}

macro_rules! whole_types {
    ($($t:ty),*) => {$(
        impl Whole for $t {
            fn from_wide(v: i128) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            fn wide(self) -> i128 {
                self as i128
            }
        }
    )*};
}
whole_types!(u8, u32, u64, usize);

/// A whole number in `lo..=hi`.
pub fn whole<T: Whole>(lo: T, hi: T) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync {
    move |s: &str| {
        let text = s.trim();
        let range = format!("{lo}..={hi}");
        match text.parse::<i128>() {
            Ok(v) if v >= lo.wide() && v <= hi.wide() => {
                Ok(T::from_wide(v).expect("inside the type's range"))
            }
            Ok(v) => Err(format!("{v} is out of range {range}")),
            Err(_) if text.parse::<f64>().is_ok_and(f64::is_finite) => {
                Err(format!("{text} is not a whole number in {range}"))
            }
            Err(_) => Err(format!("{s:?} is not a number in {range}")),
        }
    }
}

/// A whole number from 0 to the type's largest (a seed, a count that may be zero).
pub fn any<T: Whole + Bounded>() -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync {
    whole(T::ZERO, T::LARGEST)
}

/// A whole number from 1 to the type's largest (a count that must be positive).
pub fn positive<T: Whole + Bounded>() -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync {
    whole(T::ONE, T::LARGEST)
}

/// The bounds of an integer type.
pub trait Bounded {
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// The largest value.
    const LARGEST: Self;
}

macro_rules! bounded {
    ($($t:ty),*) => {$(
        impl Bounded for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LARGEST: Self = <$t>::MAX;
        }
    )*};
}
bounded!(u8, u32, u64, usize);

/// Whether an end of a [`real`] range is included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The end belongs to the range.
    Closed,
    /// It does not.
    Open,
}

/// A finite real number between `lo` and `hi` (`f64::INFINITY` for no upper bound), each end
/// included or not.
pub fn real(
    lo: f64,
    lo_end: End,
    hi: f64,
    hi_end: End,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |s: &str| {
        let range = format!(
            "{}{lo}, {}{}",
            if lo_end == End::Closed { "[" } else { "(" },
            if hi.is_finite() { hi.to_string() } else { "∞".into() },
            if hi_end == End::Closed && hi.is_finite() { "]" } else { ")" }
        );
        let text = s.trim();
        let v: f64 = text.parse().map_err(|_| format!("{s:?} is not a number in {range}"))?;
        let above = if lo_end == End::Closed { v >= lo } else { v > lo };
        let below = if hi_end == End::Closed { v <= hi } else { v < hi };
        if v.is_finite() && above && below {
            Ok(v)
        } else {
            Err(format!("{text} is out of range {range}"))
        }
    }
}

/// A share: a finite number in (0, 1].
pub fn share() -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    real(0.0, End::Open, 1.0, End::Closed)
}

/// The one-line message of a value a numeric (or other checked) option refused: `--k: 0 is out
/// of range 2..=4294967295`; `None` for any other command-line error, which clap words.
pub fn refusal(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ErrorKind};
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let arg = e.get(ContextKind::InvalidArg)?.to_string();
    let name = arg.split_whitespace().next().unwrap_or(&arg).to_string();
    let why = std::error::Error::source(e)?.to_string();
    Some(format!("{name}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_value_and_the_range() {
        let k = whole(2u64, u64::from(u32::MAX));
        assert_eq!(k("5"), Ok(5));
        assert_eq!(k(" 7 "), Ok(7));
        assert_eq!(k("0").unwrap_err(), "0 is out of range 2..=4294967295");
        assert_eq!(k("-1").unwrap_err(), "-1 is out of range 2..=4294967295");
        assert_eq!(k("99999999999").unwrap_err(), "99999999999 is out of range 2..=4294967295");
        assert_eq!(k("2.5").unwrap_err(), "2.5 is not a whole number in 2..=4294967295");
        assert_eq!(k("abc").unwrap_err(), "\"abc\" is not a number in 2..=4294967295");
        assert_eq!(
            any::<u64>()("123456789012345678901234567890").unwrap_err(),
            "123456789012345678901234567890 is out of range 0..=18446744073709551615"
        );
        let h = share();
        assert_eq!(h("0.4"), Ok(0.4));
        assert_eq!(h("1"), Ok(1.0));
        for bad in ["0", "-1", "1.5", "NaN", "inf"] {
            assert_eq!(h(bad).unwrap_err(), format!("{bad} is out of range (0, 1]"));
        }
        let len = real(0.0, End::Open, f64::INFINITY, End::Open);
        assert_eq!(len("1e400").unwrap_err(), "1e400 is out of range (0, ∞)");
    }
}

/// Every option of every subcommand, given values no number option accepts: a numeric one
/// refuses them through this module (a message naming the range, never a parser library's
/// text), and `-1` is taken as a value, never as an unknown option.
#[cfg(test)]
mod every_option {
    use clap::error::ErrorKind;

    fn leaves(command: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut any = false;
        for sub in command.get_subcommands() {
            any = true;
            let mut p = path.clone();
            p.push(sub.get_name().to_string());
            leaves(sub, p, out);
        }
        if !any {
            out.push(path);
        }
    }

    #[test]
    fn numeric_options_refuse_with_the_range() {
        let root = crate::command();
        let mut paths = Vec::new();
        leaves(&root, Vec::new(), &mut paths);
        let mut numeric = Vec::new();
        for path in &paths {
            let mut command = &root;
            for name in path {
                command = command.find_subcommand(name).unwrap();
            }
            for arg in command.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                if !arg.get_action().takes_values() {
                    continue;
                }
                for value in ["abc", "-1", "1e999", "NaN"] {
                    let mut argv = vec!["txanon".to_string()];
                    argv.extend(path.iter().cloned());
                    argv.push(format!("--{long}"));
                    argv.push(value.into());
                    let Err(e) = root.clone().try_get_matches_from(&argv) else { continue };
                    assert_ne!(e.kind(), ErrorKind::UnknownArgument, "{argv:?}: {e}");
                    if e.kind() == ErrorKind::ValueValidation {
                        let message = super::refusal(&e).expect("a one-line refusal");
                        assert!(message.starts_with(&format!("--{long}: ")), "{message}");
                        assert!(
                            message.contains(" out of range ")
                                || message.contains(" not a number in ")
                                || message.contains(" not a whole number in ")
                                || !message.contains("invalid"),
                            "{argv:?}: {message}"
                        );
                        if value == "abc" && message.contains(" not a number in ") {
                            numeric.push(format!("{} --{long}", path.join(" ")));
                        }
                    }
                }
            }
        }
        numeric.sort();
        numeric.dedup();
        // Every numeric option of the command line went through the checked parser.
        assert!(numeric.len() >= 60, "{} numeric options: {numeric:?}", numeric.len());
    }
}
