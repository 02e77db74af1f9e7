//! Lever classification: given a file's headers and a sample of its rows (and no lever), propose
//! the lever with a confidence in 0..1 and the evidence behind it.
//!
//! Evidence, each scored for one or more levers:
//! - **identifiers**: NIF key letters (Q public bodies -> PSE; P local corporations and S regional
//!   and state bodies -> RGLA; company keys A, B, ... -> corporates), LEIs;
//! - **reference matches**: the share of NIFs found in the PSE and RGLA lists, of LEIs and names
//!   found in the MDB / international organisation list and in the institution list, of
//!   countries found in the sovereign list;
//! - **names**: typical words of each kind of counterparty (Ayuntamiento, Consorcio, Bank, SA,
//!   Kingdom of ...);
//! - **asset-class values** (EN/ES regulatory class names);
//! - **headers**: identifier, collateral and SCRA columns; every header weight is recorded with
//!   its column and normalised token in [`Classification::header_tokens`].
//!
//! Scores are turned into probabilities with a softmax; the confidence is the winner's
//! probability. The temperature (0.6) was chosen on the hand-written labelled corpus
//! (`tests/fixtures/classify/corpus.jsonl`, crate README "Classification accuracy") so that
//! answers with confidence >= 0.7 are right about 95 % of the time (on the held-out set,
//! `heldout.jsonl`, not used for tuning: 20 of 24 right, 19 of 19 at >= 0.7). Reviewed decisions passed
//! to [`classify_with_feedback`] move the scores of files with similar headers. With headers only (no sample rows) the confidence is clamped to 0.2..0.7, as the
//! specification says for header analysis; with no evidence at all the lever is `None` and the
//! confidence is the specification's fallback, 0.1.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::Lever;
use crate::refdata::{Country, Lei, NameMatch, Nif, RefData, fold_name};

/// Where a piece of evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    /// Column names.
    Header,
    /// Identifier shapes (NIF key letters, LEIs).
    Identifier,
    /// Matches against the reference lists.
    Reference,
    /// Words in counterparty names.
    Name,
    /// Asset-class values.
    AssetClass,
    /// Reviewed decisions on files with similar headers ([`classify_with_feedback`]).
    Feedback,
}

impl EvidenceKind {
    /// The kind's name, as serialised (`header`, `identifier`, `reference`, `name`,
    /// `asset_class`, `feedback`).
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceKind::Header => "header",
            EvidenceKind::Identifier => "identifier",
            EvidenceKind::Reference => "reference",
            EvidenceKind::Name => "name",
            EvidenceKind::AssetClass => "asset_class",
            EvidenceKind::Feedback => "feedback",
        }
    }
}

/// One piece of evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Its kind.
    pub kind: EvidenceKind,
    /// The lever it supports.
    pub lever: Lever,
    /// Score added to that lever (negative: taken from it, by a correction).
    pub weight: f64,
    /// What was seen, for people.
    pub description: String,
    /// For reference matches: which list, and how many of the sample's identifiers or names
    /// were found in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hits: Option<ReferenceHits>,
}

/// Identifiers or names of the sample found in one reference list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceHits {
    /// The list: `PSE`, `RGLA`, `MDB`, `institution`, `sovereign`.
    pub list: String,
    /// Found in it.
    pub found: u64,
    /// Looked up.
    pub of: u64,
}

/// A classification (serde: the evidence, and every lever's probability as the competing
/// scores).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Classification {
    /// The proposed lever (`None`: no evidence, "To be determined").
    pub lever: Option<Lever>,
    /// Confidence in 0..1.
    pub confidence: f64,
    /// The evidence, strongest first.
    pub evidence: Vec<Evidence>,
    /// Probability per lever, in [`Lever::ALL`] order: the winner and its competitors.
    pub scores: [(Lever, f64); 6],
    /// The columns read as identifiers, names, asset classes, countries, collateral or SCRA
    /// grades (the header tokens behind the `header` evidence).
    #[serde(default)]
    pub columns: Vec<ColumnRole>,
    /// Header tokens with their weights: which token of which column name added how much to
    /// which lever. Derived from the scoring itself (every `header` evidence weight is one
    /// entry), strongest first.
    #[serde(default)]
    pub header_tokens: Vec<HeaderToken>,
    /// Each lever's header score (the sum of its `header_tokens`), in [`Lever::ALL`] order.
    #[serde(default = "zero_scores")]
    pub header_scores: [(Lever, f64); 6],
}

fn zero_scores() -> [(Lever, f64); 6] {
    Lever::ALL.map(|l| (l, 0.0))
}

impl Classification {
    /// A one-line reason, e.g. for the classification_reason field.
    pub fn reason(&self) -> String {
        let top: Vec<&str> = self
            .evidence
            .iter()
            .take(3)
            .map(|e| e.description.as_str())
            .collect();
        match self.lever {
            Some(l) => format!(
                "{} ({:.0}% confidence): {}",
                l.as_str(),
                self.confidence * 100.0,
                top.join("; ")
            ),
            None => "No lever evidence found".to_string(),
        }
    }
}

impl fmt::Display for Classification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason())
    }
}

/// Softmax temperature (score points per e-fold), chosen on the labelled corpus.
const TEMPERATURE: f64 = 0.6;
/// Confidence with no evidence (specification: fallback confidence 0.1).
pub const FALLBACK_CONFIDENCE: f64 = 0.1;

#[derive(Default, Clone, Copy)]
struct Roles {
    nif: Option<usize>,
    lei: Option<usize>,
    name: Option<usize>,
    asset_class: Option<usize>,
    country: Option<usize>,
    /// The first collateral column.
    collateral: Option<usize>,
    /// The first SCRA grade column.
    scra: Option<usize>,
}

/// The role of a column from its name, and the header token that gave it: a word of the folded
/// name (`nif_entidad` -> `nif`), or the phrase matched (`razon social`).
fn header_role(h: &str) -> Option<(&'static str, String)> {
    let f = fold_name(h);
    let f = f.as_str();
    let has = |w: &str| f.split(' ').any(|x| x == w);
    // The folded word containing `pat` (or `pat` itself when it spans words).
    let word = |pat: &str| -> String {
        f.split(' ')
            .find(|w| w.contains(pat))
            .unwrap_or(pat)
            .to_string()
    };
    if f.contains("scra") {
        return Some(("scra", word("scra")));
    }
    if f.contains("collateral") {
        return Some(("collateral", word("collateral")));
    }
    if f.contains("garantia") {
        return Some(("collateral", word("garantia")));
    }
    if f.starts_with("coll") {
        return Some(("collateral", word("coll")));
    }
    if has("nif") || f.contains("nif") {
        return Some(("nif", word("nif")));
    }
    if has("cif") {
        return Some(("nif", "cif".to_string()));
    }
    if f == "taxid" || f == "tax id" {
        return Some(("nif", f.to_string()));
    }
    if has("lei") {
        return Some(("lei", "lei".to_string()));
    }
    if f.contains("lei code") || f.contains("codigo lei") {
        return Some(("lei", "lei".to_string()));
    }
    for pat in [
        "legal name",
        "razon social",
        "cptyname",
        "counterparty",
        "contraparte",
    ] {
        if f.contains(pat) {
            return Some(("name", word(pat)));
        }
    }
    if f == "name" || f == "nombre" {
        return Some(("name", f.to_string()));
    }
    for pat in [
        "asset class",
        "clase activo",
        "exposure class",
        "assetcls",
        "cartera",
        "segment",
    ] {
        if f.contains(pat) {
            return Some(("asset_class", word(pat)));
        }
    }
    if has("country") || has("pais") || f == "ctry" {
        let t = ["country", "pais", "ctry"]
            .into_iter()
            .find(|w| has(w))
            .unwrap_or("country");
        return Some(("country", t.to_string()));
    }
    None
}

fn column<'a>(rows: &'a [Vec<&'a str>], c: usize) -> impl Iterator<Item = &'a str> + 'a {
    rows.iter()
        .filter_map(move |r| r.get(c).copied())
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

struct Scorer {
    scores: [f64; 6],
    /// The part of `scores` that comes from headers (evidence of kind `Header`).
    header_scores: [f64; 6],
    evidence: Vec<Evidence>,
    columns: Vec<ColumnRole>,
    header_tokens: Vec<HeaderToken>,
}

/// One header token's contribution to one lever's score: `header 'nif_entidad' -> token 'nif'
/// -> +0.5 for PSE`. Every piece of `header` evidence is one of these, so a lever's
/// contributions sum to its [`Classification::header_scores`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeaderToken {
    /// The column name as written in the file.
    pub header: String,
    /// The normalised token of it that was recognised (folded: lower case, no accents, words
    /// split on punctuation), e.g. `nif`, `garantia`, `scra`.
    pub token: String,
    /// What the token was read as: `nif`, `lei`, `collateral`, `scra`, ...
    pub role: String,
    /// The lever it scored for.
    pub lever: Lever,
    /// Score added to that lever.
    pub weight: f64,
}

/// A column the classifier read, and as what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnRole {
    /// The column name.
    pub column: String,
    /// `nif`, `lei`, `name`, `asset_class`, `country`, `collateral`, `scra`.
    pub role: String,
    /// How it was recognised: `header` (its name) or `values` (identifiers in its cells).
    pub by: String,
    /// For `header`: the normalised header token that gave the role (`nif_entidad` -> `nif`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl Scorer {
    fn add(&mut self, kind: EvidenceKind, lever: Lever, weight: f64, description: String) {
        if weight <= 0.0 {
            return;
        }
        self.scores[lever as usize] += weight;
        if kind == EvidenceKind::Header {
            self.header_scores[lever as usize] += weight;
        }
        self.evidence.push(Evidence {
            kind,
            lever,
            weight,
            description,
            hits: None,
        });
    }

    /// [`Scorer::add`] for a header: the weight is recorded against the header token of column
    /// `c` that gave it its role, so the explainability screen shows which token scored.
    fn add_header(
        &mut self,
        headers: &[&str],
        c: usize,
        lever: Lever,
        weight: f64,
        description: &str,
    ) {
        if weight <= 0.0 {
            return;
        }
        let header = headers.get(c).copied().unwrap_or("");
        let (role, token) = header_role(header).unwrap_or(("", String::new()));
        self.add(
            EvidenceKind::Header,
            lever,
            weight,
            format!("{description} (header '{header}', token '{token}')"),
        );
        self.header_tokens.push(HeaderToken {
            header: header.to_string(),
            token,
            role: role.to_string(),
            lever,
            weight,
        });
    }

    /// [`Scorer::add`] for a reference match, with its counts.
    fn add_hits(
        &mut self,
        lever: Lever,
        weight: f64,
        description: String,
        list: &str,
        found: usize,
        of: usize,
    ) {
        let before = self.evidence.len();
        self.add(EvidenceKind::Reference, lever, weight, description);
        if let Some(e) = self.evidence.get_mut(before) {
            e.hits = Some(ReferenceHits {
                list: list.to_string(),
                found: found as u64,
                of: of as u64,
            });
        }
    }
}

const NAME_WORDS: &[(Lever, &[&str])] = &[
    (
        Lever::Rgla,
        &[
            "ayuntamiento",
            "ajuntament",
            "diputacion",
            "cabildo",
            "consell",
            "mancomunidad",
            "comarca",
            "comunidad autonoma",
            "entidad local",
            "generalitat",
            "junta de",
            "concello",
            "municipio",
            "city council",
            "region of",
        ],
    ),
    (
        Lever::Pse,
        &[
            "consorcio",
            "agencia",
            "instituto",
            "universidad",
            "fundacion publica",
            "autoridad portuaria",
            "organismo",
            "entidad publica",
            "servicio publico",
            "empresa municipal",
            "patronato",
            "administrador de infraestructuras",
            "ente publico",
        ],
    ),
    (
        Lever::Institutions,
        &[
            "bank",
            "banco",
            "banca",
            "banque",
            "caja",
            "caixa",
            "sparkasse",
            "volksbank",
            "bancorp",
            "raiffeisen",
            "kantonalbank",
            "saastopankki",
            "spoldzielczy",
        ],
    ),
    (
        Lever::Corporates,
        &[
            " sa", " sl", " slu", " s a", " s l", " gmbh", " ltd", " plc", " inc", " ag", " spa",
            " sas", " bv",
        ],
    ),
    (
        Lever::Sovereigns,
        &[
            "kingdom of",
            "republic",
            "reino de",
            "republica",
            "treasury",
            "tesoro",
            "ministry of finance",
            "ministerio de hacienda",
            "government of",
            "united states",
            "estados unidos",
            "ireland",
            "japan",
            "hellenic",
        ],
    ),
];

const ASSET_WORDS: &[(Lever, &[&str])] = &[
    (Lever::Pse, &["public sector", "sector publico", "pse"]),
    (
        Lever::Rgla,
        &[
            "regional",
            "local authorit",
            "autoridades locales",
            "rgla",
            "administraciones regionales",
        ],
    ),
    (
        Lever::Mdb,
        &[
            "multilateral",
            "mdb",
            "international organi",
            "organizaciones internacionales",
        ],
    ),
    (
        Lever::Institutions,
        &[
            "institution",
            "entidades",
            "credit institution",
            "banks",
            "entidades de credito",
        ],
    ),
    (Lever::Corporates, &["corporat", "empresa", "sme", "pyme"]),
    (
        Lever::Sovereigns,
        &[
            "central government",
            "central bank",
            "sovereign",
            "administraciones centrales",
            "soberano",
            "bancos centrales",
        ],
    ),
];

/// Proposes a lever for a file from its headers and a sample of its rows.
pub fn classify(headers: &[&str], sample_rows: &[Vec<&str>], refdata: &RefData) -> Classification {
    let (s, headers_only) = score(headers, sample_rows, refdata);
    finish(s, headers_only)
}

/// A reviewed classification: the file's header set, the lever the classifier proposed, and
/// the lever a person approved (the same) or corrected it to. The caller keeps these (the
/// engine stores nothing) and passes them to [`classify_with_feedback`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    /// The reviewed file's column names.
    pub headers: Vec<String>,
    /// What the classifier proposed (`None`: it found no lever).
    pub proposed: Option<Lever>,
    /// The reviewed lever.
    pub lever: Lever,
    /// How much the review counts, in 0..=1 (1: fully). The caller decides: the server counts a
    /// review of the file's own client fully and other clients' reviews less.
    #[serde(default = "full_weight")]
    pub weight: f64,
}

fn full_weight() -> f64 {
    1.0
}

impl Feedback {
    /// A review that counts fully.
    pub fn new(headers: Vec<String>, proposed: Option<Lever>, lever: Lever) -> Feedback {
        Feedback {
            headers,
            proposed,
            lever,
            weight: 1.0,
        }
    }
}

/// Header-set similarity from which a reviewed decision counts.
pub const FEEDBACK_MIN_SIMILARITY: f64 = 0.8;
/// Score a reviewed decision adds to its lever at similarity 1.
pub const FEEDBACK_WEIGHT: f64 = 3.0;
/// Score a correction takes from the lever it corrected, at similarity 1.
pub const FEEDBACK_PENALTY: f64 = 1.5;

/// The words of a header set, folded (case, accents, punctuation).
fn header_words(headers: &[&str]) -> std::collections::BTreeSet<String> {
    headers
        .iter()
        .flat_map(|h| {
            fold_name(h)
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Jaccard similarity of two header sets' words, in 0..1.
pub fn header_similarity(a: &[&str], b: &[&str]) -> f64 {
    let (wa, wb) = (header_words(a), header_words(b));
    let union = wa.union(&wb).count();
    if union == 0 {
        return 0.0;
    }
    wa.intersection(&wb).count() as f64 / union as f64
}

/// [`classify`], then reviewed decisions on files with similar headers (word similarity at
/// least [`FEEDBACK_MIN_SIMILARITY`]) move the scores: each adds [`FEEDBACK_WEIGHT`] x
/// similarity x its [`Feedback::weight`] to its lever, and a correction takes
/// [`FEEDBACK_PENALTY`] x similarity x weight from the lever it corrected. Each shows in the
/// evidence (kind `Feedback`).
pub fn classify_with_feedback(
    headers: &[&str],
    sample_rows: &[Vec<&str>],
    refdata: &RefData,
    feedback: &[Feedback],
) -> Classification {
    let (mut s, headers_only) = score(headers, sample_rows, refdata);
    for f in feedback {
        let fh: Vec<&str> = f.headers.iter().map(String::as_str).collect();
        let sim = header_similarity(headers, &fh);
        let weight = if f.weight.is_finite() {
            f.weight.clamp(0.0, 1.0)
        } else {
            0.0
        };
        if sim < FEEDBACK_MIN_SIMILARITY || weight <= 0.0 {
            continue;
        }
        let kind = if f.proposed == Some(f.lever) {
            "approved"
        } else {
            "corrected"
        };
        s.add(
            EvidenceKind::Feedback,
            f.lever,
            FEEDBACK_WEIGHT * sim * weight,
            format!(
                "a file with {:.0}% similar headers was reviewed as {} ({kind})",
                sim * 100.0,
                f.lever.as_str()
            ),
        );
        if let Some(p) = f.proposed.filter(|p| *p != f.lever) {
            let cut = (FEEDBACK_PENALTY * sim * weight).min(s.scores[p as usize]);
            if cut > 0.0 {
                s.scores[p as usize] -= cut;
                s.evidence.push(Evidence {
                    kind: EvidenceKind::Feedback,
                    lever: p,
                    weight: -cut,
                    description: format!(
                        "a file with {:.0}% similar headers proposed as {} was corrected",
                        sim * 100.0,
                        p.as_str()
                    ),
                    hits: None,
                });
            }
        }
    }
    finish(s, headers_only)
}

/// The scores and evidence of a file, and whether it had no sample rows.
fn score(headers: &[&str], sample_rows: &[Vec<&str>], refdata: &RefData) -> (Scorer, bool) {
    let mut roles = Roles::default();
    for (i, h) in headers.iter().enumerate() {
        match header_role(h).map(|(r, _)| r) {
            Some("nif") if roles.nif.is_none() => roles.nif = Some(i),
            Some("lei") if roles.lei.is_none() => roles.lei = Some(i),
            Some("name") if roles.name.is_none() => roles.name = Some(i),
            Some("asset_class") if roles.asset_class.is_none() => roles.asset_class = Some(i),
            Some("country") if roles.country.is_none() => roles.country = Some(i),
            Some("collateral") if roles.collateral.is_none() => roles.collateral = Some(i),
            Some("scra") if roles.scra.is_none() => roles.scra = Some(i),
            _ => {}
        }
    }
    // Identifier columns under unknown headers: look at the values.
    let width = headers
        .len()
        .max(sample_rows.iter().map(Vec::len).max().unwrap_or(0));
    if !sample_rows.is_empty() {
        for c in 0..width {
            if Some(c) == roles.nif || Some(c) == roles.lei {
                continue;
            }
            let vals: Vec<&str> = column(sample_rows, c).collect();
            if vals.len() < 2 {
                continue;
            }
            let nifs = vals.iter().filter(|v| Nif::parse(v).is_ok()).count();
            let leis = vals.iter().filter(|v| Lei::parse(v).is_ok()).count();
            if roles.nif.is_none() && nifs * 2 > vals.len() {
                roles.nif = Some(c);
            } else if roles.lei.is_none() && leis * 2 > vals.len() {
                roles.lei = Some(c);
            }
        }
    }

    // A name column under a header no token reads as one (`Issuer`, `Emisor`, `Obligor`, ...):
    // the column whose values are mostly names of the MDB or institution lists.
    if roles.name.is_none() && !sample_rows.is_empty() {
        let taken = [
            roles.nif,
            roles.lei,
            roles.asset_class,
            roles.country,
            roles.collateral,
            roles.scra,
        ];
        let mut best: Option<(usize, usize)> = None;
        for c in (0..width).filter(|c| !taken.contains(&Some(*c))) {
            let vals: Vec<&str> = column(sample_rows, c).collect();
            if vals.len() < 2 {
                continue;
            }
            let listed = vals
                .iter()
                .filter(|v| {
                    matches!(
                        refdata.mdb().by_name(v),
                        NameMatch::Found(_) | NameMatch::Ambiguous(..)
                    ) || matches!(refdata.institutions().by_name(v), NameMatch::Found(_))
                })
                .count();
            if listed * 2 > vals.len() && best.is_none_or(|(_, b)| listed > b) {
                best = Some((c, listed));
            }
        }
        roles.name = best.map(|(c, _)| c);
    }

    let mut columns: Vec<ColumnRole> = Vec::new();
    for (i, h) in headers.iter().enumerate() {
        let by_header = header_role(h);
        let role = match by_header {
            Some((r, t)) => Some((r, "header", Some(t))),
            None if Some(i) == roles.nif => Some(("nif", "values", None)),
            None if Some(i) == roles.lei => Some(("lei", "values", None)),
            None if Some(i) == roles.name => Some(("name", "values", None)),
            None => None,
        };
        if let Some((role, by, token)) = role {
            columns.push(ColumnRole {
                column: (*h).to_string(),
                role: role.to_string(),
                by: by.to_string(),
                token,
            });
        }
    }
    let mut s = Scorer {
        scores: [0.0; 6],
        header_scores: [0.0; 6],
        evidence: Vec::new(),
        columns,
        header_tokens: Vec::new(),
    };
    let n_rows = sample_rows.len();

    // Headers: each weight comes from one header token.
    if let Some(c) = roles.collateral {
        s.add_header(
            headers,
            c,
            Lever::Corporates,
            1.0,
            "collateral columns present",
        );
    }
    if let Some(c) = roles.scra {
        s.add_header(
            headers,
            c,
            Lever::Institutions,
            1.0,
            "SCRA grade column present",
        );
    }
    if n_rows == 0 {
        match (roles.nif, roles.lei) {
            (Some(c), None) => {
                s.add_header(headers, c, Lever::Pse, 0.5, "NIF column without LEI");
                s.add_header(headers, c, Lever::Rgla, 0.5, "NIF column without LEI");
            }
            (None, Some(c)) => {
                s.add_header(headers, c, Lever::Mdb, 0.5, "LEI column without NIF");
                s.add_header(
                    headers,
                    c,
                    Lever::Institutions,
                    0.5,
                    "LEI column without NIF",
                );
            }
            _ => {}
        }
    }

    // NIFs: key letters and reference matches.
    if let Some(c) = roles.nif {
        let mut total = 0usize;
        let (mut q, mut p, mut sk, mut company) = (0usize, 0usize, 0usize, 0usize);
        let (mut in_pse, mut in_rgla) = (0usize, 0usize);
        for v in column(sample_rows, c) {
            total += 1;
            let Ok(n) = Nif::parse(v) else { continue };
            match n.key_letter() {
                b'Q' => q += 1,
                b'P' => p += 1,
                b'S' => sk += 1,
                b'A' | b'B' | b'C' | b'D' | b'E' | b'F' | b'G' | b'H' | b'J' | b'U' | b'V'
                | b'N' | b'W' => company += 1,
                _ => {}
            }
            if refdata.pse().get(&n).is_some() {
                in_pse += 1;
            }
            if refdata.rgla().get(&n).is_some() {
                in_rgla += 1;
            }
        }
        if total > 0 {
            let t = total as f64;
            let share = |k: usize| k as f64 / t;
            s.add(
                EvidenceKind::Identifier,
                Lever::Pse,
                2.0 * share(q),
                format!("{q} of {total} NIFs have key Q (public body)"),
            );
            s.add(
                EvidenceKind::Identifier,
                Lever::Rgla,
                2.0 * share(p + sk),
                format!(
                    "{} of {total} NIFs have key P or S (local or regional body)",
                    p + sk
                ),
            );
            s.add(
                EvidenceKind::Identifier,
                Lever::Corporates,
                2.0 * share(company),
                format!("{company} of {total} NIFs have a company key"),
            );
            s.add_hits(
                Lever::Pse,
                4.0 * share(in_pse),
                format!("{in_pse} of {total} NIFs found in the PSE list"),
                "PSE",
                in_pse,
                total,
            );
            s.add_hits(
                Lever::Rgla,
                4.0 * share(in_rgla),
                format!("{in_rgla} of {total} NIFs found in the RGLA list"),
                "RGLA",
                in_rgla,
                total,
            );
        }
    }

    // LEIs and names against the MDB and institution lists.
    let mut mdb_hits = 0usize;
    let mut inst_hits = 0usize;
    let mut id_total = 0usize;
    let mut unknown_leis = 0usize;
    for r in sample_rows {
        let lei = roles
            .lei
            .and_then(|c| r.get(c))
            .map(|v| v.trim())
            .unwrap_or("");
        let name = roles
            .name
            .and_then(|c| r.get(c))
            .map(|v| v.trim())
            .unwrap_or("");
        if lei.is_empty() && name.is_empty() {
            continue;
        }
        id_total += 1;
        let parsed = Lei::parse(lei).ok();
        let mdb = parsed.and_then(|l| refdata.mdb().by_lei(&l)).is_some()
            || (!name.is_empty()
                && matches!(
                    refdata.mdb().by_name(name),
                    NameMatch::Found(_) | NameMatch::Ambiguous(..)
                ));
        let inst = parsed
            .and_then(|l| refdata.institutions().by_lei(&l))
            .is_some()
            || (!name.is_empty()
                && matches!(refdata.institutions().by_name(name), NameMatch::Found(_)));
        if mdb {
            mdb_hits += 1;
        } else if inst {
            inst_hits += 1;
        } else if parsed.is_some() {
            unknown_leis += 1;
        }
    }
    if id_total > 0 {
        let t = id_total as f64;
        s.add_hits(
            Lever::Mdb,
            5.0 * mdb_hits as f64 / t,
            format!("{mdb_hits} of {id_total} counterparties found in the MDB / international organisation list"),
            "MDB",
            mdb_hits,
            id_total,
        );
        s.add_hits(
            Lever::Institutions,
            4.0 * inst_hits as f64 / t,
            format!("{inst_hits} of {id_total} counterparties found in the institution list"),
            "institution",
            inst_hits,
            id_total,
        );
        s.add(
            EvidenceKind::Identifier,
            Lever::Institutions,
            0.5 * unknown_leis as f64 / t,
            format!("{unknown_leis} of {id_total} valid LEIs not in any list"),
        );
    }

    // Names.
    if let Some(c) = roles.name {
        let names: Vec<String> = column(sample_rows, c)
            .map(|v| format!(" {} ", fold_name(v)))
            .collect();
        if !names.is_empty() {
            let t = names.len() as f64;
            for (lever, words) in NAME_WORDS {
                let hits = names
                    .iter()
                    .filter(|n| {
                        words
                            .iter()
                            .any(|w| n.contains(&format!("{w} ")) || n.contains(&format!(" {w}")))
                    })
                    .count();
                if hits > 0 {
                    s.add(
                        EvidenceKind::Name,
                        *lever,
                        1.5 * hits as f64 / t,
                        format!(
                            "{hits} of {} names look like {}",
                            names.len(),
                            lever_noun(*lever)
                        ),
                    );
                }
            }
        }
    }

    // Countries: the sovereign list, for files without other identifiers.
    if let Some(c) = roles.country {
        let vals: Vec<&str> = column(sample_rows, c).collect();
        if !vals.is_empty() {
            let distinct = {
                let mut v: Vec<Country> = vals.iter().filter_map(|x| Country::parse(x)).collect();
                v.sort();
                v.dedup();
                v.len()
            };
            let in_list = vals
                .iter()
                .filter(|x| {
                    Country::parse(x).is_some_and(|c| refdata.sovereigns().get(c).is_some())
                })
                .count();
            // Many countries and few listed counterparties: a central-government book.
            if distinct >= 3 && (mdb_hits + inst_hits) * 4 < id_total.max(1) {
                s.add_hits(
                    Lever::Sovereigns,
                    1.5 * in_list as f64 / vals.len() as f64,
                    format!(
                        "{distinct} different countries, {in_list} of {} in the sovereign list",
                        vals.len()
                    ),
                    "sovereign",
                    in_list,
                    vals.len(),
                );
            }
        }
    }

    // Asset-class values.
    if let Some(c) = roles.asset_class {
        let vals: Vec<String> = column(sample_rows, c).map(fold_name).collect();
        if !vals.is_empty() {
            let t = vals.len() as f64;
            for (lever, words) in ASSET_WORDS {
                let hits = vals
                    .iter()
                    .filter(|v| words.iter().any(|w| v.contains(w)))
                    .count();
                if hits > 0 {
                    s.add(
                        EvidenceKind::AssetClass,
                        *lever,
                        3.0 * hits as f64 / t,
                        format!(
                            "{hits} of {} asset classes read {}",
                            vals.len(),
                            lever_noun(*lever)
                        ),
                    );
                }
            }
        }
    }

    (s, n_rows == 0)
}

fn lever_noun(l: Lever) -> &'static str {
    match l {
        Lever::Pse => "public sector entities",
        Lever::Rgla => "regional or local governments",
        Lever::Mdb => "multilateral development banks",
        Lever::Institutions => "institutions",
        Lever::Corporates => "corporates",
        Lever::Sovereigns => "central governments",
    }
}

fn finish(mut s: Scorer, headers_only: bool) -> Classification {
    s.evidence
        .sort_by(|a, b| b.weight.abs().total_cmp(&a.weight.abs()));
    s.header_tokens
        .sort_by(|a, b| b.weight.total_cmp(&a.weight));
    let mut header_scores = zero_scores();
    for (i, h) in header_scores.iter_mut().enumerate() {
        h.1 = s.header_scores.get(i).copied().unwrap_or(0.0);
    }
    let max = s.scores.iter().copied().fold(0.0f64, f64::max);
    if max <= 0.0 {
        return Classification {
            lever: None,
            confidence: FALLBACK_CONFIDENCE,
            evidence: s.evidence,
            scores: Lever::ALL.map(|l| (l, 1.0 / 6.0)),
            columns: s.columns,
            header_tokens: s.header_tokens,
            header_scores,
        };
    }
    let exps: Vec<f64> = s
        .scores
        .iter()
        .map(|x| ((x - max) / TEMPERATURE).exp())
        .collect();
    let sum: f64 = exps.iter().sum();
    let probs: Vec<f64> = exps.iter().map(|e| e / sum).collect();
    let (best, p) = probs
        .iter()
        .copied()
        .enumerate()
        .fold(
            (0usize, 0.0f64),
            |acc, (i, p)| if p > acc.1 { (i, p) } else { acc },
        );
    let confidence = if headers_only { p.clamp(0.2, 0.7) } else { p };
    let mut scores = Lever::ALL.map(|l| (l, 0.0));
    for (i, sc) in scores.iter_mut().enumerate() {
        sc.1 = probs[i];
    }
    Classification {
        lever: Some(Lever::ALL[best]),
        confidence,
        evidence: s.evidence,
        scores,
        columns: s.columns,
        header_tokens: s.header_tokens,
        header_scores,
    }
}

/// Accuracy of [`classify`] on one slice of the labelled set.
#[derive(Debug, Clone, Default)]
pub struct AccuracyRow {
    /// Slice label.
    pub label: String,
    /// Files classified.
    pub files: usize,
    /// Files whose proposed lever is the true one.
    pub correct: usize,
    /// Mean confidence over all files.
    pub mean_confidence: f64,
    /// Files with confidence at or above 0.7 (the specification's threshold).
    pub confident: usize,
    /// Of those, correctly classified.
    pub confident_correct: usize,
}

impl AccuracyRow {
    /// Share correct.
    pub fn accuracy(&self) -> f64 {
        if self.files == 0 {
            0.0
        } else {
            self.correct as f64 / self.files as f64
        }
    }
}

/// Classifies generated files (every lever x header style x with/without Asset_Class x `seeds`)
/// with `sample` rows each, and reports accuracy per lever and overall. Files are generated from
/// `generation` and classified against `classification`: pass the same data for the case where the
/// reference lists hold the file's counterparties, or lists without them (see
/// [`without_client_lists`]) for counterparties the lists do not know. This is how the figures in
/// the crate README are produced. Needs the generator: only with the `cli` feature.
#[cfg(feature = "cli")]
pub fn evaluate_generated(
    generation: &RefData,
    classification: &RefData,
    seeds: u64,
    sample: usize,
) -> crate::error::Result<Vec<AccuracyRow>> {
    use crate::generate::{GenerateOptions, HeaderStyle, generate_exposures_with};
    let styles = [
        HeaderStyle::Standard,
        HeaderStyle::Spanish,
        HeaderStyle::Lowercase,
        HeaderStyle::Abbreviated,
    ];
    let mut per_lever: Vec<AccuracyRow> = Lever::ALL
        .iter()
        .map(|l| AccuracyRow {
            label: l.as_str().to_string(),
            ..Default::default()
        })
        .collect();
    let mut no_asset = AccuracyRow {
        label: "without Asset_Class".into(),
        ..Default::default()
    };
    for lever in Lever::ALL {
        for style in styles {
            for with_ac in [true, false] {
                for seed in 0..seeds {
                    let opts = GenerateOptions {
                        headers: style,
                        asset_class: with_ac,
                        ..GenerateOptions::default()
                    };
                    let mut buf = Vec::new();
                    generate_exposures_with(
                        lever,
                        sample,
                        1000 + seed,
                        generation,
                        &opts,
                        &mut buf,
                    )?;
                    let mut rdr = csv::Reader::from_reader(buf.as_slice());
                    let headers: Vec<String> = rdr.headers()?.iter().map(str::to_string).collect();
                    let records: Vec<csv::StringRecord> =
                        rdr.records().collect::<Result<_, _>>()?;
                    let rows: Vec<Vec<&str>> = records.iter().map(|r| r.iter().collect()).collect();
                    let hrefs: Vec<&str> = headers.iter().map(String::as_str).collect();
                    let c = classify(&hrefs, &rows, classification);
                    let ok = c.lever == Some(lever);
                    for row in [&mut per_lever[lever as usize]]
                        .into_iter()
                        .chain((!with_ac).then_some(&mut no_asset))
                    {
                        row.files += 1;
                        row.correct += ok as usize;
                        row.mean_confidence += c.confidence;
                        if c.confidence >= 0.7 {
                            row.confident += 1;
                            row.confident_correct += ok as usize;
                        }
                    }
                }
            }
        }
    }
    let mut all = AccuracyRow {
        label: "all".into(),
        ..Default::default()
    };
    for r in &per_lever {
        all.files += r.files;
        all.correct += r.correct;
        all.mean_confidence += r.mean_confidence;
        all.confident += r.confident;
        all.confident_correct += r.confident_correct;
    }
    let mut out = per_lever;
    out.push(no_asset);
    out.push(all);
    for r in &mut out {
        if r.files > 0 {
            r.mean_confidence /= r.files as f64;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_kinds_are_named_as_serialised() {
        for k in [
            EvidenceKind::Header,
            EvidenceKind::Identifier,
            EvidenceKind::Reference,
            EvidenceKind::Name,
            EvidenceKind::AssetClass,
            EvidenceKind::Feedback,
        ] {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
    }

    #[test]
    fn no_evidence_gives_fallback() {
        let r = RefData::builtin_shared();
        let c = classify(&["a", "b"], &[vec!["1", "2"]], &r);
        assert_eq!(c.lever, None);
        assert_eq!(c.confidence, FALLBACK_CONFIDENCE);
    }

    #[test]
    fn headers_only_is_clamped() {
        let r = RefData::builtin_shared();
        let c = classify(&["Exposure_ID", "NIF", "Exposure_Amount"], &[], &r);
        assert!(c.lever == Some(Lever::Pse) || c.lever == Some(Lever::Rgla));
        assert!((0.2..=0.7).contains(&c.confidence));
    }

    #[test]
    fn obvious_files() {
        let r = RefData::builtin_shared();
        let h = ["Exposure_ID", "NIF", "Legal_Name"];
        let rows = vec![
            vec!["1", "P2807900B", "Ayuntamiento de Madrid"],
            vec!["2", "S7800001E", "Comunidad de Madrid"],
        ];
        let c = classify(&h, &rows, &r);
        assert_eq!(c.lever, Some(Lever::Rgla), "{c}");
        let h = ["id", "lei_code", "counterparty"];
        let rows = vec![
            vec!["1", "5493006YXS1U5GIHE750", "EIB"],
            vec!["2", "", "World Bank"],
        ];
        let c = classify(&h, &rows, &r);
        assert_eq!(c.lever, Some(Lever::Mdb), "{c}");
        assert!(c.confidence > 0.7);
    }

    #[test]
    fn a_review_counts_by_its_weight() {
        let r = RefData::builtin_shared();
        let h = ["Reference", "Amount", "Notes"];
        let rows = vec![vec!["A-1", "1000", "x"], vec!["A-2", "2000", "y"]];
        let p = |c: &Classification| {
            c.scores
                .iter()
                .find(|(l, _)| *l == Lever::Corporates)
                .unwrap()
                .1
        };
        let review = |weight: f64| Feedback {
            weight,
            ..Feedback::new(h.map(String::from).to_vec(), None, Lever::Corporates)
        };
        let full = classify_with_feedback(&h, &rows, &r, &[review(1.0)]);
        let half = classify_with_feedback(&h, &rows, &r, &[review(0.5)]);
        let none = classify_with_feedback(&h, &rows, &r, &[review(0.0)]);
        assert_eq!(full.lever, Some(Lever::Corporates));
        assert!(p(&full) > p(&half), "{} {}", p(&full), p(&half));
        assert!(p(&half) > p(&none));
        assert_eq!(none, classify(&h, &rows, &r));
        // Out-of-range weights are clamped: NaN counts for nothing, 7 counts fully.
        assert_eq!(
            classify_with_feedback(&h, &rows, &r, &[review(f64::NAN)]),
            none
        );
        assert_eq!(classify_with_feedback(&h, &rows, &r, &[review(7.0)]), full);
    }
}

/// The same reference data without the PSE, RGLA and institution lists (the MDB list and the
/// sovereigns stay: they are public and complete). Used to measure classification of files whose
/// counterparties the lists do not know.
pub fn without_client_lists(refdata: &RefData) -> crate::error::Result<RefData> {
    RefData::from_parts(
        Vec::new(),
        Vec::new(),
        refdata.mdb().entities().to_vec(),
        Vec::new(),
        refdata.sovereigns().entities().to_vec(),
    )
}

#[cfg(all(test, feature = "cli"))]
mod accuracy {
    use super::*;

    fn print(rows: &[AccuracyRow], sample: usize) {
        eprintln!("sample {sample} rows");
        for r in rows {
            eprintln!(
                "{:<22} files {:>4} accuracy {:>6.1}% mean confidence {:.3} confident(>=0.7) {:>4} of which correct {:>6.1}%",
                r.label,
                r.files,
                r.accuracy() * 100.0,
                r.mean_confidence,
                r.confident,
                if r.confident == 0 {
                    0.0
                } else {
                    r.confident_correct as f64 * 100.0 / r.confident as f64
                }
            );
        }
    }

    #[test]
    fn accuracy_on_generated_files() {
        let r = RefData::builtin_shared();
        let bare = without_client_lists(&r).unwrap();
        for (name, cls, sample, min) in [
            ("lists", &*r, 5usize, 0.9),
            ("lists", &*r, 50, 0.9),
            ("no lists", &bare, 5, 0.75),
            ("no lists", &bare, 50, 0.75),
        ] {
            let rows = evaluate_generated(&r, cls, 3, sample).unwrap();
            eprintln!("== {name}");
            print(&rows, sample);
            let all = rows.last().unwrap();
            assert!(
                all.accuracy() >= min,
                "overall accuracy {:.3} with {sample} rows ({name})",
                all.accuracy()
            );
            // Confident answers must be right far more often than the rest.
            let confident_acc = all.confident_correct as f64 / all.confident.max(1) as f64;
            assert!(
                confident_acc >= all.accuracy(),
                "confidence is not informative"
            );
        }
    }
}
