//! 'Create template from PDF' (spec 002): an administrator uploads one PDF (at most 50 MB) and
//! follows the steps upload, parse, analyze, extract and generate, each pending, processing,
//! completed or error, as the server runs them. Parsing runs [`crate::pdf_import`] on a
//! blocking thread, isolated against panics and bounded in time; generating writes the
//! template (its sections with their pages, levels, tables and charts, and the first page's
//! colours as its branding) in one transaction, so a failure at any step leaves no template
//! behind, and a caller who leaves before the end gets none either.

use serde::Serialize;
use serde_json::json;
use tokio::sync::mpsc;

use super::report_templates::{
    self as templates, ReportTemplate, TemplateBlock, TemplateBranding, TemplateSection,
};
use super::{Actor, Audit, Change};
use crate::db::report_templates::{self as db, TemplateRow};
use crate::error::{ApiError, ApiResult};
use crate::pdf_import::{self, Block, Imported, Method, Step};
use crate::service::files::kind::Seen;
use crate::state::AppState;
use crate::storage::TempPath;

/// The specification's refusal of anything but a PDF.
pub const NOT_A_PDF: &str = "Please upload a PDF file";
/// The refusal of a PDF over the limit.
pub const TOO_LARGE: &str = "The PDF is larger than 50MB.";

/// The steps as the screen lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ImportStep {
    /// The file reaching the server.
    Upload,
    /// Reading its pages.
    Parse,
    /// Finding its sections.
    Analyze,
    /// Reading each section's text, tables and figures.
    Extract,
    /// Writing the template.
    Generate,
}

/// A step's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum StepState {
    /// Running.
    Processing,
    /// Done.
    Completed,
    /// Failed (the import stops).
    Error,
}

/// What the import found, shown when it is done.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportSummary {
    /// Where the sections came from: `outline`, `table_of_contents`, `headings` or
    /// `whole_document`.
    pub method: String,
    /// Pages read.
    pub pages: u32,
    /// Sections made.
    pub sections: u32,
    /// Tables found.
    pub tables: u32,
    /// Charts found.
    pub charts: u32,
    /// The first page's colours, most used first.
    pub palette: Vec<String>,
}

/// One event of an import, streamed to the screen.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum ImportEvent {
    /// A step's state and progress (`done` of `total` pages or sections).
    Step {
        /// The step.
        step: ImportStep,
        /// Its state.
        state: StepState,
        /// Units done.
        done: u32,
        /// Units in all.
        total: u32,
    },
    /// The template was created.
    Done {
        /// The new template.
        template: Box<ReportTemplate>,
        /// What was found.
        summary: ImportSummary,
    },
    /// The import failed at `step`; nothing was created.
    Failed {
        /// The step that failed.
        step: ImportStep,
        /// Why.
        message: String,
    },
}

/// The received upload and the form's fields.
pub struct PdfUpload {
    /// The file, in temporary storage.
    pub path: TempPath,
    /// The name the browser sent.
    pub file_name: String,
    /// What was seen of it.
    pub seen: Seen,
    /// The template's name (else the PDF's title, else the file's name).
    pub name: String,
    /// The template's type (custom when empty).
    pub template_type: String,
}

/// A checked upload, ready to import.
pub struct CheckedUpload {
    path: TempPath,
    file_name: String,
    name: Option<String>,
    template_type: String,
}

/// Checks the upload before anything runs: a PDF (by its first bytes, whatever its name or
/// declared type), within 50 MB, with a valid name and type.
pub fn check(upload: PdfUpload) -> ApiResult<CheckedUpload> {
    if upload.seen.size > pdf_import::MAX_BYTES {
        return Err(ApiError::TooLarge(TOO_LARGE.into()));
    }
    let head = &upload.seen.head;
    let start = head
        .iter()
        .take(1024)
        .position(|b| !b.is_ascii_whitespace());
    if !start.is_some_and(|i| head[i..].starts_with(b"%PDF-")) {
        return Err(ApiError::validation(NOT_A_PDF));
    }
    let name = match upload.name.trim() {
        "" => None,
        n => Some(templates::check_name(n)?),
    };
    let template_type = match upload.template_type.trim() {
        "" => "custom".to_owned(),
        t => templates::check_type(t)?,
    };
    Ok(CheckedUpload {
        path: upload.path,
        file_name: upload.file_name,
        name,
        template_type,
    })
}

fn step(step: ImportStep, state: StepState, done: usize, total: usize) -> ImportEvent {
    ImportEvent::Step {
        step,
        state,
        done: u32::try_from(done).unwrap_or(u32::MAX),
        total: u32::try_from(total).unwrap_or(u32::MAX),
    }
}

fn step_of(s: Step) -> ImportStep {
    match s {
        Step::Parse => ImportStep::Parse,
        Step::Analyze => ImportStep::Analyze,
        Step::Extract => ImportStep::Extract,
    }
}

/// Runs the import; its events arrive on the returned channel, the last one `Done` or
/// `Failed`. The template is written only if the receiver is still there at the end.
pub fn run(state: AppState, actor: Actor, upload: CheckedUpload) -> mpsc::Receiver<ImportEvent> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let _ = tx
            .send(step(ImportStep::Upload, StepState::Completed, 1, 1))
            .await;
        let last = match import(&state, &actor, &upload, &tx).await {
            Ok(Some(done)) => done,
            Ok(None) => return,
            Err((at, message)) => ImportEvent::Failed { step: at, message },
        };
        if let ImportEvent::Failed { step: at, .. } = &last {
            let _ = tx.send(step(*at, StepState::Error, 0, 0)).await;
        }
        let _ = tx.send(last).await;
    });
    rx
}

async fn import(
    state: &AppState,
    actor: &Actor,
    upload: &CheckedUpload,
    tx: &mpsc::Sender<ImportEvent>,
) -> Result<Option<ImportEvent>, (ImportStep, String)> {
    let bytes = tokio::fs::read(&*upload.path).await.map_err(|e| {
        tracing::error!(error = %e, "the uploaded PDF could not be read back");
        (
            ImportStep::Parse,
            "The uploaded file could not be read.".to_owned(),
        )
    })?;
    let progress_tx = tx.clone();
    let mut last: Option<(Step, usize)> = None;
    let mut parse = tokio::task::spawn_blocking(move || {
        pdf_import::import_isolated(&bytes, &mut |p| {
            // One event per step change and per 2 % of a step, not one per page.
            let every = (p.total / 50).max(1);
            let fresh =
                last.is_none_or(|(s, d)| s != p.step || p.done >= d + every || p.done == p.total);
            if fresh {
                last = Some((p.step, p.done));
                let state = if p.done == p.total && p.total > 0 {
                    StepState::Completed
                } else {
                    StepState::Processing
                };
                let _ = progress_tx.blocking_send(step(step_of(p.step), state, p.done, p.total));
            }
        })
    });
    // The importer checks its time between pages; a page it never finishes is bounded here.
    let deadline = tokio::time::sleep(pdf_import::MAX_TIME + std::time::Duration::from_secs(5));
    let imported = tokio::select! {
        r = &mut parse => r,
        () = deadline => {
            return Err((ImportStep::Parse, pdf_import::ImportError::TimedOut.to_string()));
        }
    };
    let imported = match imported {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => return Err((step_of(e.step()), e.to_string())),
        Err(e) => {
            tracing::error!(error = %e, "the PDF import task failed");
            return Err((
                ImportStep::Parse,
                pdf_import::ImportError::Panicked.to_string(),
            ));
        }
    };
    if tx.is_closed() {
        return Ok(None);
    }
    let _ = tx
        .send(step(ImportStep::Generate, StepState::Processing, 0, 1))
        .await;
    let (template, summary) = generate(state, actor, upload, imported)
        .await
        .map_err(|e| (ImportStep::Generate, e.to_string()))?;
    let _ = tx
        .send(step(ImportStep::Generate, StepState::Completed, 1, 1))
        .await;
    Ok(Some(ImportEvent::Done {
        template: Box::new(template),
        summary,
    }))
}

/// The section type a title suggests (a summary, an introduction...), else plain content.
pub fn kind_of(title: &str) -> &'static str {
    let t = title.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if has(&["summary", "overview", "highlights"]) {
        "summary"
    } else if has(&["introduction", "purpose", "scope", "background"]) {
        "introduction"
    } else if has(&["conclusion", "outlook", "next steps"]) {
        "conclusion"
    } else if has(&[
        "capital",
        "own funds",
        "cet1",
        "tier 1",
        "rwa",
        "risk-weighted",
    ]) {
        "capital"
    } else if has(&[
        "regulat",
        "framework",
        "basel",
        "crr",
        "article",
        "compliance",
    ]) {
        "regulatory"
    } else {
        "content"
    }
}

fn block(b: Block) -> TemplateBlock {
    match b {
        Block::Table(t) => TemplateBlock::Table {
            caption: t.caption,
            columns: t.columns,
            rows: t.rows,
        },
        Block::Chart(c) => TemplateBlock::Chart {
            title: c.title,
            labels: c.labels,
            values: c.values,
        },
    }
}

fn file_stem(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base
        .strip_suffix(".pdf")
        .or_else(|| base.strip_suffix(".PDF"))
        .unwrap_or(base);
    crate::knowledge::collapse_ws(&stem.replace(['_', '-'], " "))
}

fn method_label(m: Method) -> &'static str {
    match m {
        Method::Outline => "its outline",
        Method::TableOfContents => "its table of contents",
        Method::Headings => "its headings",
        Method::WholeDocument => "its text (no structure was found)",
    }
}

async fn generate(
    state: &AppState,
    actor: &Actor,
    upload: &CheckedUpload,
    x: Imported,
) -> ApiResult<(ReportTemplate, ImportSummary)> {
    let name = match &upload.name {
        Some(n) => n.clone(),
        None => {
            let raw = x
                .title
                .clone()
                .filter(|t| !t.trim().is_empty())
                .unwrap_or_else(|| file_stem(&upload.file_name));
            let raw = if raw.trim().is_empty() {
                "Imported template".to_owned()
            } else {
                raw
            };
            templates::check_name(&pdf_import::cut_title(&raw))?
        }
    };
    let (mut tables, mut charts) = (0u32, 0u32);
    let sections: Vec<TemplateSection> = x
        .sections
        .into_iter()
        .map(|s| {
            for b in &s.blocks {
                match b {
                    Block::Table(_) => tables += 1,
                    Block::Chart(_) => charts += 1,
                }
            }
            TemplateSection {
                id: String::new(),
                kind: kind_of(&s.title).to_owned(),
                title: s.title,
                content: s.content,
                level: Some(s.level.clamp(1, 6)),
                page_start: Some(s.page_start.clamp(1, 1000)),
                page_end: Some(s.page_end.clamp(s.page_start.clamp(1, 1000), 1000)),
                blocks: s.blocks.into_iter().map(block).collect(),
            }
        })
        .collect();
    let sections = templates::check_sections(sections)?;
    let defaults = TemplateBranding::default();
    let branding = templates::check_branding(TemplateBranding {
        primary_color: x
            .palette
            .first()
            .cloned()
            .unwrap_or(defaults.primary_color.clone()),
        secondary_color: x
            .palette
            .get(1)
            .cloned()
            .unwrap_or(defaults.secondary_color.clone()),
        background_color: x
            .background
            .clone()
            .unwrap_or(defaults.background_color.clone()),
        ..defaults
    })?;
    let description = templates::clean_text(
        &format!(
            "Created from {} ({} pages), sections from {}.",
            upload.file_name.chars().take(200).collect::<String>(),
            x.pages,
            method_label(x.method)
        ),
        templates::MAX_DESCRIPTION_CHARS,
        "Description",
    )?;
    let summary = ImportSummary {
        method: x.method.code().to_owned(),
        pages: u32::try_from(x.pages).unwrap_or(u32::MAX),
        sections: u32::try_from(sections.len()).unwrap_or(u32::MAX),
        tables,
        charts,
        palette: x.palette.clone(),
    };
    let now = crate::db::now();
    let row = TemplateRow {
        id: crate::db::new_id(),
        name,
        description,
        sections: templates::json_text(&sections)?,
        branding: templates::json_text(&branding)?,
        template_type: upload.template_type.clone(),
        is_active: 1,
        created_by: Some(actor.user.id.to_string()),
        created_at: now.clone(),
        updated_at: now,
    };
    let mut change = Change::begin(state, templates::templates_topic()).await?;
    db::insert(change.conn(), &row).await?;
    let id = row.id.clone();
    change
        .commit(
            actor,
            templates::changed(&id),
            Audit {
                event_type: "report_template_imported",
                entity_type: "report_template",
                entity_id: &id,
                details: json!({
                    "name": row.name, "type": row.template_type, "file": upload.file_name,
                    "pages": summary.pages, "sections": summary.sections, "method": summary.method,
                }),
                severity: "info",
            },
        )
        .await?;
    // Read back as stored, as the screens will see it.
    let stored = db::get(&state.db.pool, &id)
        .await?
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("imported template {id} vanished")))?;
    Ok((templates::to_wire(stored)?, summary))
}
