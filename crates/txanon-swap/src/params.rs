//! Parameters of the swap family.

use txanon_data::ParamError;
use txanon_data::progress::Progress;

/// The method: the paper's two swappings and the three baselines it is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Partial swapping (Algorithms 1–3): a record's tendency items are exchanged with those of
    /// the least similar record (Jaccard) whose tendency is another category and that holds
    /// none of the items to be moved, nor whose items to be moved the record holds.
    PartSwap,
    /// Full swapping (Algorithm 4): a record of several items all in one category exchanges all
    /// its items with the least similar such record of another category.
    FullSwap,
    /// Both: partial swapping, then full swapping of the single-category records.
    PartAndFullSwap,
    /// Classic data swapping: the same items as partial swapping (Algorithm 1) exchanged with
    /// a uniformly random record, which gives its own tendency items back (none if it has no
    /// tendency); items already present at the destination are lost (collisions), and nothing
    /// guarantees a different category.
    RandSwap,
    /// Partial suppression in the spirit of ρ-uncertainty (Cao et al., VLDB 2010): the items
    /// of a record's tendency category (Algorithm 1's selection) are deleted from that record;
    /// no other item is touched.
    PartSupp,
    /// Split personality: each record becomes one record per category it holds, each with the
    /// record's items of that category.
    SplitPerson,
}

impl Method {
    /// Every method, in the paper's order of presentation.
    pub const ALL: [Method; 6] = [
        Method::PartSwap,
        Method::FullSwap,
        Method::PartAndFullSwap,
        Method::RandSwap,
        Method::PartSupp,
        Method::SplitPerson,
    ];

    /// The name the CLI and the experiments use.
    pub fn name(self) -> &'static str {
        match self {
            Method::PartSwap => "partswap",
            Method::FullSwap => "fullswap",
            Method::PartAndFullSwap => "partswap+fullswap",
            Method::RandSwap => "randswap",
            Method::PartSupp => "partsupp",
            Method::SplitPerson => "splitperson",
        }
    }
}

/// Which of a record's equally heavy heaviest categories are its tendency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ties {
    /// The paper's Algorithm 1, "the category with the highest item frequency": one category,
    /// the smallest id among equally heavy ones. The other tied categories stay, and after a
    /// swap one of them shows as the record's heaviest.
    #[default]
    First,
    /// Every category tied for the heaviest is the tendency: all of them move (or are
    /// suppressed), so none is left to show, at the cost of more items moved.
    All,
}

/// How partial swapping finds each record's least similar destination. The two exact searches
/// return the same destination (a test says so) and differ in cost; the window bounds the
/// search, and returns theirs when it is as wide as the candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Search {
    /// Candidates sharing no item (Jaccard 0) first, in the seeded order, and only if none is
    /// eligible the records sharing an item, found through an inverted index. The default.
    Indexed,
    /// The paper's: Jaccard against every candidate. O(n²); the test reference.
    Exhaustive,
    /// Bounded: the least similar eligible record among the next `w` records of another
    /// tendency in the seeded order (the next `w` after them if none is eligible). A sample of
    /// the paper's candidate bucket C_t instead of all of it: the exact searches cost
    /// quadratic time once every candidate shares an item with the source (skewed data).
    Window(std::num::NonZeroUsize),
}

/// Parameters of [`anonymize`](crate::anonymize); build with [`SwapParams::new`], validate
/// with [`SwapParams::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapParams {
    method: Method,
    search: Search,
    seed: Option<u64>,
    max_exposed: usize,
    ties: Ties,
    progress: Option<Progress>,
}

/// Checked [`SwapParams`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidSwapParams(SwapParams);

impl SwapParams {
    /// The method, with the indexed search and a seed from the operating system.
    pub fn new(method: Method) -> Self {
        Self {
            method,
            search: Search::Indexed,
            seed: None,
            max_exposed: 0,
            ties: Ties::First,
            progress: None,
        }
    }

    /// Where the method reports its phases (the order and tendencies, the pairing with a count
    /// of records, publishing, auditing) for a front end to draw; none by default. It changes
    /// nothing in the result.
    pub fn progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The destination search of partial swapping (default [`Search::Indexed`]).
    pub fn search(mut self, search: Search) -> Self {
        self.search = search;
        self
    }

    /// Seed of the ChaCha20 generator behind the processing order, the tie-breaks, the random
    /// partners of RandSwap and the publication order; `None` (the default) seeds it from the
    /// operating system.
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// How many records may still show their tendency, beyond what the method leaves exposed
    /// by design, for the publication to pass its audit (default 0; see
    /// [`SwapClaim`](crate::SwapClaim)).
    pub fn max_exposed(mut self, n: usize) -> Self {
        self.max_exposed = n;
        self
    }

    /// Which of a record's equally heavy heaviest categories its tendency is (default
    /// [`Ties::First`], the paper's): what partial swapping, RandSwap and PartSupp move or
    /// delete, and what the audit requires hidden.
    pub fn ties(mut self, ties: Ties) -> Self {
        self.ties = ties;
        self
    }

    /// Validates the parameters. Every combination is valid today; the check keeps the
    /// params-struct contract of the workspace.
    ///
    /// # Errors
    /// None yet.
    pub fn check(self) -> Result<ValidSwapParams, ParamError> {
        Ok(ValidSwapParams(self))
    }
}

impl ValidSwapParams {
    /// Where the method reports its phases, if anywhere.
    pub fn progress_handle(&self) -> Option<&Progress> {
        self.0.progress.as_ref()
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.0.method
    }

    /// The destination search.
    pub fn search(&self) -> Search {
        self.0.search
    }

    /// The seed.
    pub fn seed(&self) -> Option<u64> {
        self.0.seed
    }

    /// The tie rule.
    pub fn ties(&self) -> Ties {
        self.0.ties
    }

    /// How many records may still show their tendency beyond the method's design.
    pub fn max_exposed(&self) -> usize {
        self.0.max_exposed
    }

    /// The claim the publication is audited under.
    pub fn claim(&self) -> crate::SwapClaim {
        crate::SwapClaim::new(self.0.method).max_exposed(self.0.max_exposed).ties(self.0.ties)
    }
}
