//! The crate's one error type.
//!
//! Every fallible public function returns [`Result`]. Messages are written for the person who
//! uploaded the data: they name the file, the line and what is wrong, using the specification's
//! wording where it has one (for example "Failed to load PSE reference data: ..."). Add a variant
//! per new failure family rather than stringly-typed catch-alls.

/// The crate's error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A rule set id that is not shipped with the crate.
    #[error("Unknown rule set: {0} (available: EU-CRR2, EU-CRR3, SPEC-LEGACY, SPEC-LEGACY-ADMIN)")]
    UnknownRuleSet(String),

    /// A malformed rule table (shipped data or a table given by the caller).
    #[error("Invalid rule table {table}, line {line}: {message}")]
    RuleTable {
        /// Name of the table source (file name or rule set id).
        table: String,
        /// 1-based line number in the CSV (the header is line 1).
        line: u64,
        /// What is wrong.
        message: String,
    },

    /// Reference data that could not be read or failed validation.
    #[error("Failed to load {kind} reference data: {message}")]
    RefData {
        /// Which list: "PSE", "RGLA", "MDB", "institution", "sovereign".
        kind: &'static str,
        /// What is wrong, with file and line where known.
        message: String,
    },

    /// A reference-data directory that cannot be used.
    #[error("Failed to load reference data: {0}")]
    RefDataDir(String),

    /// A command-line argument that cannot be used (an unknown lever, ...).
    #[error("{0}")]
    InvalidArgument(String),

    /// Bank figures that make the CET1 arithmetic meaningless (zero RWAs, negative capital, ...).
    #[error("Invalid bank figures: {0}")]
    InvalidFigures(String),

    /// A calculator input that cannot be used (a margin of 150 %, 41 projection years, ...).
    #[error("Invalid calculator input: {0}")]
    Calculator(String),

    /// Input or output failure.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),

    /// CSV reading or writing failure.
    #[error("CSV error: {0}")]
    Csv(#[from] csv::Error),

    /// A file that could not be read (ingest; the message is the product's).
    #[error(transparent)]
    Ingest(#[from] crate::ingest::IngestError),

    /// A column mapping that cannot be used (the message is the product's).
    #[error(transparent)]
    Mapping(#[from] crate::mapping::MappingError),

    /// The caller cancelled the run (its [`crate::pipeline::RunControl::cancel`] flag was set).
    /// Nothing was produced: a buffer is empty, output written to a writer is incomplete.
    #[error("The analysis was cancelled")]
    Cancelled,

    /// The processed file could not be written.
    #[error("Failed to write the processed file: {0}")]
    Output(String),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
