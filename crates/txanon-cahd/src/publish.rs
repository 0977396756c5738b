//! The published groups: each group's QID itemsets and its sensitive items' counts.

use rand::Rng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use txanon_data::fetch::{FIRST_LINE, fetched_ahead};
use txanon_data::{
    ItemId, TransactionDb, TransactionDbBuilder, fetch, push_decimal, write_json_elements,
};

use crate::algorithm::Grouping;

/// Identifies the format in its JSON. Version 2 names every item by its index in one label
/// table (version 1 repeated each label in every transaction: ten million transactions made 10⁸
/// strings in memory and a 717 MB file).
pub const GROUPS_FORMAT: &str = "txanon-cahd-groups/2";

/// CAHD's publication: groups in random order; in each, the QID items of every transaction
/// (transactions in random order) and how often each sensitive item occurs in the group, so a
/// sensitive item cannot be tied to one transaction of its group with probability above
/// `count / |G| ≤ 1/p`. Items are indices into `items`.
///
/// JSON: `{"format":"txanon-cahd-groups/2","p":2,"items":["Meat","Pregnancy Test","Viagra",
/// "Wine"],"sensitive":[1,2],"groups":[{"qid":[[0,3],[0,3]],"sensitive":[[2,1]]}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedGroups {
    /// Always [`GROUPS_FORMAT`].
    pub format: String,
    /// The privacy degree claimed.
    pub p: usize,
    /// The item labels, distinct (in the input's order of labels): an item is named by its
    /// index here.
    pub items: Vec<String>,
    /// The sensitive items, ascending.
    pub sensitive: Vec<u32>,
    /// The groups, in random order.
    pub groups: Vec<PublishedGroup>,
}

/// One published group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedGroup {
    /// The QID items of each transaction (ascending), in random order of transactions.
    pub qid: Vec<Vec<u32>>,
    /// `(sensitive item, occurrences in the group)`, ascending by item, counts at least 1.
    pub sensitive: Vec<(u32, usize)>,
}

impl PublishedGroups {
    /// As compact JSON.
    pub fn to_json(&self) -> String {
        let mut json = Vec::new();
        self.write_json(&mut json).expect("groups serialize");
        String::from_utf8(json).expect("JSON is UTF-8")
    }

    /// Writes the groups as compact JSON, the same bytes as their `Serialize`: the groups are
    /// formatted in blocks on rayon and written in order, a wave at a time (at 10⁷
    /// transactions the file is about 520 MB, and serde formatting it on one thread took
    /// seconds).
    ///
    /// # Errors
    /// Writing to `w`.
    pub fn write_json<W: std::io::Write + ?Sized>(&self, w: &mut W) -> serde_json::Result<()> {
        #[derive(Serialize)]
        struct Head<'a> {
            format: &'a str,
            p: usize,
            items: &'a [String],
            sensitive: &'a [u32],
        }
        let head = Head {
            format: &self.format,
            p: self.p,
            items: &self.items,
            sensitive: &self.sensitive,
        };
        let mut head = serde_json::to_vec(&head)?;
        head.pop(); // the closing brace: the groups follow
        head.extend_from_slice(b",\"groups\":[");
        w.write_all(&head).map_err(serde_json::Error::io)?;
        let pieces = self.pieces();
        let push = |text: &mut Vec<u8>, &(g, start): &(usize, usize)| {
            push_piece(text, &self.groups[g], start);
        };
        write_json_elements(w, &pieces, (PIECES_PER_BLOCK, BLOCKS_PER_WAVE), push)
            .map_err(serde_json::Error::io)?;
        w.write_all(b"]}").map_err(serde_json::Error::io)
    }

    /// The groups as pieces of at most [`ROWS_PER_PIECE`] QID rows, `(group, first row)`, in
    /// order: the final group can hold a fifth of the rows (at 10⁷ transactions with 270
    /// sensitive items), and whole it was formatted by one task while the other cores waited.
    fn pieces(&self) -> Vec<(usize, usize)> {
        let mut pieces = Vec::with_capacity(self.groups.len());
        for (g, group) in self.groups.iter().enumerate() {
            let rows = group.qid.len();
            pieces
                .extend((0..rows.div_ceil(ROWS_PER_PIECE).max(1)).map(|k| (g, k * ROWS_PER_PIECE)));
        }
        pieces
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

    /// The label of item `id`, or `#id` for an index outside the table (a broken file).
    pub fn label(&self, id: u32) -> String {
        match self.items.get(id as usize) {
            Some(label) => label.clone(),
            None => format!("#{id}"),
        }
    }

    /// The index of the item labelled `label` (a scan of the table).
    pub fn id(&self, label: &str) -> Option<u32> {
        self.items.iter().position(|l| l == label).map(|k| k as u32)
    }

    /// Each item of the table as an item of `db` (by label), looked up once.
    ///
    /// # Errors
    /// The first label that is not an item of `db`.
    pub fn ids_in(&self, db: &TransactionDb) -> Result<Vec<ItemId>, String> {
        self.items
            .iter()
            .map(|label| db.labels().find(label).ok_or_else(|| label.clone()))
            .collect()
    }

    /// The QID transactions, group after group in published order, over `db`'s dictionary
    /// (the form mining tools read).
    ///
    /// # Errors
    /// The first label of the table that is not an item of `db`, or an index outside it.
    pub fn qid_transactions(&self, db: &TransactionDb) -> Result<TransactionDb, String> {
        let at = self.ids_in(db)?;
        let mut rows = TransactionDbBuilder::with_capacity(
            self.records(),
            self.groups.iter().flat_map(|g| &g.qid).map(Vec::len).sum(),
        );
        let mut row = Vec::new();
        for t in self.groups.iter().flat_map(|g| &g.qid) {
            row.clear();
            for &k in t {
                row.push(*at.get(k as usize).ok_or_else(|| self.label(k))?);
            }
            row.sort_unstable();
            rows.extend_row(&row);
            rows.end_row();
        }
        Ok(rows.finish(db.labels().clone()))
    }
}

/// Groups whose rows are built per rayon task while the grouping goes on (of ten rows each, at
/// CAHD's usual degree): worth a steal, and the last task, built after the grouping, is short.
/// Fewer under test, so that a test's groups cross tasks.
const GROUPS_PER_TASK: usize = if cfg!(test) { 3 } else { 4096 };
/// Rows of one group built per rayon task (the final group's); fewer under test.
const ROWS_PER_PART: usize = if cfg!(test) { 3 } else { 1 << 16 };
/// QID rows of a group formatted as one piece when written ([`PublishedGroups::pieces`]): a
/// group of up to 64 rows is one piece. Fewer under test, so that a test's groups are split.
const ROWS_PER_PIECE: usize = if cfg!(test) { 3 } else { 64 };
/// Pieces formatted per rayon task when written; fewer under test, so that a test's pieces
/// cross blocks and waves.
const PIECES_PER_BLOCK: usize = if cfg!(test) { 4 } else { 1024 };
/// Blocks per wave: the wave's text is held at once, and written while the next wave is
/// formatted (some 20 MB at 10⁷ records; a wave of 260,000 groups was most of the file, formatted
/// whole before a byte was written).
const BLOCKS_PER_WAVE: usize = if cfg!(test) { 2 } else { 16 };

/// Appends the piece of `group` from QID row `start` as `Serialize` writes the group compact,
/// `{"qid":[[0,3],[0,3]],"sensitive":[[2,1]]}`: the group's opening with its first piece and
/// its closing with its last. Pieces follow each other after a comma, as the group's rows do.
fn push_piece(text: &mut Vec<u8>, group: &PublishedGroup, start: usize) {
    let rows = &group.qid[start..(start + ROWS_PER_PIECE).min(group.qid.len())];
    if start == 0 {
        text.extend_from_slice(b"{\"qid\":[");
    }
    for (k, row) in rows.iter().enumerate() {
        // Each row is an allocation of its own: a batch's first lines are loaded together
        // rather than each waited on in turn.
        if k % fetch::BATCH == 0 {
            let batch = rows[k..(k + fetch::BATCH).min(rows.len())].iter();
            fetch::fetch_each(batch, |row| row, fetch::FIRST_LINE);
        }
        if k > 0 {
            text.push(b',');
        }
        push_list(text, row.iter().map(|&i| u64::from(i)));
    }
    if start + rows.len() < group.qid.len() {
        return;
    }
    text.extend_from_slice(b"],\"sensitive\":[");
    for (k, &(item, count)) in group.sensitive.iter().enumerate() {
        if k > 0 {
            text.push(b',');
        }
        push_list(text, [u64::from(item), count as u64].into_iter());
    }
    text.extend_from_slice(b"]}");
}

/// Appends `values` as a JSON array of numbers.
fn push_list(text: &mut Vec<u8>, values: impl Iterator<Item = u64>) {
    text.push(b'[');
    for (k, v) in values.enumerate() {
        if k > 0 {
            text.push(b',');
        }
        push_decimal(text, v);
    }
    text.push(b']');
}

/// Publishes `groups` (transaction indices of `db`): groups shuffled, transactions shuffled
/// within each group, by `rng`. The table is `db`'s labels, so an item's index is its id.
pub(crate) fn publish(
    db: &TransactionDb,
    is_sensitive: &[bool],
    groups: &[Vec<u32>],
    p: usize,
    rng: &mut impl Rng,
) -> PublishedGroups {
    // The shuffles draw from `rng` in the order they always did (each group's members, then
    // the groups); the rows, read where the band order scattered them, are then built on
    // rayon, each group's rows fetched ahead.
    let shuffled: Vec<Vec<u32>> = groups.iter().map(|members| shuffled(members, rng)).collect();
    let published = shuffled
        .par_iter()
        .map_init(|| GroupRows::new(db, is_sensitive), |rows, members| rows.of_any(members))
        .collect();
    finish(db, is_sensitive, p, published, rng)
}

/// [`publish`] of the groups that `grouping` forms, each group's rows built on rayon's other
/// threads while `grouping` goes on: `grouping` hands each group to its sink as it is formed
/// and returns them all, and those it did not hand over are published after it. The rows, the
/// shuffles and their draws from `rng` are [`publish`]'s.
pub(crate) fn publish_while(
    db: &TransactionDb,
    is_sensitive: &[bool],
    p: usize,
    rng: &mut impl Rng,
    grouping: impl FnOnce(&mut dyn FnMut(&[u32])) -> Grouping,
) -> (Grouping, PublishedGroups) {
    let batches = std::sync::Mutex::new(Vec::<(usize, Vec<PublishedGroup>)>::new());
    let (grouped, streamed) = rayon::in_place_scope(|scope| {
        let mut batch: Vec<Vec<u32>> = Vec::with_capacity(GROUPS_PER_TASK);
        let (mut streamed, mut index) = (0, 0);
        let spawn = |batch: Vec<Vec<u32>>, index: usize| {
            let batches = &batches;
            scope.spawn(move |_| {
                let mut rows = GroupRows::new(db, is_sensitive);
                let built = batch.iter().map(|members| rows.of(members)).collect();
                batches
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push((index, built));
            });
        };
        let grouped = grouping(&mut |members| {
            batch.push(shuffled(members, rng));
            streamed += 1;
            if batch.len() == GROUPS_PER_TASK {
                spawn(std::mem::replace(&mut batch, Vec::with_capacity(GROUPS_PER_TASK)), index);
                index += 1;
            }
        });
        if !batch.is_empty() {
            spawn(batch, index);
        }
        (grouped, streamed)
    });
    let mut batches = batches.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    batches.sort_unstable_by_key(|b| b.0);
    let mut published: Vec<PublishedGroup> = batches.into_iter().flat_map(|b| b.1).collect();
    let rest: Vec<Vec<u32>> =
        grouped.groups()[streamed..].iter().map(|members| shuffled(members, rng)).collect();
    published.par_extend(
        rest.par_iter()
            .map_init(|| GroupRows::new(db, is_sensitive), |rows, members| rows.of_any(members)),
    );
    (grouped, finish(db, is_sensitive, p, published, rng))
}

/// A group's members in random order.
fn shuffled(members: &[u32], rng: &mut impl Rng) -> Vec<u32> {
    let mut members = members.to_vec();
    members.shuffle(rng);
    members
}

/// The groups in random order, with the item table.
fn finish(
    db: &TransactionDb,
    is_sensitive: &[bool],
    p: usize,
    mut published: Vec<PublishedGroup>,
    rng: &mut impl Rng,
) -> PublishedGroups {
    published.shuffle(rng);
    let sensitive = (0..db.num_items() as ItemId).filter(|&i| is_sensitive[i as usize]).collect();
    let items = (0..db.num_items() as ItemId).map(|i| db.label(i).to_string()).collect();
    PublishedGroups { format: GROUPS_FORMAT.into(), p, items, sensitive, groups: published }
}

/// Builds groups' rows from their members (in their published order).
struct GroupRows<'a> {
    db: &'a TransactionDb,
    is_sensitive: &'a [bool],
    /// Each sensitive item's count in the group at hand, by item, and the items counted: a
    /// list searched per occurrence cost the final group (millions of transactions, hundreds
    /// of sensitive items) a comparison per item counted so far.
    count: Vec<usize>,
    counted: Vec<ItemId>,
}

impl<'a> GroupRows<'a> {
    fn new(db: &'a TransactionDb, is_sensitive: &'a [bool]) -> Self {
        Self { db, is_sensitive, count: vec![0; db.num_items()], counted: Vec::new() }
    }

    /// [`GroupRows::of`], a large group's rows in parts on rayon: the final group holds a
    /// fifth of the transactions at 10⁷ with 270 sensitive items, and was built on one core
    /// while the other had nothing left to do.
    fn of_any(&mut self, members: &[u32]) -> PublishedGroup {
        if members.len() <= ROWS_PER_PART {
            return self.of(members);
        }
        let (db, is_sensitive) = (self.db, self.is_sensitive);
        let parts: Vec<PublishedGroup> = members
            .par_chunks(ROWS_PER_PART)
            .map_init(|| GroupRows::new(db, is_sensitive), |rows, part| rows.of(part))
            .collect();
        let mut qid = Vec::with_capacity(members.len());
        for part in parts.iter() {
            for &(i, count) in &part.sensitive {
                if self.count[i as usize] == 0 {
                    self.counted.push(i);
                }
                self.count[i as usize] += count;
            }
        }
        for part in parts {
            qid.extend(part.qid);
        }
        self.counted.sort_unstable();
        let count = &mut self.count;
        let sensitive =
            self.counted.drain(..).map(|i| (i, std::mem::take(&mut count[i as usize]))).collect();
        PublishedGroup { qid, sensitive }
    }

    /// The group of `members`, their rows read where the band order scattered them, fetched
    /// ahead.
    fn of(&mut self, members: &[u32]) -> PublishedGroup {
        let row = |t: u32| self.db.transaction(t as usize);
        let (count, counted) = (&mut self.count, &mut self.counted);
        let qid = fetched_ahead(members, row, FIRST_LINE)
            .map(|t| {
                let mut q = Vec::new();
                for &i in row(t) {
                    if self.is_sensitive[i as usize] {
                        if count[i as usize] == 0 {
                            counted.push(i);
                        }
                        count[i as usize] += 1;
                    } else {
                        q.push(i);
                    }
                }
                q
            })
            .collect();
        counted.sort_unstable();
        let sensitive =
            counted.drain(..).map(|i| (i, std::mem::take(&mut count[i as usize]))).collect();
        PublishedGroup { qid, sensitive }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The groups published while they are formed are [`publish`]'s, draw for draw: handed
    /// over in tasks of three under test, some of them not handed over (published after the
    /// grouping). Counts the cases that built more than one task and published some groups
    /// after.
    #[test]
    fn groups_published_while_formed_are_the_groups_published_after() {
        use rand::SeedableRng;

        use crate::algorithm::GroupingStats;
        let rows = prop::collection::vec(prop::collection::btree_set(0u32..12, 0..5), 1..80);
        let strategy = (rows, any::<u64>(), 0usize..40, 0usize..8);
        txanon_testkit::exercised(300, strategy, |(rows, seed, cut, held_back)| {
            let rows: Vec<Vec<u32>> = rows.iter().map(|t| t.iter().copied().collect()).collect();
            let db = TransactionDb::from_int_transactions(rows);
            let is_sensitive: Vec<bool> = (0..db.num_items()).map(|i| i % 3 == 0).collect();
            // The transactions in groups of one to `cut % 4 + 1` by position.
            let n = db.len() as u32;
            let size = cut as u32 % 4 + 1;
            let groups: Vec<Vec<u32>> =
                (0..n).step_by(size as usize).map(|a| (a..(a + size).min(n)).collect()).collect();
            let handed = groups.len() - held_back.min(groups.len());
            let rng = || rand_chacha::ChaCha20Rng::seed_from_u64(seed);
            let after = publish(&db, &is_sensitive, &groups, 2, &mut rng());
            let grouping = |formed: &mut dyn FnMut(&[u32])| {
                for members in &groups[..handed] {
                    formed(members);
                }
                Grouping::new(groups.clone(), GroupingStats::default())
            };
            let (_, while_formed) = publish_while(&db, &is_sensitive, 2, &mut rng(), grouping);
            prop_assert_eq!(while_formed, after);
            Ok(handed > GROUPS_PER_TASK && handed < groups.len())
        })
        .at_least(0.3, "groups over more than one task, some published after");
    }

    /// A group built in parts (three rows a part under test) is the group built whole: its
    /// rows in order, each sensitive item counted once with the sum of its parts' counts.
    /// Counts the cases built in more than one part.
    #[test]
    fn a_group_built_in_parts_is_the_group_built_whole() {
        let rows = prop::collection::vec(prop::collection::btree_set(0u32..12, 0..5), 1..20);
        let strategy = (rows, any::<prop::sample::Index>());
        txanon_testkit::exercised(300, strategy, |(rows, cut)| {
            let rows: Vec<Vec<u32>> = rows.iter().map(|t| t.iter().copied().collect()).collect();
            let db = TransactionDb::from_int_transactions(rows);
            let is_sensitive: Vec<bool> = (0..db.num_items()).map(|i| i % 3 == 0).collect();
            // The members in a scrambled order, some left out.
            let mut members: Vec<u32> = (0..db.len() as u32).rev().collect();
            let (turn, drop) = (cut.index(members.len()), cut.index(members.len()) / 3);
            members.rotate_left(turn);
            members.truncate(members.len() - drop);
            let mut rows = GroupRows::new(&db, &is_sensitive);
            let (parts, whole) = (rows.of_any(&members), rows.of(&members));
            prop_assert_eq!(parts, whole);
            Ok(members.len() > ROWS_PER_PART)
        })
        .at_least(0.5, "groups built in more than one part");
    }

    /// The groups written in pieces and blocks on rayon are the bytes serde writes, across
    /// blocks and waves (three rows a piece, four pieces a block, two blocks a wave under
    /// test), with empty groups, empty rows, groups without sensitive items and counts past 32
    /// bits. Counts the cases that split a group and crossed a wave.
    #[test]
    fn groups_written_in_blocks_are_the_bytes_serde_writes() {
        let group = (
            prop::collection::vec(prop::collection::vec(any::<u32>(), 0..4), 0..9),
            prop::collection::vec((any::<u32>(), prop_oneof![0usize..9, Just(usize::MAX)]), 0..3),
        );
        let strategy = (prop::collection::vec(group, 0..20), 1usize..4);
        txanon_testkit::exercised(300, strategy, |(groups, p)| {
            let published = PublishedGroups {
                format: GROUPS_FORMAT.into(),
                p,
                items: vec!["a".into(), "b \"quoted\"".into()],
                sensitive: vec![1],
                groups: groups
                    .into_iter()
                    .map(|(qid, sensitive)| PublishedGroup { qid, sensitive })
                    .collect(),
            };
            prop_assert_eq!(published.to_json(), serde_json::to_string(&published).unwrap());
            let split = published.groups.iter().any(|g| g.qid.len() > ROWS_PER_PIECE);
            Ok(split && published.pieces().len() > PIECES_PER_BLOCK * BLOCKS_PER_WAVE)
        })
        .at_least(0.3, "a group split, and pieces across more than one wave");
    }
}
