//! The one source of the randomness that reaches published data.

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// ChaCha20 seeded from `seed` when given (to reproduce a run), otherwise with the full 256
/// bits of a seed drawn from the operating system, so that an unseeded publication's shuffles
/// cannot be searched for among 2⁶⁴ seeds.
///
/// # Panics
/// When the operating system has no random source (`getrandom` fails).
pub fn publication_rng(seed: Option<u64>) -> ChaCha20Rng {
    match seed {
        Some(seed) => ChaCha20Rng::seed_from_u64(seed),
        None => ChaCha20Rng::from_os_rng(),
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::*;

    #[test]
    fn seeded_runs_repeat_and_unseeded_ones_differ() {
        let (mut a, mut b) = (publication_rng(Some(7)), publication_rng(Some(7)));
        assert_eq!(a.random::<u64>(), b.random::<u64>());
        let (mut c, mut d) = (publication_rng(None), publication_rng(None));
        assert_ne!(
            (c.random::<u128>(), c.random::<u128>()),
            (d.random::<u128>(), d.random::<u128>())
        );
    }
}
