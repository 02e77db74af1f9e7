//! Lever justifications (spec 002, Lever Justifications; `regulatory_templates`): administrators
//! keep audit-memo templates (name, category, content, one default), and generate from a
//! template the memo of a real completed processing run: every placeholder is filled from the
//! run, its stored result, its validation and the decisions the engine takes again from the run's
//! original ([`crate::service::insights::reclassified`]), with each reclassified exposure's
//! original and proposed weight, regulatory reference, confidence and reason.
//!
//! Templates are Jinja-style text (`{{ clientName }}`, `{% for c in classifications %}`) rendered
//! by minijinja with no loader (nothing outside the template is read), strict placeholders (a
//! misspelt one is an error, never an empty gap), a bounded budget of instructions and a bounded
//! output. A template is checked when it is saved, against a sample run, so a memo never fails
//! on its syntax. Changes are announced on `admin:justifications`.

use minijinja::value::Serde;
use minijinja::{Environment, ErrorKind, UndefinedBehavior};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Actor, Audit, Change};
use crate::access::Need;
use crate::ai::builtin::{count, eur, share};
use crate::db::justifications::{self as db, JustificationRow, JustificationWrite};
use crate::error::{ApiError, ApiResult};
use crate::realtime::{Event, Topic};
use crate::state::AppState;

/// Categories (anything else becomes `custom`, as the spec says).
pub const CATEGORIES: [&str; 3] = ["regulatory", "internal", "custom"];
/// Longest template name, in characters.
pub const MAX_NAME_CHARS: usize = 120;
/// Longest template content, in characters.
pub const MAX_CONTENT_CHARS: usize = 50_000;
/// Longest memo, in bytes.
pub const MAX_MEMO_BYTES: usize = 2 * 1024 * 1024;
/// Reclassified exposures a memo lists at most (the largest RWA reductions).
pub const MEMO_CLASSIFICATIONS: usize = 100;
/// The rendering budget (minijinja fuel: instructions).
const FUEL: u64 = 2_000_000;

/// The spec's validation messages.
pub const NAME_REQUIRED: &str = "Template name is required";
pub const CONTENT_REQUIRED: &str = "Template content is required";

/// The topic of the justification templates.
pub fn topic() -> Topic {
    Topic::Admin {
        area: "justifications",
    }
}

/// A justification template as the screen shows it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct JustificationTemplate {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// `regulatory`, `internal` or `custom`.
    pub category: String,
    /// The memo template.
    pub template_content: String,
    /// The default template.
    pub is_default: bool,
    /// Its creator's name.
    pub created_by: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

/// A template to create, or an edit of one.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct JustificationTemplateInput {
    /// Name (required).
    #[serde(default)]
    pub name: String,
    /// `regulatory`, `internal` or `custom` (anything else becomes `custom`).
    #[serde(default)]
    pub category: String,
    /// The memo template (required).
    #[serde(default)]
    pub template_content: String,
    /// Make it the default (the previous default stops being one).
    #[serde(default)]
    pub is_default: bool,
}

/// A placeholder a template may use.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct JustificationPlaceholder {
    /// Its name (`clientName`, `classifications`, `c.exposureId`).
    pub name: String,
    /// What it holds.
    pub description: String,
}

/// 'Use Default Template': the default audit memo and the placeholders.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct JustificationDefaults {
    /// A name for it.
    pub name: String,
    /// Its category.
    pub category: String,
    /// The memo template.
    pub template_content: String,
    /// Every placeholder.
    pub placeholders: Vec<JustificationPlaceholder>,
}

/// Which template a run's memo is written from.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct MemoRequest {
    /// The template; without one, the default template, else the built-in audit memo.
    #[serde(default)]
    #[ts(optional)]
    pub template_id: Option<String>,
}

/// A memo generated from a template and a run.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct JustificationMemo {
    /// The template (none: the built-in audit memo).
    pub template_id: Option<String>,
    /// Its name.
    pub template_name: String,
    /// The run.
    pub run_id: String,
    /// The run's client.
    pub client_name: String,
    /// A name to download it under (`.txt`).
    pub file_name: String,
    /// The memo.
    pub text: String,
    /// Reclassified exposures listed in it.
    #[ts(type = "number")]
    pub classifications_listed: u64,
    /// All the run's reclassified exposures.
    #[ts(type = "number")]
    pub classifications_total: u64,
}

/// One reclassified exposure, as a template sees it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct MemoClassification {
    exposure_id: String,
    exposure_type: String,
    counterparty: String,
    original_risk_weight: String,
    proposed_risk_weight: String,
    regulatory_reference: String,
    applied_rule: String,
    confidence: String,
    reason: String,
    rwa_reduction: String,
}

/// What a template is rendered with.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct MemoContext {
    date: String,
    timestamp: String,
    client_name: String,
    lever_name: String,
    run_id: String,
    run_date: String,
    file_name: String,
    file_count: u64,
    total_exposures: String,
    matched_exposures: String,
    reclassified_count: String,
    avg_confidence: String,
    validation_score: String,
    validation_status: String,
    rwa_reduction: String,
    reporting_date: String,
    rule_set: String,
    model_version: String,
    classifications: Vec<MemoClassification>,
    classifications_omitted: u64,
}

const PLACEHOLDERS: [(&str, &str); 27] = [
    ("date", "The memo's date (yyyy-mm-dd)"),
    ("timestamp", "When the memo was generated (UTC)"),
    ("clientName", "The run's client"),
    ("leverName", "The lever analysed"),
    ("runId", "The processing run's id"),
    ("runDate", "When the run completed"),
    ("fileName", "The file processed"),
    ("fileCount", "Files in the run (1)"),
    ("totalExposures", "Exposure rows in the file"),
    (
        "matchedExposures",
        "Rows matched against the reference data",
    ),
    (
        "reclassifiedCount",
        "Rows whose proposed risk weight is lower",
    ),
    (
        "avgConfidence",
        "Mean confidence of the reclassified rows, in percent",
    ),
    (
        "validationScore",
        "Share of rows matched against the reference data",
    ),
    (
        "validationStatus",
        "The approvers' decision on the run (approved, pending, rejected, not submitted)",
    ),
    ("rwaReduction", "The run's RWA reduction"),
    (
        "reportingDate",
        "The reporting date maturities were measured from",
    ),
    ("ruleSet", "The regulatory rule set applied"),
    ("modelVersion", "The engine and rule-set version"),
    (
        "classifications",
        "The reclassified exposures, largest RWA reduction first (at most 100): {% for c in classifications %}...{% endfor %}",
    ),
    (
        "classificationsOmitted",
        "Reclassified exposures not listed",
    ),
    (
        "c.exposureId",
        "The exposure's id (its row number when the file has none)",
    ),
    ("c.exposureType", "Its exposure class (the lever's)"),
    ("c.counterparty", "Its counterparty, as the file names it"),
    (
        "c.originalRiskWeight / c.proposedRiskWeight",
        "Its current and proposed risk weights",
    ),
    (
        "c.regulatoryReference / c.appliedRule",
        "The article and rule the decision rests on",
    ),
    ("c.confidence", "The decision's confidence, in percent"),
    (
        "c.reason / c.rwaReduction",
        "Why, from the decision trace, and the RWA reduction",
    ),
];

/// The default audit memo.
pub const DEFAULT_MEMO: &str = "AUDIT MEMO: LEVER JUSTIFICATION
Date: {{ date }}
Client: {{ clientName }}
Lever: {{ leverName }}

1. SCOPE
Processing run {{ runId }} ({{ fileCount }} file: {{ fileName }}, completed {{ runDate }}) evaluated {{ totalExposures }} exposures, of which {{ matchedExposures }} were matched against the reference entity data (validation score {{ validationScore }}).

2. FINDINGS
{{ reclassifiedCount }} exposures qualify for a lower risk weight under {{ ruleSet }}, reducing risk-weighted assets by {{ rwaReduction }}. Average confidence of the reclassifications: {{ avgConfidence }}.

3. CLASSIFICATIONS
{% for c in classifications %}- {{ c.exposureId }} ({{ c.exposureType }}, {{ c.counterparty }}): {{ c.originalRiskWeight }} -> {{ c.proposedRiskWeight }}
  Reference: {{ c.regulatoryReference }}; confidence {{ c.confidence }}
  Reason: {{ c.reason }}
{% else %}No exposure was reclassified.
{% endfor %}{% if classificationsOmitted > 0 %}... and {{ classificationsOmitted }} more reclassified exposures.
{% endif %}
4. VALIDATION
Validation status: {{ validationStatus }}
Reporting date: {{ reportingDate }}

Generated {{ timestamp }} by {{ modelVersion }}.
";

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::validation(message)
}

fn not_found() -> ApiError {
    ApiError::not_found("Template not found")
}

/// The spec's category rule: one of [`CATEGORIES`], anything else `custom`.
pub fn category(raw: &str) -> &'static str {
    let t = raw.trim().to_ascii_lowercase();
    CATEGORIES
        .iter()
        .find(|c| **c == t)
        .copied()
        .unwrap_or("custom")
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(50);
    env
}

/// Renders `template` with `ctx`, with the product's messages for its errors.
fn render(template: &str, ctx: &MemoContext) -> ApiResult<String> {
    let out = environment()
        .render_str(template, Serde(ctx))
        .map_err(|e| invalid(template_error(&e)))?;
    if out.len() > MAX_MEMO_BYTES {
        return Err(invalid(format!(
            "The memo would be longer than {} MB.",
            MAX_MEMO_BYTES / (1024 * 1024)
        )));
    }
    Ok(out)
}

fn template_error(e: &minijinja::Error) -> String {
    let at = e
        .line()
        .map(|l| format!(" on line {l}"))
        .unwrap_or_default();
    match e.kind() {
        ErrorKind::UndefinedError => format!(
            "Unknown placeholder{at}. The placeholders are: {}.",
            PLACEHOLDERS
                .iter()
                .filter(|(n, _)| !n.starts_with("c."))
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ErrorKind::SyntaxError => format!(
            "Template syntax error{at}: {}",
            e.detail().unwrap_or("not a valid template")
        ),
        ErrorKind::OutOfFuel => "The template does too much work to render.".into(),
        _ => format!(
            "Template error{at}: {}",
            e.detail().unwrap_or("it cannot be rendered")
        ),
    }
}

/// A sample run every saved template must render with.
fn sample_context() -> MemoContext {
    MemoContext {
        date: "2026-01-31".into(),
        timestamp: "2026-01-31T09:00:00Z".into(),
        client_name: "Sample Bank".into(),
        lever_name: "Public Sector Entities".into(),
        run_id: "run".into(),
        run_date: "2026-01-31".into(),
        file_name: "exposures.csv".into(),
        file_count: 1,
        total_exposures: "2".into(),
        matched_exposures: "1".into(),
        reclassified_count: "1".into(),
        avg_confidence: "90.00%".into(),
        validation_score: "50.00%".into(),
        validation_status: "approved".into(),
        rwa_reduction: "EUR 80.00".into(),
        reporting_date: "2026-01-31".into(),
        rule_set: "EU-CRR3".into(),
        model_version: "capopt engine".into(),
        classifications: vec![MemoClassification {
            exposure_id: "EXP-1".into(),
            exposure_type: "Public Sector Entities".into(),
            counterparty: "Sample entity".into(),
            original_risk_weight: "100%".into(),
            proposed_risk_weight: "20%".into(),
            regulatory_reference: "CRR Art. 116(4)".into(),
            applied_rule: "PSE treated as its government".into(),
            confidence: "90.00%".into(),
            reason: "Matched".into(),
            rwa_reduction: "EUR 80.00".into(),
        }],
        classifications_omitted: 0,
    }
}

fn check(input: JustificationTemplateInput) -> ApiResult<(String, &'static str, String, bool)> {
    let name = input.name.trim().to_owned();
    if name.is_empty() {
        return Err(invalid(NAME_REQUIRED));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(invalid(format!(
            "Template name must be at most {MAX_NAME_CHARS} characters."
        )));
    }
    let content = input.template_content.replace("\r\n", "\n");
    if content.trim().is_empty() {
        return Err(invalid(CONTENT_REQUIRED));
    }
    if content.chars().count() > MAX_CONTENT_CHARS {
        return Err(invalid(format!(
            "Template content must be at most {MAX_CONTENT_CHARS} characters."
        )));
    }
    render(&content, &sample_context())?;
    Ok((name, category(&input.category), content, input.is_default))
}

fn to_wire(row: JustificationRow) -> JustificationTemplate {
    JustificationTemplate {
        id: row.id,
        name: row.name,
        category: row.category,
        template_content: row.template_content,
        is_default: row.is_default == 1,
        created_by: row.created_by_name.filter(|n| !n.is_empty()),
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

fn changed(id: &str) -> Event {
    Event::JustificationsChanged(crate::realtime::events::TemplateRef {
        template_id: id.to_owned(),
    })
}

/// Every template, newest first.
pub async fn list(state: &AppState) -> ApiResult<Vec<JustificationTemplate>> {
    Ok(db::list(&state.db.pool)
        .await?
        .into_iter()
        .map(to_wire)
        .collect())
}

/// The default memo and the placeholders.
pub fn defaults() -> JustificationDefaults {
    JustificationDefaults {
        name: "Lever justification audit memo".into(),
        category: "regulatory".into(),
        template_content: DEFAULT_MEMO.into(),
        placeholders: PLACEHOLDERS
            .iter()
            .map(|(name, description)| JustificationPlaceholder {
                name: (*name).into(),
                description: (*description).into(),
            })
            .collect(),
    }
}

/// Creates a template (the creator recorded).
pub async fn create(
    state: &AppState,
    actor: &Actor,
    input: JustificationTemplateInput,
) -> ApiResult<JustificationTemplate> {
    let (name, category, content, is_default) = check(input)?;
    let id = crate::db::new_id();
    let now = crate::db::now();
    let mut change = Change::begin(state, topic()).await?;
    db::insert(
        change.conn(),
        &id,
        &actor.user.id.to_string(),
        &JustificationWrite {
            name: &name,
            category,
            template_content: &content,
            is_default: i64::from(is_default),
            now: &now,
        },
    )
    .await?;
    if is_default {
        db::clear_default_except(change.conn(), &id).await?;
    }
    let row = db::get(change.conn(), &id).await?.ok_or_else(not_found)?;
    change
        .commit(
            actor,
            changed(&id),
            Audit {
                event_type: "justification_template_created",
                entity_type: "justification_template",
                entity_id: &id,
                details: json!({"name": name, "category": category, "default": is_default}),
                severity: "info",
            },
        )
        .await?;
    Ok(to_wire(row))
}

/// Saves an edit of a template.
pub async fn update(
    state: &AppState,
    actor: &Actor,
    id: &str,
    input: JustificationTemplateInput,
) -> ApiResult<JustificationTemplate> {
    let (name, category, content, is_default) = check(input)?;
    let now = crate::db::now();
    let mut change = Change::begin(state, topic()).await?;
    let write = JustificationWrite {
        name: &name,
        category,
        template_content: &content,
        is_default: i64::from(is_default),
        now: &now,
    };
    if !db::update(change.conn(), id, &write).await? {
        return Err(not_found());
    }
    if is_default {
        db::clear_default_except(change.conn(), id).await?;
    }
    let row = db::get(change.conn(), id).await?.ok_or_else(not_found)?;
    change
        .commit(
            actor,
            changed(id),
            Audit {
                event_type: "justification_template_updated",
                entity_type: "justification_template",
                entity_id: id,
                details: json!({"name": name, "category": category, "default": is_default}),
                severity: "info",
            },
        )
        .await?;
    Ok(to_wire(row))
}

/// Deletes a template.
pub async fn delete(state: &AppState, actor: &Actor, id: &str) -> ApiResult<()> {
    let mut change = Change::begin(state, topic()).await?;
    let before = db::get(change.conn(), id).await?.ok_or_else(not_found)?;
    db::delete(change.conn(), id).await?;
    change
        .commit(
            actor,
            changed(id),
            Audit {
                event_type: "justification_template_deleted",
                entity_type: "justification_template",
                entity_id: id,
                details: json!({"name": before.name}),
                severity: "warning",
            },
        )
        .await?;
    Ok(())
}

/// A weight in percent, without trailing zeros (`20%`, `37.5%`).
fn weight(pct: f64) -> String {
    let r = (pct * 100.0).round() / 100.0;
    format!("{r}%")
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let t = out.trim_matches('-');
    if t.is_empty() {
        "memo".into()
    } else {
        t.chars().take(60).collect()
    }
}

/// Generates the memo of a completed run from a template (see [`MemoRequest`]).
/// Administrators only (the route says so); the run may be any client's.
pub async fn memo(
    state: &AppState,
    actor: Actor,
    run_id: &str,
    req: MemoRequest,
) -> ApiResult<JustificationMemo> {
    let template = match req.template_id.as_deref().map(str::trim) {
        Some(id) if !id.is_empty() => {
            Some(db::get(&state.db.pool, id).await?.ok_or_else(not_found)?)
        }
        _ => db::default_template(&state.db.pool).await?,
    };
    let (template_id, template_name, content) = match template {
        Some(t) => (Some(t.id), t.name, t.template_content),
        None => (None, defaults().name, DEFAULT_MEMO.to_owned()),
    };
    let run = crate::db::insights::run(&state.db.pool, run_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Run not found"))?;
    let scope = super::scope_of(state, actor, &run.client_id, Need::Admin).await?;
    let r = super::insights::reclassified(state, &scope, &run.id, MEMO_CLASSIFICATIONS).await?;
    let lever = r
        .run
        .lever_name
        .clone()
        .or_else(|| r.result.lever_name.clone())
        .unwrap_or_else(|| "-".into());
    let now = chrono::Utc::now();
    let day = |ts: &str| ts.get(..10).unwrap_or(ts).to_owned();
    let classifications: Vec<MemoClassification> = r
        .items
        .iter()
        .map(|d| MemoClassification {
            exposure_id: if d.exposure_id.is_empty() {
                format!("Row {}", d.row)
            } else {
                d.exposure_id.clone()
            },
            exposure_type: lever.clone(),
            counterparty: d.counterparty.clone(),
            original_risk_weight: weight(d.original_rw),
            proposed_risk_weight: weight(d.proposed_rw),
            regulatory_reference: d.regulatory_basis.clone(),
            applied_rule: d.applied_rule.clone(),
            confidence: format!("{:.2}%", d.confidence),
            reason: d.reasoning.clone(),
            rwa_reduction: eur(d.capital_saving),
        })
        .collect();
    let listed = classifications.len() as u64;
    let ctx = MemoContext {
        date: now.format("%Y-%m-%d").to_string(),
        timestamp: now.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        client_name: scope.client_name.clone(),
        lever_name: lever,
        run_id: r.run.id.clone(),
        run_date: day(r.run.finished_at.as_deref().unwrap_or(&r.run.created_at)),
        file_name: r.run.file_name.clone(),
        file_count: 1,
        total_exposures: count(r.totals.rows),
        matched_exposures: count(r.totals.matched),
        reclassified_count: count(r.total),
        avg_confidence: r
            .mean_confidence
            .map(|c| format!("{c:.2}%"))
            .unwrap_or_else(|| "-".into()),
        validation_score: share(r.totals.matched as f64, r.totals.rows as f64),
        validation_status: r
            .run
            .validation_status
            .clone()
            .unwrap_or_else(|| "not submitted".into()),
        rwa_reduction: eur(r.totals.rwa_saving),
        reporting_date: r.reporting_date.clone(),
        rule_set: r.rule_set.clone(),
        model_version: format!(
            "capopt engine {}, rule set {}",
            env!("CARGO_PKG_VERSION"),
            r.rule_set
        ),
        classifications,
        classifications_omitted: r.total - listed,
    };
    let text = render(&content, &ctx)?;
    Ok(JustificationMemo {
        template_id,
        template_name,
        file_name: format!(
            "{}-{}.txt",
            slug(&format!("{} {}", ctx.client_name, ctx.lever_name)),
            slug(&r.run.id)
        ),
        run_id: r.run.id,
        client_name: ctx.client_name,
        text,
        classifications_listed: listed,
        classifications_total: r.total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_categories_become_custom() {
        assert_eq!(category("Regulatory "), "regulatory");
        assert_eq!(category("internal"), "internal");
        assert_eq!(category("policy"), "custom");
        assert_eq!(category(""), "custom");
    }

    #[test]
    fn the_default_memo_uses_every_placeholder_and_renders() {
        let text = render(DEFAULT_MEMO, &sample_context()).unwrap();
        assert!(text.contains("Client: Sample Bank"));
        assert!(text.contains("- EXP-1 (Public Sector Entities, Sample entity): 100% -> 20%"));
        assert!(!text.contains("{{") && !text.contains("{%"));
        for (name, _) in PLACEHOLDERS {
            for part in name.split(" / ") {
                let key = part.trim_start_matches("c.");
                assert!(
                    DEFAULT_MEMO.contains(key)
                        || [
                            "rwaReduction",
                            "appliedRule",
                            "counterparty",
                            "classificationsOmitted"
                        ]
                        .contains(&key)
                        || DEFAULT_MEMO.contains(part),
                    "{part} is documented but unused"
                );
            }
        }
    }

    #[test]
    fn templates_are_checked_with_clear_messages() {
        let input = |name: &str, content: &str| JustificationTemplateInput {
            name: name.into(),
            category: "other".into(),
            template_content: content.into(),
            is_default: false,
        };
        assert_eq!(
            check(input(" ", "x")).unwrap_err().to_string(),
            NAME_REQUIRED
        );
        assert_eq!(
            check(input("a", " \n")).unwrap_err().to_string(),
            CONTENT_REQUIRED
        );
        let typo = check(input("a", "Hello\n{{ clientNmae }}"))
            .unwrap_err()
            .to_string();
        assert!(typo.starts_with("Unknown placeholder on line 2."), "{typo}");
        let syntax = check(input("a", "{% for c in classifications %}"))
            .unwrap_err()
            .to_string();
        assert!(
            syntax.starts_with("Template syntax error on line 1"),
            "{syntax}"
        );
        let spin = check(input(
            "a",
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
        ))
        .unwrap_err()
        .to_string();
        assert_eq!(spin, "The template does too much work to render.");
        let (_, cat, content, _) = check(input("a", "{{ clientName }}\r\n")).unwrap();
        assert_eq!((cat, content.as_str()), ("custom", "{{ clientName }}\n"));
    }

    #[test]
    fn weights_and_file_names() {
        assert_eq!(weight(20.0), "20%");
        assert_eq!(weight(37.5), "37.5%");
        assert_eq!(slug("Bank A · Public Sector"), "bank-a-public-sector");
        assert_eq!(slug("··"), "memo");
    }
}
