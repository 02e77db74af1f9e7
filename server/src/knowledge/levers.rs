//! Lever and rule extraction from a regulatory text (spec 002, AI Knowledge Base Management):
//! the proposal's shape ([`ExtractedLever`], [`ExtractedRule`]), its validation with the
//! specification's messages ([`check`]), and the built-in extractor ([`propose`]), which reads
//! the text's articles, their numbered paragraphs, risk-weight tables and the conditions stated
//! around them. Pure: blocks in, proposals out.
//!
//! What the built-in extractor recognises, in the standardised approach's wording:
//! - `Article N` followed by its title; the title names the exposure class ("Exposures to public
//!   sector entities") and the article number the lever category (111 to 141 Assets, 192 to 241
//!   CRMT, 36 to 49 CET1 Deductions).
//! - Tables `Table N` with a `Credit quality step 1 2 3 4 5 6` row and a `Risk weight` row of
//!   percentages: a rule keyed by the entity's own step, or by its central government's when the
//!   table or its paragraph says so.
//! - Sentences that assign one weight ("shall be assigned a 0 % risk weight", "the risk weight
//!   shall be 20 %") with their conditions: an original or residual maturity of three months or
//!   less, no credit assessment, an unrated central government (merged into the sovereign-keyed
//!   table of the same lever), the domestic currency, the European Central Bank, a list of named
//!   entities.
//! - Cross-references ("treated in accordance with Article 120", "risk-weighted as exposures to
//!   institutions"): resolved to the referenced article's long-term tables when the text holds
//!   them, otherwise kept as a classification rule naming the treatment.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Block, collapse_ws};

/// The lever categories an extracted lever may have (spec 002).
pub const CATEGORIES: [&str; 3] = ["Assets", "CRMT", "CET1 Deductions"];
/// The rule types (spec 002, regulatory rules).
pub const RULE_TYPES: [&str; 3] = ["condition", "calculation", "classification"];
/// The variable types.
pub const VARIABLE_TYPES: [&str; 4] = ["string", "number", "boolean", "date"];
/// Confidence of a lever whose every rule carries its weights (spec 002: 0.9 for regulatory
/// documents) and of one with a rule left to the reviewer (0.8, the default for extracted levers).
pub const CONFIDENCE_COMPLETE: f64 = 0.9;
/// See [`CONFIDENCE_COMPLETE`].
pub const CONFIDENCE_DEFAULT: f64 = 0.8;

/// A lever proposed from a text, as the reviewer edits it and the service saves it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ExtractedLever {
    /// The lever's name.
    #[serde(default)]
    pub lever_name: String,
    /// Assets, CRMT or CET1 Deductions.
    #[serde(default)]
    pub lever_category: String,
    /// What the lever is.
    #[serde(default)]
    pub description: String,
    /// The articles it comes from ("Article 116").
    #[serde(default)]
    pub article_reference: String,
    /// 0 to 1.
    #[serde(default = "default_confidence")]
    pub confidence_score: f64,
    /// The inputs its rules read.
    #[serde(default)]
    pub variables: Vec<LeverVariable>,
    /// Its rules, highest priority first.
    #[serde(default)]
    pub rules: Vec<ExtractedRule>,
}

fn default_confidence() -> f64 {
    CONFIDENCE_DEFAULT
}

/// An input a lever's rules read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeverVariable {
    /// `credit_quality_step`, ...
    #[serde(default)]
    pub name: String,
    /// string, number, boolean or date.
    #[serde(default, rename = "type")]
    pub var_type: String,
    /// What it is.
    #[serde(default)]
    pub description: String,
}

/// A rule of an extracted lever.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ExtractedRule {
    /// The rule's name.
    #[serde(default)]
    pub rule_name: String,
    /// condition, calculation or classification.
    #[serde(default)]
    pub rule_type: String,
    /// What it says, in words.
    #[serde(default)]
    pub rule_description: String,
    /// When it applies (a JSON object, not empty).
    #[serde(default)]
    #[ts(type = "Record<string, unknown>")]
    #[schema(value_type = Object)]
    pub conditions: Value,
    /// What it does (a JSON object, not empty).
    #[serde(default)]
    #[ts(type = "Record<string, unknown>")]
    #[schema(value_type = Object)]
    pub actions: Value,
    /// At least 1; higher first.
    #[serde(default = "default_priority")]
    #[ts(type = "number")]
    pub priority: i64,
    /// Whether it is in force.
    #[serde(default = "default_active")]
    pub is_active: bool,
    /// The article, paragraph and table it comes from.
    #[serde(default)]
    pub article_reference: String,
}

fn default_priority() -> i64 {
    50
}

fn default_active() -> bool {
    true
}

/// One validation error of a proposal: which lever (0-based), which rule (1-based as the
/// specification numbers them, `None` for the lever's own fields), and the message.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeverIssue {
    /// The lever's position.
    #[ts(type = "number")]
    pub lever: usize,
    /// The rule's number (1-based), for a rule's field.
    #[ts(type = "number | null")]
    pub rule: Option<usize>,
    /// `leverName`, `leverCategory`, `description`, `confidenceScore`, `ruleName`, `ruleType`,
    /// `conditions`, `actions`, `priority`, `variables`.
    pub field: String,
    /// The specification's message.
    pub message: String,
}

/// The validation errors of `levers` (spec 002: "Lever name is required", "Lever category is
/// required", "Description is required", and per rule N "Name is required", "Type is required",
/// "Conditions are required", "Actions are required"; empty objects fail), plus the bounds the
/// inputs carry (confidence 0 to 1, priority at least 1, a known category, rule and variable
/// type). Empty when all is well.
pub fn check(levers: &[ExtractedLever]) -> Vec<LeverIssue> {
    let mut out = Vec::new();
    for (i, l) in levers.iter().enumerate() {
        let mut lever = |field: &str, message: String| {
            out.push(LeverIssue {
                lever: i,
                rule: None,
                field: field.into(),
                message,
            })
        };
        if l.lever_name.trim().is_empty() {
            lever("leverName", "Lever name is required".into());
        }
        if l.lever_category.trim().is_empty() {
            lever("leverCategory", "Lever category is required".into());
        } else if !CATEGORIES.contains(&l.lever_category.as_str()) {
            lever(
                "leverCategory",
                format!("Lever category must be one of {}", CATEGORIES.join(", ")),
            );
        }
        if l.description.trim().is_empty() {
            lever("description", "Description is required".into());
        }
        if !(0.0..=1.0).contains(&l.confidence_score) {
            lever(
                "confidenceScore",
                "Confidence score must be between 0 and 1".into(),
            );
        }
        for v in &l.variables {
            if v.name.trim().is_empty() {
                lever("variables", "Variable name is required".into());
            } else if !VARIABLE_TYPES.contains(&v.var_type.as_str()) {
                lever(
                    "variables",
                    format!(
                        "Variable {} must be of type {}",
                        v.name,
                        VARIABLE_TYPES.join(", ")
                    ),
                );
            }
        }
        for (j, r) in l.rules.iter().enumerate() {
            let n = j + 1;
            let mut rule = |field: &str, message: &str| {
                out.push(LeverIssue {
                    lever: i,
                    rule: Some(n),
                    field: field.into(),
                    message: format!("Rule {n}: {message}"),
                })
            };
            if r.rule_name.trim().is_empty() {
                rule("ruleName", "Name is required");
            }
            if r.rule_type.trim().is_empty() {
                rule("ruleType", "Type is required");
            } else if !RULE_TYPES.contains(&r.rule_type.as_str()) {
                rule(
                    "ruleType",
                    "Type must be condition, calculation or classification",
                );
            }
            if !non_empty_object(&r.conditions) {
                rule("conditions", "Conditions are required");
            }
            if !non_empty_object(&r.actions) {
                rule("actions", "Actions are required");
            }
            if r.priority < 1 {
                rule("priority", "Priority must be at least 1");
            }
        }
    }
    out
}

fn non_empty_object(v: &Value) -> bool {
    v.as_object().is_some_and(|o| !o.is_empty())
}

/// The name a lever is compared by (spec 002: lowercased, non-alphanumerics stripped).
pub fn name_key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The built-in extractor

/// An article of the text: its number, title and numbered paragraphs.
#[derive(Debug, Clone, PartialEq)]
struct Article {
    number: String,
    title: String,
    paragraphs: Vec<Paragraph>,
}

#[derive(Debug, Clone, PartialEq)]
struct Paragraph {
    number: Option<String>,
    text: String,
}

static ARTICLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Article\s+(\d{1,4}[a-z]?)\b\s*(.*)$").expect("regex"));
static PARA_START: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d{1,2})\.\s+(.*)$").expect("regex"));
// A numbered paragraph inside a block that merged several ("... 100 %. 2. Exposures ...").
static PARA_INSIDE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[.:;]\s+(\d{1,2})\.\s+[A-Z]").expect("regex"));
static TABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Table\s+(\d{1,2}[a-z]?)\s+Credit quality step\b([^0-9%]*)").expect("regex")
});
static PCT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\d{1,4}(?:[.,]\d+)?)\s*%").expect("regex"));
static XREF_ARTICLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"treated in accordance with (?:Table (\d{1,2}[a-z]?) of )?Article (\d{1,4}[a-z]?)")
        .expect("regex")
});

/// Splits blocks into articles. Text before the first article is ignored.
fn articles(blocks: &[Block]) -> Vec<Article> {
    let mut out: Vec<Article> = Vec::new();
    let mut expect_title = false;
    for b in blocks {
        let text = collapse_ws(&b.text);
        if text.is_empty() {
            continue;
        }
        if let Some(c) = ARTICLE.captures(&text) {
            let rest = c[2].trim();
            if rest.is_empty() || rest.starts_with(|ch: char| ch.is_uppercase()) {
                let (title, body) =
                    split_title(rest).unwrap_or_else(|| (rest.to_string(), String::new()));
                out.push(Article {
                    number: c[1].to_string(),
                    title,
                    paragraphs: Vec::new(),
                });
                expect_title = out.last().is_some_and(|a| a.title.is_empty());
                if !body.is_empty() {
                    push_text(out.last_mut().expect("pushed"), &body);
                }
                continue;
            }
        }
        let Some(article) = out.last_mut() else {
            continue;
        };
        if expect_title && !PARA_START.is_match(&text) {
            article.title = text;
            expect_title = false;
            continue;
        }
        expect_title = false;
        push_text(article, &text);
    }
    out
}

/// "Exposures to X 1. Exposures ..." → the title and the rest (the paragraph marker kept).
fn split_title(rest: &str) -> Option<(String, String)> {
    static TITLE_THEN_PARA: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\s(\d{1,2})\.\s+[A-Z]").expect("regex"));
    let m = TITLE_THEN_PARA.find(rest)?;
    Some((
        rest[..m.start()].trim().to_string(),
        rest[m.start()..].trim().to_string(),
    ))
}

/// Adds a block's text to an article: a numbered paragraph starts a new one, anything else
/// continues the current one (tables, lists, continuation lines).
fn push_text(article: &mut Article, text: &str) {
    let mut pieces = Vec::new();
    let mut from = 0;
    for m in PARA_INSIDE.find_iter(text) {
        // The number starts after the punctuation and the spaces.
        let start =
            m.start() + 1 + text[m.start() + 1..].len() - text[m.start() + 1..].trim_start().len();
        pieces.push(&text[from..start]);
        from = start;
    }
    pieces.push(&text[from..]);
    for piece in pieces {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        match PARA_START.captures(piece) {
            Some(c) => article.paragraphs.push(Paragraph {
                number: Some(c[1].to_string()),
                text: c[2].to_string(),
            }),
            None => match article.paragraphs.last_mut() {
                Some(p) => {
                    p.text.push(' ');
                    p.text.push_str(piece);
                }
                None => article.paragraphs.push(Paragraph {
                    number: None,
                    text: piece.to_string(),
                }),
            },
        }
    }
}

/// The exposure class an article's title names (the rule tables' classes).
fn class_of(title: &str) -> Option<&'static str> {
    let t = title.to_lowercase();
    let classes: [(&str, &str); 7] = [
        ("central governments or central banks", "central_government"),
        ("regional governments or local authorities", "rgla"),
        ("public sector entities", "pse"),
        ("multilateral development banks", "mdb"),
        ("international organisations", "international_org"),
        ("institutions", "institution"),
        ("corporates", "corporate"),
    ];
    classes
        .iter()
        .find(|(words, _)| t.contains(words))
        .map(|(_, c)| *c)
}

/// The product's name for a class's lever (so that the similar-name rule finds the lever the
/// product already has), or the article's title.
fn lever_name(class: Option<&str>, title: &str) -> String {
    match class {
        Some("central_government") => "Sovereigns".into(),
        Some("rgla") => "Regional Governments and Local Authorities (RGLA)".into(),
        Some("pse") => "Public Sector Entities (PSE)".into(),
        Some("mdb") => "Multilateral Development Banks (MDB)".into(),
        Some("international_org") => "International Organisations".into(),
        Some("institution") => "Institutions".into(),
        Some("corporate") => "Corporates".into(),
        _ => title.to_string(),
    }
}

fn class_words(class: Option<&str>) -> &'static str {
    match class {
        Some("central_government") => "central governments and central banks",
        Some("rgla") => "regional governments and local authorities",
        Some("pse") => "public sector entities",
        Some("mdb") => "multilateral development banks",
        Some("international_org") => "international organisations",
        Some("institution") => "institutions",
        Some("corporate") => "corporates",
        _ => "the exposures of the article",
    }
}

/// The lever category of an article: by its number in the CRR's structure, else by its words.
fn category_of(number: &str, title: &str) -> &'static str {
    let n: u32 = number
        .trim_end_matches(|c: char| c.is_alphabetic())
        .parse()
        .unwrap_or(0);
    match n {
        36..=49 => "CET1 Deductions",
        192..=241 => "CRMT",
        111..=141 => "Assets",
        _ => {
            let t = title.to_lowercase();
            if t.contains("deduct") || t.contains("common equity tier 1") {
                "CET1 Deductions"
            } else if t.contains("collateral")
                || t.contains("guarantee")
                || t.contains("credit protection")
                || t.contains("credit risk mitigation")
            {
                "CRMT"
            } else {
                "Assets"
            }
        }
    }
}

fn maturity_of(text: &str) -> &'static str {
    let t = text.to_lowercase();
    let short = |kind: &str| {
        [
            format!("{kind} maturity of three months or less"),
            format!("{kind} maturity of up to three months"),
            format!("{kind} effective maturity of three months or less"),
            format!("{kind} effective maturity of up to three months"),
        ]
        .iter()
        .any(|p| t.contains(p.as_str()))
    };
    if short("original") {
        "le_3m_original"
    } else if short("residual") {
        "le_3m_residual"
    } else {
        "any"
    }
}

fn pct_value(s: &str) -> Option<f64> {
    s.replace(',', ".")
        .parse::<f64>()
        .ok()
        .filter(|v| (0.0..=1250.0).contains(v))
}

fn number(v: f64) -> Value {
    if v.fract() == 0.0 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// What a paragraph's reference reads: "Article 116(1)".
fn reference(article: &str, para: Option<&str>) -> String {
    match para {
        Some(p) => format!("Article {article}({p})"),
        None => format!("Article {article}"),
    }
}

/// A rule found in the text, before the lever's rules are resolved and ordered.
#[derive(Debug, Clone)]
struct Found {
    article: String,
    reference: String,
    kind: FoundKind,
    maturity: &'static str,
    /// The text says the short-term preferential treatment does not apply.
    no_short_term: bool,
}

#[derive(Debug, Clone)]
enum FoundKind {
    /// A credit-quality-step table.
    Table {
        table: String,
        sovereign: bool,
        weights: BTreeMap<String, f64>,
    },
    /// One weight under conditions.
    Flat {
        weight: f64,
        conditions: Map<String, Value>,
        description: String,
        higher_of_sovereign: bool,
    },
    /// "Treated in accordance with Article N" / "as exposures to institutions".
    TreatAs {
        article: Option<String>,
        table: Option<String>,
        class: Option<&'static str>,
        sentence: String,
    },
}

/// The sentences of a text (a full stop, colon or semicolon followed by a capital or an
/// opening bracket ends one).
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        current.push(c);
        if c == '.' || c == ';' || c == ':' {
            let next = chars[i + 1..].iter().find(|ch| !ch.is_whitespace());
            let spaced = chars.get(i + 1).is_none_or(|ch| ch.is_whitespace());
            if spaced && next.is_none_or(|ch| ch.is_uppercase()) {
                out.push(current.trim().to_string());
                current.clear();
            }
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

fn scan_paragraph(article: &Article, class: Option<&str>, p: &Paragraph) -> Vec<Found> {
    let mut out = Vec::new();
    let reference = reference(&article.number, p.number.as_deref());
    let mut rest = p.text.clone();
    let lower = p.text.to_lowercase();
    let no_short_term = lower.contains("preferential treatment for short-term")
        && lower.contains("shall not be applied");

    // Tables, cut out of the text once read.
    while let Some(c) = TABLE.captures(&rest) {
        let whole = c.get(0).expect("match");
        let header = c[2].to_lowercase();
        let table = c[1].to_string();
        let after = &rest[whole.end()..];
        static TOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\S+").expect("regex"));
        let mut steps = Vec::new();
        let mut consumed = 0;
        for tok in TOKEN.find_iter(after) {
            match tok.as_str().parse::<u8>() {
                Ok(s @ 1..=6) if steps.len() < 6 => {
                    steps.push(s);
                    consumed = tok.end();
                }
                _ => break,
            }
        }
        let tail = &after[consumed..];
        let label_at = tail.to_lowercase().find("risk weight");
        let mut weights = BTreeMap::new();
        let mut end = whole.end() + consumed;
        if let (false, Some(at)) = (steps.is_empty(), label_at) {
            let cells: Vec<_> = PCT.captures_iter(&tail[at..]).take(steps.len()).collect();
            if cells.len() == steps.len() {
                for (s, cell) in steps.iter().zip(&cells) {
                    if let Some(v) = pct_value(&cell[1]) {
                        weights.insert(s.to_string(), v);
                    }
                }
                end += at + cells.last().map_or(0, |m| m.get(0).expect("match").end());
            }
        }
        let before = rest[..whole.start()].to_lowercase();
        let sovereign = class != Some("central_government")
            && (header.contains("central government")
                || before
                    .contains("credit quality step to which exposures to the central government")
                || before.contains("credit quality step to which the central government"));
        if weights.len() == steps.len() && !steps.is_empty() {
            out.push(Found {
                article: article.number.clone(),
                reference: format!("{reference}, Table {table}"),
                kind: FoundKind::Table {
                    table,
                    sovereign,
                    weights,
                },
                maturity: maturity_of(&rest[..whole.start()]),
                no_short_term,
            });
        }
        rest = format!(
            "{} {}",
            &rest[..whole.start()],
            &rest[end.min(rest.len())..]
        );
    }

    for sentence in sentences(&rest) {
        let s = sentence.to_lowercase();
        if let Some(c) = XREF_ARTICLE.captures(&sentence) {
            out.push(Found {
                article: article.number.clone(),
                reference: reference.clone(),
                kind: FoundKind::TreatAs {
                    article: Some(c[2].to_string()),
                    table: c.get(1).map(|m| m.as_str().to_string()),
                    class: None,
                    sentence: sentence.clone(),
                },
                maturity: "any",
                no_short_term,
            });
            continue;
        }
        for (phrase, target) in [
            ("risk-weighted as exposures to institutions", "institution"),
            ("same manner as exposures to institutions", "institution"),
            ("treated as exposures to institutions", "institution"),
            (
                "treated as exposures to the central government",
                "central_government",
            ),
        ] {
            if s.contains(phrase) && class != Some(target) {
                out.push(Found {
                    article: article.number.clone(),
                    reference: reference.clone(),
                    kind: FoundKind::TreatAs {
                        article: None,
                        table: None,
                        class: Some(target),
                        sentence: sentence.clone(),
                    },
                    maturity: "any",
                    no_short_term,
                });
            }
        }
        if !s.contains("risk weight") {
            continue;
        }
        let pcts: Vec<f64> = PCT
            .captures_iter(&sentence)
            .filter_map(|c| pct_value(&c[1]))
            .collect();
        let [weight] = pcts[..] else { continue };
        let mut conditions = Map::new();
        let mut what = Vec::new();
        if s.contains("central government is unrated") {
            conditions.insert("basis".into(), json!("sovereign_cqs"));
            conditions.insert("centralGovernment".into(), json!("unrated"));
            what.push("the central government is unrated".to_string());
        } else if s.contains("not available") {
            conditions.insert("basis".into(), json!("unrated"));
            what.push("no credit assessment by a nominated ECAI".to_string());
        } else if s.contains("unless") {
            conditions.insert("basis".into(), json!("default"));
            what.push("no other paragraph applies".to_string());
        }
        if s.contains("european central bank") {
            conditions.insert("counterparty".into(), json!("European Central Bank"));
            what.push("the counterparty is the European Central Bank".to_string());
        }
        if s.contains("domestic currency") {
            conditions.insert("domesticCurrency".into(), json!(true));
            what.push("denominated and funded in the domestic currency".to_string());
        }
        if s.contains("member state") {
            conditions.insert("memberState".into(), json!(true));
        }
        if s.contains("the following") {
            let names = listed_names(&sentence);
            if !names.is_empty() {
                what.push(format!(
                    "the counterparty is one of the {} listed",
                    names.len()
                ));
                conditions.insert("listedIn".into(), json!(reference.clone()));
                conditions.insert("listedEntities".into(), json!(names));
            }
        }
        let maturity = maturity_of(&sentence);
        let description = if what.is_empty() {
            format!("{}% risk weight", fmt_pct(weight))
        } else {
            format!(
                "{}% risk weight where {}",
                fmt_pct(weight),
                what.join(" and ")
            )
        };
        out.push(Found {
            article: article.number.clone(),
            reference: reference.clone(),
            kind: FoundKind::Flat {
                weight,
                conditions,
                description,
                higher_of_sovereign: s.contains("whichever is the higher"),
            },
            maturity,
            no_short_term,
        });
    }
    out
}

/// "(a) the International Bank for Reconstruction and Development; (b) the ..." → the names.
fn listed_names(sentence: &str) -> Vec<String> {
    static ITEM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\(([a-z]{1,3})\)\s+(?:the\s+)?([^;()]+?)\s*(?:;|\.$|$|,\s*(?:and|or)\s)")
            .expect("regex")
    });
    ITEM.captures_iter(sentence)
        .map(|c| c[2].trim().trim_end_matches(['.', ',']).to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

fn fmt_pct(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn maturity_words(m: &str) -> &'static str {
    match m {
        "le_3m_original" => " with an original maturity of three months or less",
        "le_3m_residual" => " with a residual maturity of three months or less",
        _ => "",
    }
}

/// The levers and rules the text states, one lever per exposure class (or per article whose
/// class is not recognised), in the order the text first names them. Articles that state no
/// rule propose nothing.
pub fn propose(blocks: &[Block]) -> Vec<ExtractedLever> {
    let arts = articles(blocks);
    // Per lever key: (class, name, category, articles, found rules).
    struct Draft {
        class: Option<&'static str>,
        name: String,
        category: &'static str,
        articles: Vec<(String, String)>,
        found: Vec<Found>,
    }
    let mut drafts: Vec<Draft> = Vec::new();
    for a in &arts {
        let class = class_of(&a.title);
        let found: Vec<Found> = a
            .paragraphs
            .iter()
            .flat_map(|p| scan_paragraph(a, class, p))
            .collect();
        if found.is_empty() {
            continue;
        }
        let name = lever_name(class, &a.title);
        let key = name_key(&name);
        match drafts.iter_mut().find(|d| name_key(&d.name) == key) {
            Some(d) => {
                d.articles.push((a.number.clone(), a.title.clone()));
                d.found.extend(found);
            }
            None => drafts.push(Draft {
                class,
                name,
                category: category_of(&a.number, &a.title),
                articles: vec![(a.number.clone(), a.title.clone())],
                found,
            }),
        }
    }

    // An unrated central government completes the sovereign-keyed table of the same lever and
    // maturity (Article 116(1)'s last sentence, Article 121(2)).
    for d in &mut drafts {
        let mut i = 0;
        while i < d.found.len() {
            let (weight, maturity, reference) = match &d.found[i].kind {
                FoundKind::Flat {
                    weight, conditions, ..
                } if conditions.get("centralGovernment") == Some(&json!("unrated")) => {
                    (*weight, d.found[i].maturity, d.found[i].reference.clone())
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            let table = d.found.iter_mut().find(|f| {
                f.maturity == maturity
                    && matches!(
                        f.kind,
                        FoundKind::Table {
                            sovereign: true,
                            ..
                        }
                    )
            });
            match table {
                Some(t) => {
                    if let FoundKind::Table { weights, .. } = &mut t.kind {
                        weights.insert("sovereign_unrated".into(), weight);
                    }
                    t.reference = format!("{}; {reference}", t.reference);
                    d.found.remove(i);
                }
                None => i += 1,
            }
        }
    }

    // The long-term tables each article and class holds, for cross-references.
    let tables_of = |pred: &dyn Fn(&Draft, &Found) -> bool| -> Vec<(String, bool, BTreeMap<String, f64>, String)> {
        drafts
            .iter()
            .flat_map(|d| d.found.iter().map(move |f| (d, f)))
            .filter(|(d, f)| pred(d, f) && f.maturity == "any")
            .filter_map(|(_, f)| match &f.kind {
                FoundKind::Table { table, sovereign, weights } => {
                    Some((table.clone(), *sovereign, weights.clone(), f.reference.clone()))
                }
                _ => None,
            })
            .collect()
    };

    let mut levers = Vec::new();
    for d in &drafts {
        let class = d.class;
        let mut rules: Vec<ExtractedRule> = Vec::new();
        let mut complete = true;
        let base = |basis: &str, maturity: &str| {
            let mut c = Map::new();
            if let Some(cl) = class {
                c.insert("exposureClass".into(), json!(cl));
            }
            c.insert("basis".into(), json!(basis));
            c.insert("maturity".into(), json!(maturity));
            c
        };
        for f in &d.found {
            match &f.kind {
                FoundKind::Table {
                    table,
                    sovereign,
                    weights,
                } => {
                    let basis = if *sovereign {
                        "sovereign_cqs"
                    } else {
                        "entity_cqs"
                    };
                    let mut conditions = base(basis, f.maturity);
                    if f.no_short_term {
                        conditions.insert("shortTermPreference".into(), json!(false));
                    }
                    let by: Map<String, Value> = weights
                        .iter()
                        .map(|(k, v)| (k.clone(), number(*v)))
                        .collect();
                    let unrated = weights
                        .get("sovereign_unrated")
                        .map(|w| {
                            format!(
                                " Where that central government is unrated: {}%.",
                                fmt_pct(*w)
                            )
                        })
                        .unwrap_or_default();
                    let whose = if *sovereign {
                        "the credit quality step of the central government of incorporation"
                    } else {
                        "the credit quality step of the counterparty's credit assessment"
                    };
                    rules.push(ExtractedRule {
                        rule_name: format!(
                            "{} by {} credit quality step{} (Table {table})",
                            cap(class_words(class)),
                            if *sovereign { "sovereign" } else { "own" },
                            if f.maturity == "any" { "" } else { ", short term" },
                        ),
                        rule_type: "calculation".into(),
                        rule_description: format!(
                            "Exposures to {}{} take the risk weight of Table {table} for {whose}.{unrated}",
                            class_words(class),
                            maturity_words(f.maturity)
                        ),
                        conditions: Value::Object(conditions),
                        actions: json!({ "riskWeightByCqs": by }),
                        priority: if f.maturity == "any" {
                            if *sovereign { 70 } else { 80 }
                        } else {
                            90
                        },
                        is_active: true,
                        article_reference: f.reference.clone(),
                    });
                }
                FoundKind::Flat {
                    weight,
                    conditions,
                    description,
                    higher_of_sovereign,
                } => {
                    let mut c = base(
                        conditions
                            .get("basis")
                            .and_then(Value::as_str)
                            .unwrap_or("flat"),
                        f.maturity,
                    );
                    for (k, v) in conditions {
                        if k != "basis" {
                            c.insert(k.clone(), v.clone());
                        }
                    }
                    let flagged = conditions.keys().any(|k| {
                        matches!(k.as_str(), "counterparty" | "domesticCurrency" | "listedIn")
                    });
                    let mut actions = json!({ "riskWeight": number(*weight) });
                    if *higher_of_sovereign {
                        actions["orCentralGovernmentRiskWeightIfHigher"] = json!(true);
                    }
                    rules.push(ExtractedRule {
                        rule_name: format!(
                            "{} {}",
                            cap(class_words(class)),
                            short_name(description, f.maturity)
                        ),
                        rule_type: if flagged { "condition" } else { "calculation" }.into(),
                        rule_description: format!(
                            "Exposures to {}{}: {}{}.",
                            class_words(class),
                            maturity_words(f.maturity),
                            description,
                            if *higher_of_sovereign {
                                ", or the central government's risk weight if higher"
                            } else {
                                ""
                            }
                        ),
                        conditions: Value::Object(c),
                        actions,
                        priority: if flagged {
                            100
                        } else if f.maturity != "any" {
                            90
                        } else {
                            60
                        },
                        is_active: true,
                        article_reference: f.reference.clone(),
                    });
                }
                FoundKind::TreatAs {
                    article,
                    table,
                    class: target,
                    sentence,
                } => {
                    let targets = match (article, target) {
                        (Some(a), _) => tables_of(&|_, f| {
                            &f.article == a
                                && match (&f.kind, table) {
                                    (FoundKind::Table { table: t, .. }, Some(want)) => t == want,
                                    _ => true,
                                }
                        })
                        .into_iter()
                        .take(1)
                        .collect::<Vec<_>>(),
                        (None, Some("central_government")) => Vec::new(),
                        (None, Some(cl)) => tables_of(&|d, _| d.class == Some(*cl)),
                        (None, None) => Vec::new(),
                    };
                    let treated = match (article, target) {
                        (Some(a), _) => format!("Article {a}"),
                        (None, Some(cl)) => format!("exposures to {}", class_words(Some(cl))),
                        _ => String::new(),
                    };
                    if targets.is_empty() {
                        // The referenced treatment is not in this text: say which it is.
                        let mut c = base("treated_as", "any");
                        if f.no_short_term {
                            c.insert("shortTermPreference".into(), json!(false));
                        }
                        let mut actions = Map::new();
                        match (article, target) {
                            (Some(a), _) => {
                                actions.insert("treatAs".into(), json!(format!("Article {a}")))
                            }
                            (None, Some(cl)) => actions.insert("treatAs".into(), json!(cl)),
                            _ => None,
                        };
                        complete = complete && *target == Some("central_government");
                        rules.push(ExtractedRule {
                            rule_name: format!("{} treated as {treated}", cap(class_words(class))),
                            rule_type: "classification".into(),
                            rule_description: sentence.clone(),
                            conditions: Value::Object(c),
                            actions: Value::Object(actions),
                            priority: 50,
                            is_active: true,
                            article_reference: f.reference.clone(),
                        });
                        continue;
                    }
                    for (t, sovereign, weights, tref) in targets {
                        let basis = if sovereign {
                            "sovereign_cqs"
                        } else {
                            "entity_cqs"
                        };
                        let mut c = base(basis, "any");
                        c.insert("treatedAs".into(), json!(treated));
                        if f.no_short_term {
                            c.insert("shortTermPreference".into(), json!(false));
                        }
                        let by: Map<String, Value> = weights
                            .iter()
                            .map(|(k, v)| (k.clone(), number(*v)))
                            .collect();
                        rules.push(ExtractedRule {
                            rule_name: format!(
                                "{} {} as {treated} (Table {t})",
                                cap(class_words(class)),
                                if sovereign { "unrated" } else { "rated" }
                            ),
                            rule_type: "classification".into(),
                            rule_description: format!(
                                "{} Risk weights of {tref}{}.",
                                sentence,
                                if f.no_short_term {
                                    ", without the short-term preferential treatment"
                                } else {
                                    ""
                                }
                            ),
                            conditions: Value::Object(c),
                            actions: json!({ "riskWeightByCqs": by, "treatAs": treated }),
                            priority: if sovereign { 70 } else { 80 },
                            is_active: true,
                            article_reference: format!("{} → {tref}", f.reference),
                        });
                    }
                }
            }
        }
        if rules.is_empty() {
            continue;
        }
        rules.sort_by_key(|r| std::cmp::Reverse(r.priority));
        let article_reference = d
            .articles
            .iter()
            .map(|(n, _)| format!("Article {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let titles = d
            .articles
            .iter()
            .map(|(n, t)| format!("Article {n} ({t})"))
            .collect::<Vec<_>>()
            .join("; ");
        levers.push(ExtractedLever {
            lever_name: d.name.clone(),
            lever_category: d.category.into(),
            description: format!(
                "Risk weights of exposures to {} as {} states{}.",
                class_words(class),
                titles,
                match rules.len() {
                    1 => ": 1 rule".to_string(),
                    n => format!(": {n} rules"),
                }
            ),
            article_reference,
            confidence_score: if complete {
                CONFIDENCE_COMPLETE
            } else {
                CONFIDENCE_DEFAULT
            },
            variables: variables(&rules),
            rules,
        });
    }
    levers
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn short_name(description: &str, maturity: &str) -> String {
    let mut s = description.to_string();
    if maturity != "any" {
        s.push_str(", short term");
    }
    s
}

/// The inputs the rules read, in a fixed order.
fn variables(rules: &[ExtractedRule]) -> Vec<LeverVariable> {
    let has = |key: &str, value: Option<&str>| {
        rules.iter().any(|r| match value {
            Some(v) => r.conditions.get(key).and_then(Value::as_str) == Some(v),
            None => r.conditions.get(key).is_some(),
        })
    };
    let mut out = Vec::new();
    let mut add = |name: &str, t: &str, d: &str| {
        out.push(LeverVariable {
            name: name.into(),
            var_type: t.into(),
            description: d.into(),
        })
    };
    if has("basis", Some("entity_cqs")) || has("basis", Some("unrated")) {
        add(
            "credit_quality_step",
            "number",
            "The counterparty's credit quality step (1 to 6) from a nominated ECAI's assessment; none when unrated",
        );
    }
    if has("basis", Some("sovereign_cqs")) {
        add(
            "sovereign_credit_quality_step",
            "number",
            "The credit quality step of the central government of the counterparty's jurisdiction; none when unrated",
        );
    }
    if has("maturity", Some("le_3m_original")) {
        add(
            "original_maturity_months",
            "number",
            "The exposure's original maturity, in months",
        );
    }
    if has("maturity", Some("le_3m_residual")) {
        add(
            "residual_maturity_months",
            "number",
            "The exposure's residual maturity, in months",
        );
    }
    if has("domesticCurrency", None) {
        add(
            "domestic_currency",
            "boolean",
            "Denominated and funded in the counterparty's domestic currency",
        );
    }
    if has("listedIn", None) || has("counterparty", None) {
        add(
            "counterparty_name",
            "string",
            "The counterparty's name, compared with the entities the text lists",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::{Format, Limits, extract};
    use analysis::rules::{Basis, MaturityBucket, RuleSet};

    const CRR: &str = include_str!("../../tests/fixtures/crr_standardised_articles.txt");

    fn proposals() -> Vec<ExtractedLever> {
        let doc = extract(Format::Txt, CRR.as_bytes(), Limits::default()).expect("extract");
        propose(&doc.blocks)
    }

    fn lever<'a>(levers: &'a [ExtractedLever], class: &str) -> Vec<&'a ExtractedRule> {
        levers
            .iter()
            .flat_map(|l| l.rules.iter())
            .filter(|r| r.conditions["exposureClass"] == json!(class))
            .collect()
    }

    fn maturity(m: MaturityBucket) -> &'static str {
        match m {
            MaturityBucket::Any => "any",
            MaturityBucket::Le3mOriginal => "le_3m_original",
            MaturityBucket::Le3mResidual => "le_3m_residual",
            other => panic!("not in the CRR2 text: {other:?}"),
        }
    }

    /// From the text of CRR Articles 114 to 122 (as amended by CRR2), the extractor proposes a
    /// rule for every table of the engine's EU-CRR2 rule set that those articles state, with the
    /// same class, basis, maturity condition and weights.
    #[test]
    fn the_crr_articles_give_the_rules_of_the_engines_rule_tables() {
        let levers = proposals();
        assert!(check(&levers).is_empty(), "{:?}", check(&levers));
        let set = RuleSet::by_id("EU-CRR2").expect("rule set");
        let in_text = ["114", "115", "116", "117", "120", "121", "122"];
        let mut compared = 0;
        for t in set.tables() {
            let art = t.article().trim_start_matches("Art ");
            let number: String = art.chars().take_while(|c| c.is_ascii_digit()).collect();
            if !in_text.contains(&number.as_str()) {
                continue;
            }
            let rules = lever(&levers, t.exposure_class());
            let m = maturity(t.maturity());
            match t.basis() {
                Basis::EntityCqs | Basis::SovereignCqs => {
                    let basis = if t.basis() == Basis::EntityCqs {
                        "entity_cqs"
                    } else {
                        "sovereign_cqs"
                    };
                    let found = rules.iter().find(|r| {
                        r.conditions["basis"] == json!(basis)
                            && r.conditions["maturity"] == json!(m)
                            && (1..=6u8).all(|s| {
                                r.actions["riskWeightByCqs"][s.to_string()].as_f64()
                                    == t.by_cqs(Some(s)).and_then(|w| w.pct())
                            })
                            && (basis == "entity_cqs"
                                || r.actions["riskWeightByCqs"]["sovereign_unrated"].as_f64()
                                    == t.by_cqs(None).and_then(|w| w.pct()))
                    });
                    assert!(
                        found.is_some(),
                        "no rule for {} ({}): {rules:#?}",
                        t.id(),
                        t.article()
                    );
                    compared += 1;
                }
                Basis::Flat | Basis::Flag => {
                    let Some(w) = t.single().and_then(|w| w.pct()) else {
                        continue; // "use the sovereign rules": a classification rule
                    };
                    let found = rules.iter().find(|r| {
                        r.actions["riskWeight"].as_f64() == Some(w)
                            && r.conditions["maturity"] == json!(m)
                    });
                    assert!(
                        found.is_some(),
                        "no rule for {} ({}): {rules:#?}",
                        t.id(),
                        t.article()
                    );
                    compared += 1;
                }
                Basis::ScraGrade => {}
            }
        }
        assert!(compared >= 18, "compared {compared} tables");
    }

    #[test]
    fn levers_are_named_categorised_and_referenced() {
        let levers = proposals();
        let names: Vec<&str> = levers.iter().map(|l| l.lever_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Sovereigns",
                "Regional Governments and Local Authorities (RGLA)",
                "Public Sector Entities (PSE)",
                "Multilateral Development Banks (MDB)",
                "Institutions",
                "Corporates"
            ]
        );
        assert!(levers.iter().all(|l| l.lever_category == "Assets"));
        let inst = levers
            .iter()
            .find(|l| l.lever_name == "Institutions")
            .unwrap();
        assert_eq!(inst.article_reference, "Article 120, Article 121");
        let pse = levers
            .iter()
            .find(|l| l.lever_name.starts_with("Public"))
            .unwrap();
        // Priority order: the short-term rule before the tables.
        assert_eq!(pse.rules[0].article_reference, "Article 116(3)");
        assert_eq!(pse.rules[0].actions, json!({ "riskWeight": 20 }));
        let rated = pse
            .rules
            .iter()
            .find(|r| r.conditions["basis"] == json!("entity_cqs"))
            .unwrap();
        assert_eq!(
            rated.article_reference,
            "Article 116(2) → Article 120(1), Table 3"
        );
        assert_eq!(rated.conditions["shortTermPreference"], json!(false));
        assert!(
            pse.variables
                .iter()
                .any(|v| v.name == "sovereign_credit_quality_step")
        );
        let mdb = levers
            .iter()
            .find(|l| l.lever_name.starts_with("Multilateral"))
            .unwrap();
        let listed = mdb
            .rules
            .iter()
            .find(|r| r.rule_type == "condition")
            .unwrap();
        assert_eq!(listed.actions, json!({ "riskWeight": 0 }));
        let names = listed.conditions["listedEntities"].as_array().unwrap();
        assert_eq!(names.len(), 16);
        assert_eq!(
            names[0],
            json!("International Bank for Reconstruction and Development")
        );
        let corp = levers
            .iter()
            .find(|l| l.lever_name == "Corporates")
            .unwrap();
        let unrated = corp
            .rules
            .iter()
            .find(|r| r.conditions["basis"] == json!("unrated"))
            .unwrap();
        assert_eq!(
            unrated.actions["orCentralGovernmentRiskWeightIfHigher"],
            json!(true)
        );
    }

    #[test]
    fn paragraphs_merged_into_one_block_are_still_read() {
        let text = "Article 116 Exposures to public sector entities 1. Exposures to public sector \
                    entities with an original maturity of three months or less shall be assigned a \
                    risk weight of 20 %. 2. Exposures to public sector entities for which a credit \
                    assessment is not available shall be assigned a 100 % risk weight.";
        let blocks = vec![Block {
            kind: super::super::BlockKind::Paragraph,
            text: text.into(),
            page: Some(1),
        }];
        let levers = propose(&blocks);
        assert_eq!(levers.len(), 1);
        let refs: Vec<&str> = levers[0]
            .rules
            .iter()
            .map(|r| r.article_reference.as_str())
            .collect();
        assert_eq!(refs, ["Article 116(1)", "Article 116(2)"]);
    }

    #[test]
    fn a_text_without_articles_proposes_nothing() {
        let blocks = vec![Block {
            kind: super::super::BlockKind::Paragraph,
            text: "Minutes of the meeting. The risk weight was 20 % last year.".into(),
            page: Some(1),
        }];
        assert!(propose(&blocks).is_empty());
    }

    #[test]
    fn check_gives_the_specifications_messages() {
        let mut l = proposals().remove(0);
        l.lever_name = " ".into();
        l.description.clear();
        l.lever_category.clear();
        l.rules[0].rule_name.clear();
        l.rules[0].rule_type.clear();
        l.rules[0].conditions = json!({});
        l.rules[0].actions = Value::Null;
        l.rules[0].priority = 0;
        let messages: Vec<String> = check(&[l]).into_iter().map(|i| i.message).collect();
        assert_eq!(
            messages,
            [
                "Lever name is required",
                "Lever category is required",
                "Description is required",
                "Rule 1: Name is required",
                "Rule 1: Type is required",
                "Rule 1: Conditions are required",
                "Rule 1: Actions are required",
                "Rule 1: Priority must be at least 1",
            ]
        );
        assert_eq!(
            name_key("Public Sector Entities (PSE)"),
            "publicsectorentitiespse"
        );
    }
}
