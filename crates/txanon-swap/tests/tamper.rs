//! The audit against swap publications broken on purpose: the original republished as itself
//! under every method, keys undone, items added, lost or renamed, records duplicated or
//! truncated, baselines' structures broken; and random single edits against a brute-force
//! reading of the definition.

use proptest::prelude::*;
use txanon_data::{Categorized, ItemCategories, TransactionDb, random_categories};
use txanon_swap::{
    Method, SwapClaim, SwapError, SwapParams, SwapPublication, SwapViolation, anonymize, audit,
};

/// Random records over 24 items in 3 categories, with records of each kind: a category above
/// the mean, one category only, and none.
fn data() -> (TransactionDb, ItemCategories) {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    };
    let rows: Vec<Vec<u32>> = (0..120)
        .map(|_| {
            let len = 2 + next(5) as usize;
            let mut t: Vec<u32> = (0..len).map(|_| next(24) as u32).collect();
            t.sort_unstable();
            t.dedup();
            t
        })
        .collect();
    let db = TransactionDb::from_int_transactions(rows);
    let cats = random_categories(&db, 3, 5).unwrap();
    (db, cats)
}

fn rows(db: &TransactionDb) -> Vec<Vec<u32>> {
    db.iter()
        .map(|t| t.iter().map(|&i| db.label(i).to_string().parse().unwrap()).collect())
        .collect()
}

fn publish(method: Method, db: &TransactionDb, cats: &ItemCategories) -> SwapPublication {
    let params = SwapParams::new(method).seed(Some(3)).max_exposed(usize::MAX).check().unwrap();
    anonymize(Categorized::new(db, cats).unwrap(), &params).unwrap()
}

fn run(
    original: &TransactionDb,
    published: &[Vec<u32>],
    key: &[u32],
    cats: &ItemCategories,
    claim: SwapClaim,
) -> Result<txanon_swap::SwapAuditReport, SwapError> {
    let published = TransactionDb::from_int_transactions(published.iter().cloned());
    audit(Categorized::new(original, cats)?, &published, key, &claim)
}

/// The tamper assertion of every suite ([`txanon_testkit::rejects!`]) for this family's contract.
macro_rules! rejects {
    ($run:expr, $pattern:pat) => {
        txanon_testkit::rejects!($run, txanon_swap::Swap, $pattern)
    };
}

#[test]
fn the_data_has_every_kind_of_record() {
    let (db, cats) = data();
    let s = publish(Method::PartSwap, &db, &cats);
    assert!(s.audit.with_tendency > 10 && s.audit.single_category > 3, "{:?}", s.audit);
    assert!(s.audit.with_tendency + s.audit.single_category < db.len());
}

#[test]
fn the_identity_publication_fails_under_every_method() {
    let (db, cats) = data();
    let identity: Vec<u32> = (0..db.len() as u32).collect();
    for method in Method::ALL {
        let result = run(&db, &rows(&db), &identity, &cats, SwapClaim::new(method));
        assert!(matches!(result, Err(SwapError::Audit(_))), "{method:?}: {result:?}");
    }
}

#[test]
fn tampered_publications_are_rejected() {
    let (db, cats) = data();
    use SwapViolation as V;
    let s = publish(Method::PartSwap, &db, &cats);
    // Records with no eligible partner stay exposed; the auditor allows exactly those.
    let claim = SwapClaim::new(Method::PartSwap).max_exposed(s.audit.exposed);
    let good = rows(&s.published);
    run(&db, &good, s.key(), &cats, claim).unwrap();
    // 1. One swap undone in the key: each record now claims the other's published record,
    // which holds its own tendency items.
    let (t, c) = s.pairs[0];
    let undone: Vec<u32> = s
        .key()
        .iter()
        .map(|&k| {
            if k == t {
                c
            } else if k == c {
                t
            } else {
                k
            }
        })
        .collect();
    rejects!(run(&db, &good, &undone, &cats, claim), V::Exposed { .. });
    // 2. An item added.
    let mut added = good.clone();
    let fresh = (0..24).find(|i| !added[0].contains(i)).unwrap();
    added[0].push(fresh);
    rejects!(run(&db, &added, s.key(), &cats, claim), V::OccurrencesGained { .. });
    // 3. An item dropped.
    let mut dropped = good.clone();
    let j = dropped.iter().position(|t| !t.is_empty()).unwrap();
    dropped[j].pop();
    rejects!(run(&db, &dropped, s.key(), &cats, claim), V::OccurrencesLost { .. });
    // 4. An item renamed to one the original does not have.
    let mut renamed = good.clone();
    renamed[j][0] = 777;
    rejects!(run(&db, &renamed, s.key(), &cats, claim), V::ItemNotInOriginal { .. });
    // 5. A key one entry short.
    rejects!(run(&db, &good, &s.key()[1..], &cats, claim), V::KeyLength { .. });
    // 7. Two items exchanged between two records the method left alone, each of a category
    // its record did not swap: every count is kept and no tendency shows, but each record
    // lost an item it never gave away.
    let original = rows(&db);
    let cat = |i: u32| cats.category(db.labels().find(&i.to_string()).unwrap());
    let light = |t: &[u32], x: u32| {
        let weight = |c: u32| t.iter().filter(|&&i| cat(i) == c).count();
        let heaviest = t.iter().map(|&i| weight(cat(i))).max().unwrap_or(0);
        weight(cat(x)) < heaviest
    };
    let unchanged: Vec<usize> =
        (0..good.len()).filter(|&q| good[q] == original[s.key()[q] as usize]).collect();
    let exchange = unchanged.iter().find_map(|&p| {
        unchanged.iter().filter(|&&q| q != p).find_map(|&q| {
            good[p].iter().filter(|&&x| !good[q].contains(&x) && light(&good[p], x)).find_map(
                |&x| {
                    good[q]
                        .iter()
                        .find(|&&y| !good[p].contains(&y) && cat(y) != cat(x) && light(&good[q], y))
                        .map(|&y| (p, q, x, y))
                },
            )
        })
    });
    let (p, q, x, y) = exchange.expect("two untouched records with light items to exchange");
    let mut exchanged = good.clone();
    exchanged[p].retain(|&i| i != x);
    exchanged[p].push(y);
    exchanged[q].retain(|&i| i != y);
    exchanged[q].push(x);
    rejects!(run(&db, &exchanged, s.key(), &cats, claim), V::ChangedOutsideSwap { .. });
    // 6. A key entry naming no record.
    let mut far = s.key().to_vec();
    far[0] = db.len() as u32 + 5;
    rejects!(run(&db, &good, &far, &cats, claim), V::KeyOutOfRange { .. });
    // 7. A key naming one record twice (and another never).
    let mut twice = s.key().to_vec();
    twice[1] = twice[0];
    rejects!(run(&db, &good, &twice, &cats, claim), V::PublishedTwice { .. });
    rejects!(run(&db, &good, &twice, &cats, claim), V::NotPublished { .. });
    // 8. A record duplicated, key and all.
    let (mut dup, mut dup_key) = (good.clone(), s.key().to_vec());
    dup.push(good[0].clone());
    dup_key.push(s.key()[0]);
    rejects!(run(&db, &dup, &dup_key, &cats, claim), V::PublishedTwice { .. });
    // 9. The publication truncated.
    rejects!(
        run(&db, &good[..good.len() - 1], &s.key()[..good.len() - 1], &cats, claim),
        V::NotPublished { .. }
    );
    // 10. A record without tendency changed: its items exchanged with another's.
    let none = (0..db.len())
        .find(|&o| {
            let t = db.transaction(o);
            let mut w = [0usize; 3];
            for &i in t {
                w[cats.category(i) as usize] += 1;
            }
            let present = w.iter().filter(|&&x| x > 0).count();
            t.len() >= 2 && present >= 2 && w.iter().all(|&x| x == 0 || x * present == t.len())
        })
        .expect("a record without tendency");
    let p = s.key().iter().position(|&k| k as usize == none).unwrap();
    let mut changed = good.clone();
    changed[p].pop();
    let q = (0..good.len()).find(|&q| q != p && !changed[q].is_empty()).unwrap();
    let moved = good[p].last().copied().unwrap();
    if !changed[q].contains(&moved) {
        changed[q].push(moved);
    }
    rejects!(run(&db, &changed, s.key(), &cats, claim), V::ChangedWithoutTendency { .. });
    // 11. The original republished under the claim of both swappings.
    let identity: Vec<u32> = (0..db.len() as u32).collect();
    rejects!(
        run(&db, &rows(&db), &identity, &cats, SwapClaim::new(Method::PartAndFullSwap)),
        V::Exposed { .. }
    );
    // 12. Partial swapping audited as both swappings: single-category records still exposed.
    rejects!(
        run(&db, &good, s.key(), &cats, SwapClaim::new(Method::PartAndFullSwap)),
        V::Exposed { .. }
    );
    // 13. A swap undone in the data: both records published as they were. Left unswapped,
    // they are excused only for want of a partner, and they had one: each other.
    let mut unswapped = good.clone();
    for (p, &o) in s.key().iter().enumerate() {
        if o == t || o == c {
            unswapped[p] = rows(&db)[o as usize].clone();
        }
    }
    rejects!(run(&db, &unswapped, s.key(), &cats, claim), V::CouldHaveSwapped { .. });
    rejects!(run(&db, &unswapped, s.key(), &cats, claim), V::Exposed { .. });
    // The records this run left unswapped could not have swapped with each other.
    assert_eq!(s.audit.exposed_unmatched, s.stats.unmatched, "{:?}", s.audit);
}

#[test]
fn tampered_baselines_are_rejected() {
    let (db, cats) = data();
    use SwapViolation as V;
    // PartSupp.
    let claim = SwapClaim::new(Method::PartSupp);
    let s = publish(Method::PartSupp, &db, &cats);
    let good = rows(&s.published);
    run(&db, &good, s.key(), &cats, claim).unwrap();
    // 14. A record published whole: its tendency items not suppressed.
    let p = (0..good.len())
        .find(|&p| good[p].len() < db.transaction(s.key()[p] as usize).len())
        .unwrap();
    let mut whole = good.clone();
    whole[p] = rows(&db)[s.key()[p] as usize].clone();
    rejects!(run(&db, &whole, s.key(), &cats, claim), V::NotSuppressedAsClaimed { .. });
    // 15. Another category suppressed than the tendency's.
    let mut wrong = good.clone();
    let original = rows(&db)[s.key()[p] as usize].clone();
    let kept_category = cats.category(db.labels().find(&good[p][0].to_string()).unwrap());
    wrong[p] = original
        .iter()
        .copied()
        .filter(|&i| cats.category(db.labels().find(&i.to_string()).unwrap()) != kept_category)
        .collect();
    rejects!(run(&db, &wrong, s.key(), &cats, claim), V::NotSuppressedAsClaimed { .. });
    // SplitPerson.
    let claim = SwapClaim::new(Method::SplitPerson);
    let s = publish(Method::SplitPerson, &db, &cats);
    let good = rows(&s.published);
    run(&db, &good, s.key(), &cats, claim).unwrap();
    // 16. Two pieces of one person merged back.
    let person =
        (0..db.len() as u32).find(|&o| s.key().iter().filter(|&&k| k == o).count() >= 2).unwrap();
    let pieces: Vec<usize> = (0..good.len()).filter(|&p| s.key()[p] == person).collect();
    let (mut merged, mut merged_key) = (good.clone(), s.key().to_vec());
    let second = merged[pieces[1]].clone();
    merged[pieces[0]].extend(second);
    merged.remove(pieces[1]);
    merged_key.remove(pieces[1]);
    rejects!(run(&db, &merged, &merged_key, &cats, claim), V::NotASplit { .. });
    // 17. A piece dropped.
    let (mut short, mut short_key) = (good.clone(), s.key().to_vec());
    short.remove(pieces[1]);
    short_key.remove(pieces[1]);
    rejects!(run(&db, &short, &short_key, &cats, claim), V::NotASplit { .. });
    rejects!(run(&db, &short, &short_key, &cats, claim), V::OccurrencesLost { .. });
    // FullSwap.
    let claim = SwapClaim::new(Method::FullSwap);
    // The run itself passes; the tampering below starts from the original.
    let s = publish(Method::FullSwap, &db, &cats);
    run(&db, &rows(&s.published), s.key(), &cats, claim.max_exposed(usize::MAX)).unwrap();
    // 18. Two single-category records of one category exchanged: still showing it.
    let single_of = |t: &Vec<u32>| -> Option<u32> {
        let cs: std::collections::BTreeSet<u32> =
            t.iter().map(|i| cats.category(db.labels().find(&i.to_string()).unwrap())).collect();
        (t.len() >= 2 && cs.len() == 1).then(|| *cs.first().unwrap())
    };
    let originals = rows(&db);
    let singles: Vec<usize> =
        (0..originals.len()).filter(|&o| single_of(&originals[o]).is_some()).collect();
    let pair =
        singles.iter().flat_map(|&a| singles.iter().map(move |&b| (a, b))).find(|&(a, b)| {
            a < b
                && single_of(&originals[a]) == single_of(&originals[b])
                && originals[a] != originals[b]
        });
    let (a, b) = pair.expect("two single-category records of one category in the data");
    // From the original, a and b exchanged whole: occurrences kept, both changed, both still
    // showing their one category: a false full swap.
    let mut same = originals.clone();
    same.swap(a, b);
    let identity: Vec<u32> = (0..originals.len() as u32).collect();
    rejects!(run(&db, &same, &identity, &cats, claim), V::Exposed { .. });
    // 19. RandSwap: its exposure counts against the allowance like any other's.
    let s = publish(Method::RandSwap, &db, &cats);
    let audit = run(
        &db,
        &rows(&s.published),
        s.key(),
        &cats,
        SwapClaim::new(Method::RandSwap).max_exposed(usize::MAX),
    )
    .unwrap();
    assert!(audit.exposed > 0, "random partners expose some records on this data");
    rejects!(
        run(&db, &rows(&s.published), s.key(), &cats, SwapClaim::new(Method::RandSwap)),
        V::Exposed { allowed: 0, .. }
    );
    // 20. PartSwap's publication audited as SplitPerson: not a split.
    let s = publish(Method::PartSwap, &db, &cats);
    rejects!(
        run(&db, &rows(&s.published), s.key(), &cats, SwapClaim::new(Method::SplitPerson)),
        V::NotASplit { .. }
    );
}

/// Whether `t` (category per item) shows category `g` as its tendency, by the paper's words:
/// a category above the mean weight (the first of equal ones), or several items of one.
fn shows(t: &[u32], g: u32) -> bool {
    if t.len() < 2 {
        return false;
    }
    let mut w = std::collections::BTreeMap::new();
    for &c in t {
        *w.entry(c).or_insert(0usize) += 1;
    }
    let best = w.values().copied().max().unwrap();
    let first = *w.iter().find(|(_, v)| **v == best).unwrap().0;
    first == g && (w.len() == 1 || best * w.len() > t.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// A random single item edit of a PartSwap publication: rejected, or it still hides every
    /// record's above-mean tendency and keeps every item's count (checked by brute force).
    #[test]
    fn a_random_edit_is_rejected_or_still_hides(
        row in any::<prop::sample::Index>(),
        item in 0u32..24,
    ) {
        let (db, cats) = data();
        let s = publish(Method::PartSwap, &db, &cats);
        let mut published = rows(&s.published);
        let p = row.index(published.len());
        if let Some(k) = published[p].iter().position(|&i| i == item) {
            published[p].remove(k);
        } else {
            published[p].push(item);
        }
        let ok = run(&db, &published, s.key(), &cats, SwapClaim::new(Method::PartSwap)).is_ok();
        let cat = |i: u32| cats.category(db.labels().find(&i.to_string()).unwrap());
        let originals = rows(&db);
        let mut before: Vec<u32> = originals.concat();
        let mut after: Vec<u32> = published.concat();
        before.sort_unstable();
        after.sort_unstable();
        let hides = (0..published.len()).all(|q| {
            let o = &originals[s.key()[q] as usize];
            let oc: Vec<u32> = o.iter().map(|&i| cat(i)).collect();
            let pc: Vec<u32> = published[q].iter().map(|&i| cat(i)).collect();
            let single = oc.iter().all(|&c| c == oc[0]);
            single || (0..3).all(|g| !(shows(&oc, g) && shows(&pc, g)))
        });
        prop_assert!(!ok || (hides && before == after));
    }
}

/// A record whose heaviest categories tie keeps one of them showing after the paper's partial
/// swap: its publication passes the paper's claim and fails the all-ties claim with `Exposed`;
/// the all-ties publication passes both, and PartSupp under all ties must delete every tied
/// category (deleting the first only is `NotSuppressedAsClaimed`).
#[test]
fn the_first_of_tied_categories_is_not_all_of_them() {
    use SwapViolation as V;
    use txanon_swap::Ties;
    let (db, cats) = data();
    let mut scratch = Vec::new();
    let tied = db
        .iter()
        .filter(|t| !txanon_swap::tied_categories(t, cats.categories(), &mut scratch).is_empty())
        .count();
    assert!(tied > 5, "the data has records whose heaviest categories tie: {tied}");
    let with = |method: Method, ties: Ties| {
        let params = SwapParams::new(method)
            .seed(Some(3))
            .max_exposed(usize::MAX)
            .ties(ties)
            .check()
            .unwrap();
        anonymize(Categorized::new(&db, &cats).unwrap(), &params).unwrap()
    };
    let claim = |method, ties, s: &SwapPublication| {
        SwapClaim::new(method).ties(ties).max_exposed(s.audit.exposed)
    };
    let first = with(Method::PartSwap, Ties::First);
    let all = with(Method::PartSwap, Ties::All);
    // Each passes its own claim with what it exposes; the all-ties run exposes nothing that a
    // partner could have hidden.
    assert_eq!(all.audit.exposed, 0, "{:?}", all.audit);
    run(
        &db,
        &rows(&first.published),
        first.key(),
        &cats,
        claim(Method::PartSwap, Ties::First, &first),
    )
    .unwrap();
    run(&db, &rows(&all.published), all.key(), &cats, claim(Method::PartSwap, Ties::All, &all))
        .unwrap();
    // The paper's publication under the stricter claim, allowing only what it allowed before.
    rejects!(
        run(
            &db,
            &rows(&first.published),
            first.key(),
            &cats,
            claim(Method::PartSwap, Ties::All, &first)
        ),
        V::Exposed { .. }
    );
    let supp = with(Method::PartSupp, Ties::First);
    rejects!(
        run(
            &db,
            &rows(&supp.published),
            supp.key(),
            &cats,
            SwapClaim::new(Method::PartSupp).ties(Ties::All).max_exposed(usize::MAX)
        ),
        V::NotSuppressedAsClaimed { .. }
    );
    let supp_all = with(Method::PartSupp, Ties::All);
    assert_eq!(supp_all.audit.exposed, 0, "{:?}", supp_all.audit);
    assert!(supp_all.stats.suppressed > supp.stats.suppressed);
}

/// The audit checks the records in blocks of 16,384 on rayon: over 50,000 records, pairs
/// undone in the key in the first and last blocks are all counted, and the violation names
/// the first of them in record order, whichever block finished first.
#[test]
fn undone_swaps_across_the_audits_blocks_are_counted_and_named_in_order() {
    use SwapViolation as V;
    let db =
        txanon_data::QuestParams::new(50_000, 6.0, 3.0, 400).seed(9).check().unwrap().generate();
    let cats = random_categories(&db, 10, 2).unwrap();
    let s = publish(Method::PartSwap, &db, &cats);
    let claim = SwapClaim::new(Method::PartSwap).max_exposed(s.audit.exposed);
    let published = rows(&s.published);
    run(&db, &published, s.key(), &cats, claim).unwrap();
    // Three pairs with both records in the last block, then three with both in the first:
    // the sequential order of the records is the reverse of the order they are undone in.
    let last: Vec<(u32, u32)> =
        s.pairs.iter().copied().filter(|&(t, c)| t.min(c) >= 40_000).take(3).collect();
    let first: Vec<(u32, u32)> =
        s.pairs.iter().copied().filter(|&(t, c)| t.max(c) < 16_384).take(3).collect();
    assert_eq!((last.len(), first.len()), (3, 3));
    let undone: Vec<(u32, u32)> = last.iter().chain(&first).copied().collect();
    let partner = |k: u32| {
        undone.iter().find_map(|&(t, c)| {
            if k == t {
                Some(c)
            } else if k == c {
                Some(t)
            } else {
                None
            }
        })
    };
    let key: Vec<u32> = s.key().iter().map(|&k| partner(k).unwrap_or(k)).collect();
    // Which undone records now show their tendency, by the definition (`shows`).
    let cat = |i: u32| cats.category(db.labels().find(&i.to_string()).unwrap());
    let originals = rows(&db);
    let categories = |t: &[u32]| t.iter().map(|&i| cat(i)).collect::<Vec<u32>>();
    let expected: Vec<usize> = (0..published.len())
        .filter(|&q| partner(key[q]).is_some())
        .filter(|&q| {
            let (oc, pc) = (categories(&originals[key[q] as usize]), categories(&published[q]));
            (0..10).any(|g| shows(&oc, g) && shows(&pc, g))
        })
        .map(|q| key[q] as usize + 1)
        .collect::<std::collections::BTreeSet<usize>>()
        .into_iter()
        .collect();
    assert!(expected.len() > 10 && expected[9] > 40_000, "both blocks expose: {expected:?}");
    let err = run(&db, &published, &key, &cats, claim).unwrap_err();
    let SwapError::Audit(violations) = err else { panic!("{err:?}") };
    let exposed = violations.list().iter().find_map(|v| match v {
        V::Exposed { exposed, first, .. } => Some((*exposed, first.clone())),
        _ => None,
    });
    // The records' own violations come in record order too, from both ends.
    let outside: Vec<usize> = violations
        .list()
        .iter()
        .filter_map(|v| match v {
            V::ChangedOutsideSwap { record, .. } => Some(*record),
            _ => None,
        })
        .collect();
    assert!(outside.is_sorted() && outside[0] <= 16_384 && outside[outside.len() - 1] > 40_000);
    let first = expected[..10].to_vec();
    assert_eq!(exposed, Some((s.audit.exposed + expected.len(), first)), "{violations}");
}
