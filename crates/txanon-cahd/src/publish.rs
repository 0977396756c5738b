//! The published groups: each group's QID itemsets and its sensitive items' counts.

use rand::Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};
use txanon_data::{ItemId, TransactionDb};

/// Identifies the format in its JSON.
pub const GROUPS_FORMAT: &str = "txanon-cahd-groups/1";

/// CAHD's publication: groups in random order; in each, the QID items of every transaction
/// (transactions in random order) and how often each sensitive item occurs in the group, so a
/// sensitive item cannot be tied to one transaction of its group with probability above
/// `count / |G| ≤ 1/p`.
///
/// JSON: `{"format":"txanon-cahd-groups/1","p":2,"sensitive":["Viagra","Pregnancy Test"],
/// "groups":[{"qid":[["Wine","Meat"],["Wine","Meat"]],"sensitive":[["Viagra",1]]}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedGroups {
    /// Always [`GROUPS_FORMAT`].
    pub format: String,
    /// The privacy degree claimed.
    pub p: usize,
    /// The sensitive items (labels), sorted.
    pub sensitive: Vec<String>,
    /// The groups, in random order.
    pub groups: Vec<PublishedGroup>,
}

/// One published group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedGroup {
    /// The QID items of each transaction, in random order of transactions.
    pub qid: Vec<Vec<String>>,
    /// `(sensitive item, occurrences in the group)`, sorted by item, counts at least 1.
    pub sensitive: Vec<(String, usize)>,
}

impl PublishedGroups {
    /// As compact JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("groups serialize")
    }

    /// Reads published groups from JSON.
    ///
    /// # Errors
    /// [`serde_json::Error`] for malformed JSON.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Published transactions.
    pub fn records(&self) -> usize {
        self.groups.iter().map(|g| g.qid.len()).sum()
    }

    /// The QID transactions, group after group in published order, over `db`'s dictionary
    /// (the form mining tools read).
    ///
    /// # Errors
    /// The first QID label that is not an item of `db`.
    pub fn qid_transactions(&self, db: &TransactionDb) -> Result<TransactionDb, String> {
        let rows = self
            .groups
            .iter()
            .flat_map(|group| &group.qid)
            .map(|t| {
                t.iter().map(|label| db.labels().find(label).ok_or_else(|| label.clone())).collect()
            })
            .collect::<Result<Vec<Vec<ItemId>>, String>>()?;
        Ok(TransactionDb::from_rows(rows, db.labels().clone()))
    }
}

/// Publishes `groups` (transaction indices of `db`): groups shuffled, transactions shuffled
/// within each group, by `rng`.
pub(crate) fn publish(
    db: &TransactionDb,
    is_sensitive: &[bool],
    groups: &[Vec<u32>],
    p: usize,
    rng: &mut impl Rng,
) -> PublishedGroups {
    let label = |i: ItemId| db.label(i).to_string();
    let mut sensitive: Vec<String> =
        (0..db.num_items() as ItemId).filter(|&i| is_sensitive[i as usize]).map(label).collect();
    sensitive.sort();
    let mut published: Vec<PublishedGroup> = groups
        .iter()
        .map(|members| {
            let mut members = members.clone();
            members.shuffle(rng);
            let mut counts: Vec<(ItemId, usize)> = Vec::new();
            let qid = members
                .iter()
                .map(|&t| {
                    let mut q = Vec::new();
                    for &i in db.transaction(t as usize) {
                        if is_sensitive[i as usize] {
                            match counts.iter_mut().find(|(s, _)| *s == i) {
                                Some((_, c)) => *c += 1,
                                None => counts.push((i, 1)),
                            }
                        } else {
                            q.push(label(i));
                        }
                    }
                    q
                })
                .collect();
            let mut sensitive: Vec<(String, usize)> =
                counts.into_iter().map(|(s, c)| (label(s), c)).collect();
            sensitive.sort();
            PublishedGroup { qid, sensitive }
        })
        .collect();
    published.shuffle(rng);
    PublishedGroups { format: GROUPS_FORMAT.into(), p, sensitive, groups: published }
}
