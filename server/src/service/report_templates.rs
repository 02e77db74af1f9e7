//! Report templates (spec 002, report templates): administrators keep the templates a report can
//! start from (name, type fixed at creation, sections with their starting text, branding, active
//! flag); clients pick among the active ones, and the report's collaborative document is written
//! from the template's sections when it is created ([`crate::service::reports::create`]).
//! Changes are announced on `admin:templates`, which the administrators' screens follow.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Actor, Audit, Change};
use crate::db::report_templates::{self as db, TemplateRow};
use crate::error::{ApiError, ApiResult};
use crate::realtime::{Event, Topic};
use crate::state::AppState;

/// Template types, with the labels the screens show.
pub const TYPES: [(&str, &str); 3] = [
    ("basel_iii", "Basel III Standard"),
    ("eba", "EBA Template Report"),
    ("custom", "Custom Template"),
];
/// Fonts a template's branding may name (the template editor's 16).
pub const FONTS: [&str; 16] = [
    "SF Pro Display",
    "Arial",
    "Helvetica",
    "Times New Roman",
    "Georgia",
    "Calibri",
    "Verdana",
    "Garamond",
    "Courier New",
    "Roboto",
    "Inter",
    "Open Sans",
    "Lato",
    "Montserrat",
    "Source Sans Pro",
    "Palatino",
];
/// Kinds of section (a custom one is added by hand).
pub const SECTION_KINDS: [&str; 7] = [
    "summary",
    "introduction",
    "regulatory",
    "capital",
    "conclusion",
    "content",
    "custom",
];
/// Sections a template may hold.
pub const MAX_SECTIONS: usize = 100;
/// Longest section title, in characters.
pub const MAX_TITLE_CHARS: usize = 199;
/// Longest section text, in characters.
pub const MAX_CONTENT_CHARS: usize = 20_000;
/// Longest template name and description, in characters.
pub const MAX_NAME_CHARS: usize = 120;
pub const MAX_DESCRIPTION_CHARS: usize = 2_000;
/// Longest report subtitle, in characters.
pub const MAX_SUBTITLE_CHARS: usize = 200;

/// The spec's validation messages.
pub const NAME_REQUIRED: &str = "Template name is required";
pub const TYPE_REQUIRED: &str = "Template type is required";

/// The topic of the templates.
pub fn templates_topic() -> Topic {
    Topic::Admin { area: "templates" }
}

/// One section of a template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct TemplateSection {
    /// Id, unique within the template (given by the server when empty).
    #[serde(default)]
    pub id: String,
    /// Title, 1 to 199 characters.
    pub title: String,
    /// summary, introduction, regulatory, capital, conclusion, content or custom.
    pub kind: String,
    /// Starting text; a blank line separates paragraphs.
    #[serde(default)]
    pub content: String,
    /// Heading level (1 for a top-level section), for a section made from a PDF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub level: Option<u8>,
    /// First page of the PDF the section was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub page_start: Option<u32>,
    /// Last page of the PDF the section was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub page_end: Option<u32>,
    /// Tables and charts written after the text (found in an imported PDF).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<TemplateBlock>>", optional)]
    pub blocks: Vec<TemplateBlock>,
}

/// A table or a chart of a template's section, written into a report's section after its text
/// (as the editor's table and chart nodes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum TemplateBlock {
    /// A table: column names and rows of cells.
    Table {
        /// Caption, shown above the table (may be empty).
        caption: String,
        /// Column names (1 to 12).
        columns: Vec<String>,
        /// Rows, each with one cell per column (at most 100).
        rows: Vec<Vec<String>>,
    },
    /// A bar chart of labelled values.
    Chart {
        /// Title.
        title: String,
        /// One label per value.
        labels: Vec<String>,
        /// Values (1 to 10, each under 1,000,000).
        values: Vec<f64>,
    },
}

/// A template's look, the report's starting branding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct TemplateBranding {
    /// `#rrggbb`.
    pub primary_color: String,
    /// `#rrggbb`.
    pub secondary_color: String,
    /// `#rrggbb`.
    pub background_color: String,
    /// One of [`FONTS`].
    pub font_family: String,
    /// One of [`FONTS`].
    pub heading_font_family: String,
    /// 0.8 to 1.5.
    pub font_scale: f64,
    /// `portrait` or `landscape`.
    pub orientation: String,
    /// The report's subtitle.
    #[serde(default)]
    pub subtitle: String,
}

impl Default for TemplateBranding {
    fn default() -> Self {
        TemplateBranding {
            primary_color: "#1e3a8a".into(),
            secondary_color: "#0ea5e9".into(),
            background_color: "#ffffff".into(),
            font_family: "SF Pro Display".into(),
            heading_font_family: "SF Pro Display".into(),
            font_scale: 1.0,
            orientation: "portrait".into(),
            subtitle: String::new(),
        }
    }
}

/// A template as the screens show it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportTemplate {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// `basel_iii`, `eba` or `custom`.
    pub template_type: String,
    /// Sections, in order.
    pub sections: Vec<TemplateSection>,
    /// Branding.
    pub branding: TemplateBranding,
    /// Offered to clients.
    pub is_active: bool,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

/// A new template: its type's default sections and the default branding are filled in.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct NewTemplate {
    /// Name (required).
    #[serde(default)]
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: String,
    /// `basel_iii`, `eba` or `custom` (required).
    #[serde(default)]
    pub template_type: String,
}

/// An edit of a template (everything but its type).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct TemplateEdit {
    /// Name (required).
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: String,
    /// Sections, in order (at least one).
    pub sections: Vec<TemplateSection>,
    /// Branding.
    pub branding: TemplateBranding,
    /// Offered to clients.
    pub is_active: bool,
}

/// The sections a new template of `template_type` starts with.
pub fn default_sections(template_type: &str) -> Vec<TemplateSection> {
    let list: &[(&str, &str)] = match template_type {
        "basel_iii" => &[
            ("Executive Summary", "summary"),
            ("Basel III Overview", "regulatory"),
            ("Capital Adequacy", "capital"),
        ],
        "eba" => &[
            ("Executive Summary", "summary"),
            ("Purpose", "introduction"),
            ("Regulatory Framework", "regulatory"),
        ],
        _ => &[("Introduction", "introduction")],
    };
    list.iter()
        .map(|(title, kind)| TemplateSection {
            id: crate::db::new_id(),
            title: (*title).into(),
            kind: (*kind).into(),
            content: String::new(),
            level: None,
            page_start: None,
            page_end: None,
            blocks: Vec::new(),
        })
        .collect()
}

/// The paragraphs a section's text starts the report's section with (blank lines separate them;
/// single line breaks stay inside a paragraph).
pub fn paragraphs(content: &str) -> Vec<String> {
    content
        .replace("\r\n", "\n")
        .split("\n\n")
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

/// A template's branding as the entries of a report document's branding map
/// ([`collab::report::BRANDING_MAP`]).
pub fn branding_entries(b: &TemplateBranding) -> Vec<(&'static str, yrs::Any)> {
    use yrs::Any;
    vec![
        ("primaryColor", Any::from(b.primary_color.as_str())),
        ("secondaryColor", Any::from(b.secondary_color.as_str())),
        ("backgroundColor", Any::from(b.background_color.as_str())),
        ("fontFamily", Any::from(b.font_family.as_str())),
        (
            "headingFontFamily",
            Any::from(b.heading_font_family.as_str()),
        ),
        ("fontScale", Any::from(b.font_scale)),
        ("orientation", Any::from(b.orientation.as_str())),
        ("subtitle", Any::from(b.subtitle.as_str())),
    ]
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::validation(message)
}

fn not_found() -> ApiError {
    ApiError::not_found("Template Not Found")
}

pub(super) fn clean_text(raw: &str, max: usize, what: &str) -> ApiResult<String> {
    let t = raw.trim();
    if t.chars().count() > max {
        return Err(invalid(format!("{what} must be at most {max} characters.")));
    }
    Ok(t.to_owned())
}

pub(super) fn check_name(raw: &str) -> ApiResult<String> {
    let name = clean_text(raw, MAX_NAME_CHARS, "Template name")?;
    if name.is_empty() {
        return Err(invalid(NAME_REQUIRED));
    }
    Ok(name)
}

pub(super) fn check_type(raw: &str) -> ApiResult<String> {
    let t = raw.trim();
    if t.is_empty() {
        return Err(invalid(TYPE_REQUIRED));
    }
    TYPES
        .iter()
        .find(|(code, _)| *code == t)
        .map(|(code, _)| (*code).to_owned())
        .ok_or_else(|| invalid(format!("Unknown template type '{t}'.")))
}

fn is_colour(s: &str) -> bool {
    s.len() == 7 && s.starts_with('#') && s[1..].chars().all(|c| c.is_ascii_hexdigit())
}

pub(super) fn check_branding(b: TemplateBranding) -> ApiResult<TemplateBranding> {
    for (value, what) in [
        (&b.primary_color, "Primary colour"),
        (&b.secondary_color, "Secondary colour"),
        (&b.background_color, "Background colour"),
    ] {
        if !is_colour(value) {
            return Err(invalid(format!("{what} must be a colour like #1e3a8a.")));
        }
    }
    for font in [&b.font_family, &b.heading_font_family] {
        if !FONTS.contains(&font.as_str()) {
            return Err(invalid(format!("Unknown font '{font}'.")));
        }
    }
    if !(0.8..=1.5).contains(&b.font_scale) {
        return Err(invalid("Font scale must be between 0.8 and 1.5."));
    }
    if b.orientation != "portrait" && b.orientation != "landscape" {
        return Err(invalid("Orientation must be portrait or landscape."));
    }
    let subtitle = clean_text(&b.subtitle, MAX_SUBTITLE_CHARS, "Subtitle")?;
    Ok(TemplateBranding {
        primary_color: b.primary_color.to_ascii_lowercase(),
        secondary_color: b.secondary_color.to_ascii_lowercase(),
        background_color: b.background_color.to_ascii_lowercase(),
        subtitle,
        ..b
    })
}

pub(super) fn check_sections(sections: Vec<TemplateSection>) -> ApiResult<Vec<TemplateSection>> {
    if sections.is_empty() {
        return Err(invalid("A template needs at least one section."));
    }
    if sections.len() > MAX_SECTIONS {
        return Err(invalid(format!(
            "A template may hold at most {MAX_SECTIONS} sections."
        )));
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(sections.len());
    for (i, s) in sections.into_iter().enumerate() {
        let title = s.title.trim().to_owned();
        if title.is_empty() {
            return Err(invalid(format!("Section {} needs a title.", i + 1)));
        }
        if title.chars().count() > MAX_TITLE_CHARS {
            return Err(invalid(format!(
                "Section titles must be at most {MAX_TITLE_CHARS} characters."
            )));
        }
        if !SECTION_KINDS.contains(&s.kind.as_str()) {
            return Err(invalid(format!("Unknown section type '{}'.", s.kind)));
        }
        if s.content.chars().count() > MAX_CONTENT_CHARS {
            return Err(invalid(format!(
                "Section text must be at most {MAX_CONTENT_CHARS} characters."
            )));
        }
        let id = match s.id.trim() {
            "" => crate::db::new_id(),
            id if id.len() <= 64
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
            {
                id.to_owned()
            }
            _ => return Err(invalid("Section ids are letters, digits, '-' and '_'.")),
        };
        if !seen.insert(id.clone()) {
            return Err(invalid("Two sections share one id."));
        }
        if s.level.is_some_and(|l| !(1..=6).contains(&l)) {
            return Err(invalid("Section levels run from 1 to 6."));
        }
        let page = |p: Option<u32>| p.is_none_or(|p| (1..=1000).contains(&p));
        if !page(s.page_start)
            || !page(s.page_end)
            || s.page_start.zip(s.page_end).is_some_and(|(a, b)| a > b)
        {
            return Err(invalid(
                "Section pages run from 1 to 1000, the first before the last.",
            ));
        }
        check_blocks(&s.blocks)?;
        out.push(TemplateSection {
            id,
            title,
            kind: s.kind,
            content: s.content,
            level: s.level,
            page_start: s.page_start,
            page_end: s.page_end,
            blocks: s.blocks,
        });
    }
    Ok(out)
}

/// Most tables and charts a section holds.
pub const MAX_BLOCKS: usize = 20;

fn check_blocks(blocks: &[TemplateBlock]) -> ApiResult<()> {
    if blocks.len() > MAX_BLOCKS {
        return Err(invalid(format!(
            "A section may hold at most {MAX_BLOCKS} tables and charts."
        )));
    }
    let short = |t: &str| t.chars().count() <= 200;
    for b in blocks {
        match b {
            TemplateBlock::Table {
                caption,
                columns,
                rows,
            } => {
                if columns.is_empty() || columns.len() > 12 || rows.len() > 100 {
                    return Err(invalid("A table has 1 to 12 columns and at most 100 rows."));
                }
                if rows.iter().any(|r| r.len() != columns.len()) {
                    return Err(invalid("Every table row has one cell per column."));
                }
                if !short(caption)
                    || !columns
                        .iter()
                        .chain(rows.iter().flatten())
                        .all(|c| short(c))
                {
                    return Err(invalid("Table cells must be at most 200 characters."));
                }
            }
            TemplateBlock::Chart {
                title,
                labels,
                values,
            } => {
                if values.is_empty() || values.len() > 10 || labels.len() != values.len() {
                    return Err(invalid("A chart has 1 to 10 values, each with its label."));
                }
                if values
                    .iter()
                    .any(|v| !v.is_finite() || v.abs() >= 1_000_000.0)
                {
                    return Err(invalid("Chart values must be numbers under 1,000,000."));
                }
                if !short(title) || !labels.iter().all(|l| short(l)) {
                    return Err(invalid(
                        "Chart titles and labels must be at most 200 characters.",
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A template's sections as a new report's (or its preview's), with their tables and charts
/// as the editor's nodes; `id` names each section from its position and template id.
pub fn section_inits(
    template: &ReportTemplate,
    id: impl Fn(usize, &str) -> String,
) -> Vec<collab::report::SectionInit> {
    template
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| collab::report::SectionInit {
            id: id(i, &s.id),
            title: s.title.clone(),
            paragraphs: paragraphs(&s.content),
            nodes: s.blocks.iter().flat_map(block_nodes).collect(),
        })
        .collect()
}

fn block_nodes(b: &TemplateBlock) -> Vec<collab::report::NodeInit> {
    use collab::report::NodeInit;
    let attrs = |pairs: &[(&str, String)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    };
    let cell =
        |tag: &str, text: &str| NodeInit::element(tag, Vec::new(), vec![NodeInit::paragraph(text)]);
    match b {
        TemplateBlock::Table {
            caption,
            columns,
            rows,
        } => {
            let mut content = vec![NodeInit::element(
                "tableRow",
                Vec::new(),
                columns.iter().map(|c| cell("tableHeader", c)).collect(),
            )];
            content.extend(rows.iter().map(|r| {
                NodeInit::element(
                    "tableRow",
                    Vec::new(),
                    r.iter().map(|c| cell("tableCell", c)).collect(),
                )
            }));
            let table = NodeInit::element(
                "table",
                attrs(&[
                    ("fontSize", "12".into()),
                    ("width", "100%".into()),
                    ("sourceMediaId", String::new()),
                    ("sourceDataset", String::new()),
                ]),
                content,
            );
            if caption.is_empty() {
                vec![table]
            } else {
                vec![NodeInit::paragraph(caption), table]
            }
        }
        TemplateBlock::Chart {
            title,
            labels,
            values,
        } => {
            let rows: Vec<serde_json::Value> = labels
                .iter()
                .zip(values)
                .map(|(l, v)| json!({"Label": l, "Value": v}))
                .collect();
            vec![NodeInit::element(
                "chart",
                attrs(&[
                    ("chartId", crate::db::new_id()),
                    ("chartType", "bar".into()),
                    ("title", title.clone()),
                    ("xColumn", "Label".into()),
                    ("yColumns", r#"["Value"]"#.into()),
                    ("rows", serde_json::Value::Array(rows).to_string()),
                    ("source", String::new()),
                    ("width", "600".into()),
                    ("height", "400".into()),
                    ("fontSize", "12".into()),
                    ("fontFamily", "Arial".into()),
                    ("colorScheme", "default".into()),
                    ("showLegend", "true".into()),
                    ("showGrid", "true".into()),
                ]),
                Vec::new(),
            )]
        }
    }
}

pub(super) fn to_wire(row: TemplateRow) -> ApiResult<ReportTemplate> {
    let sections = serde_json::from_str(&row.sections)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("template {} sections: {e}", row.id)))?;
    let branding = serde_json::from_str(&row.branding)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("template {} branding: {e}", row.id)))?;
    Ok(ReportTemplate {
        id: row.id,
        name: row.name,
        description: row.description,
        template_type: row.template_type,
        sections,
        branding,
        is_active: row.is_active == 1,
        created_at: row.created_at,
        updated_at: row.updated_at,
    })
}

pub(super) fn json_text<T: Serialize>(value: &T) -> ApiResult<String> {
    serde_json::to_string(value).map_err(|e| ApiError::Internal(e.into()))
}

pub(super) fn changed(id: &str) -> Event {
    Event::TemplatesChanged(crate::realtime::events::TemplateRef {
        template_id: id.to_owned(),
    })
}

/// The templates by name: every one (administrators) or, with `active_only`, those a client may
/// start a report from.
pub async fn list(state: &AppState, active_only: bool) -> ApiResult<Vec<ReportTemplate>> {
    db::list(&state.db.pool, active_only)
        .await?
        .into_iter()
        .map(to_wire)
        .collect()
}

/// One template.
pub async fn get(state: &AppState, id: &str) -> ApiResult<ReportTemplate> {
    to_wire(db::get(&state.db.pool, id).await?.ok_or_else(not_found)?)
}

/// The template's preview as a PDF: the report a client would start from it (its sections
/// with their starting text, in its branding), laid out by the report export.
pub async fn preview_pdf(
    state: &AppState,
    id: &str,
) -> ApiResult<super::dashboard::export::ExportFile> {
    let template = get(state, id).await?;
    let sections = section_inits(&template, |i, id| format!("{i}-{id}"));
    let update =
        collab::report::initial_update_branded(&sections, &branding_entries(&template.branding));
    let report = crate::pdf::model::read_report_v1(&update, &template.name)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("template {id}: {e}")))?;
    let bytes = super::pdf::render(report, &crate::pdf::NoAssets).await?;
    Ok(super::pdf::file(&template.name, bytes))
}

/// An active template, for a new report ("Failed to fetch template" otherwise, as the spec says).
pub async fn active(state: &AppState, id: &str) -> ApiResult<ReportTemplate> {
    match db::get(&state.db.pool, id).await? {
        Some(row) if row.is_active == 1 => to_wire(row),
        _ => Err(ApiError::Validation {
            code: "template_not_found",
            message: "Failed to fetch template".into(),
        }),
    }
}

/// Creates a template with its type's default sections and the default branding (active).
pub async fn create(
    state: &AppState,
    actor: &Actor,
    input: NewTemplate,
) -> ApiResult<ReportTemplate> {
    let name = check_name(&input.name)?;
    let template_type = check_type(&input.template_type)?;
    let description = clean_text(&input.description, MAX_DESCRIPTION_CHARS, "Description")?;
    let now = crate::db::now();
    let row = TemplateRow {
        id: crate::db::new_id(),
        name,
        description,
        sections: json_text(&default_sections(&template_type))?,
        branding: json_text(&TemplateBranding::default())?,
        template_type,
        is_active: 1,
        created_by: Some(actor.user.id.to_string()),
        created_at: now.clone(),
        updated_at: now,
    };
    let mut change = Change::begin(state, templates_topic()).await?;
    db::insert(change.conn(), &row).await?;
    let id = row.id.clone();
    change
        .commit(
            actor,
            changed(&id),
            Audit {
                event_type: "report_template_created",
                entity_type: "report_template",
                entity_id: &id,
                details: json!({"name": row.name, "type": row.template_type}),
                severity: "info",
            },
        )
        .await?;
    to_wire(row)
}

/// Saves an edit of a template (its type stays).
pub async fn update(
    state: &AppState,
    actor: &Actor,
    id: &str,
    input: TemplateEdit,
) -> ApiResult<ReportTemplate> {
    let name = check_name(&input.name)?;
    let description = clean_text(&input.description, MAX_DESCRIPTION_CHARS, "Description")?;
    let sections = check_sections(input.sections)?;
    let branding = check_branding(input.branding)?;
    let sections_json = json_text(&sections)?;
    let branding_json = json_text(&branding)?;
    let now = crate::db::now();
    let mut change = Change::begin(state, templates_topic()).await?;
    let updated = db::update(
        change.conn(),
        id,
        &db::TemplateChange {
            name: &name,
            description: &description,
            sections: &sections_json,
            branding: &branding_json,
            is_active: i64::from(input.is_active),
            now: &now,
        },
    )
    .await?;
    if !updated {
        return Err(not_found());
    }
    let row = db::get(change.conn(), id).await?.ok_or_else(not_found)?;
    change
        .commit(
            actor,
            changed(id),
            Audit {
                event_type: "report_template_updated",
                entity_type: "report_template",
                entity_id: id,
                details: json!({"name": name, "sections": sections.len(), "active": input.is_active}),
                severity: "info",
            },
        )
        .await?;
    to_wire(row)
}

/// Deletes a template (reports made from it keep their content).
pub async fn delete(state: &AppState, actor: &Actor, id: &str) -> ApiResult<()> {
    let mut change = Change::begin(state, templates_topic()).await?;
    let before = db::get(change.conn(), id).await?.ok_or_else(not_found)?;
    db::delete(change.conn(), id).await?;
    change
        .commit(
            actor,
            changed(id),
            Audit {
                event_type: "report_template_deleted",
                entity_type: "report_template",
                entity_id: id,
                details: json!({"name": before.name}),
                severity: "warning",
            },
        )
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_has_the_specs_default_sections() {
        let titles = |t: &str| {
            default_sections(t)
                .into_iter()
                .map(|s| s.title)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            titles("basel_iii"),
            [
                "Executive Summary",
                "Basel III Overview",
                "Capital Adequacy"
            ]
        );
        assert_eq!(
            titles("eba"),
            ["Executive Summary", "Purpose", "Regulatory Framework"]
        );
        assert_eq!(titles("custom"), ["Introduction"]);
    }

    #[test]
    fn name_and_type_are_required_with_the_specs_messages() {
        assert_eq!(check_name("  ").unwrap_err().to_string(), NAME_REQUIRED);
        assert_eq!(check_type("").unwrap_err().to_string(), TYPE_REQUIRED);
        assert!(check_type("pillar_iii").is_err());
        assert_eq!(check_type(" eba ").unwrap(), "eba");
    }

    #[test]
    fn sections_are_checked_and_given_ids() {
        let s = |title: &str, kind: &str| TemplateSection {
            id: String::new(),
            title: title.into(),
            kind: kind.into(),
            content: String::new(),
            level: None,
            page_start: None,
            page_end: None,
            blocks: Vec::new(),
        };
        let ok =
            check_sections(vec![s(" Scope ", "introduction"), s("Capital", "capital")]).unwrap();
        assert_eq!(ok[0].title, "Scope");
        assert!(!ok[0].id.is_empty() && ok[0].id != ok[1].id);
        assert!(check_sections(vec![]).is_err());
        assert!(check_sections(vec![s("", "content")]).is_err());
        assert!(check_sections(vec![s("x", "chapter")]).is_err());
        assert!(check_sections(vec![s(&"t".repeat(200), "content")]).is_err());
        let mut dup = vec![s("a", "content"), s("b", "content")];
        dup[0].id = "same".into();
        dup[1].id = "same".into();
        assert!(check_sections(dup).is_err());
        assert!(check_sections((0..101).map(|_| s("a", "content")).collect()).is_err());
    }

    #[test]
    fn branding_is_checked() {
        let b = TemplateBranding::default();
        assert_eq!(check_branding(b.clone()).unwrap(), b);
        let upper = TemplateBranding {
            primary_color: "#ABCDEF".into(),
            ..b.clone()
        };
        assert_eq!(check_branding(upper).unwrap().primary_color, "#abcdef");
        for bad in [
            TemplateBranding {
                primary_color: "red".into(),
                ..b.clone()
            },
            TemplateBranding {
                font_family: "Comic Sans".into(),
                ..b.clone()
            },
            TemplateBranding {
                font_scale: 3.0,
                ..b.clone()
            },
            TemplateBranding {
                orientation: "square".into(),
                ..b.clone()
            },
        ] {
            assert!(check_branding(bad).is_err());
        }
    }

    #[test]
    fn blank_lines_separate_paragraphs() {
        assert_eq!(
            paragraphs("First line\nsame paragraph\r\n\r\nSecond\n\n\n  \nThird "),
            ["First line\nsame paragraph", "Second", "Third"]
        );
        assert!(paragraphs("  \n\n ").is_empty());
    }
}
