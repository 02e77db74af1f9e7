//! Every message the event socket sends, as one tagged enum: `{topic, seq, type, data}` on the
//! wire, where `type` names the variant and `data` carries its payload. The web app's
//! `EventFrame` union is generated from [`EventFrame`], so a screen narrows on `type` and gets a
//! typed payload without a cast.

use serde::Serialize;

use crate::service::board::BoardPatch;
use crate::service::calculator::ScenarioChange;
use crate::service::report_media::ReportMediaChange;
use crate::service::report_versions::ReportVersionChange;
use crate::service::reports::ReportListChange;
use crate::service::runs::RunSnapshot;
use crate::service::savings::SavingsChanged;
use crate::service::validations::ValidationChange;

/// What a frame says. Events carry the sequence number of their topic; control frames
/// (`subscribed`, `unsubscribed`, `denied`, `pong`, `resync`, `error`, `session.changed`) answer
/// the connection.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(tag = "type", content = "data")]
#[ts(export)]
pub enum Event {
    /// A board column was created.
    #[serde(rename = "column.created")]
    ColumnCreated(BoardPatch),
    /// A board column was renamed.
    #[serde(rename = "column.updated")]
    ColumnUpdated(BoardPatch),
    /// Board columns moved.
    #[serde(rename = "column.moved")]
    ColumnMoved(BoardPatch),
    /// A task was created.
    #[serde(rename = "task.created")]
    TaskCreated(BoardPatch),
    /// A task was edited.
    #[serde(rename = "task.updated")]
    TaskUpdated(BoardPatch),
    /// A task was deleted.
    #[serde(rename = "task.deleted")]
    TaskDeleted(BoardPatch),
    /// Tasks moved.
    #[serde(rename = "task.moved")]
    TaskMoved(BoardPatch),
    /// A category was created.
    #[serde(rename = "category.created")]
    CategoryCreated(BoardPatch),
    /// A category was deleted (its tasks are sent without it).
    #[serde(rename = "category.deleted")]
    CategoryDeleted(BoardPatch),
    /// A report was created.
    #[serde(rename = "report.created")]
    ReportCreated(ReportListChange),
    /// A report's name, status or folder changed.
    #[serde(rename = "report.updated")]
    ReportUpdated(ReportListChange),
    /// A report was deleted.
    #[serde(rename = "report.deleted")]
    ReportDeleted(ReportListChange),
    /// A report folder was created.
    #[serde(rename = "folder.created")]
    FolderCreated(ReportListChange),
    /// A report folder was deleted.
    #[serde(rename = "folder.deleted")]
    FolderDeleted(ReportListChange),
    /// A data file or image was uploaded to a report.
    #[serde(rename = "report.media.created")]
    ReportMediaCreated(ReportMediaChange),
    /// A data file or image of a report was deleted.
    #[serde(rename = "report.media.deleted")]
    ReportMediaDeleted(ReportMediaChange),
    /// A version of a report was taken (by a user, or before a restore).
    #[serde(rename = "report.versions.changed")]
    ReportVersionsChanged(ReportVersionChange),
    /// A processing run's progress or end (its snapshot; `seq` is the run's own, on the run's
    /// topic and `admin:runs`).
    #[serde(rename = "run.progress")]
    RunProgress(Box<RunSnapshot>),
    /// A client file was stored.
    #[serde(rename = "file.created")]
    FileCreated(FileChange),
    /// A client file changed (its processing status, results, lever).
    #[serde(rename = "file.updated")]
    FileUpdated(FileChange),
    /// A client file was deleted.
    #[serde(rename = "file.deleted")]
    FileDeleted(FileChange),
    /// A client's savings totals were recomputed.
    #[serde(rename = "savings.changed")]
    SavingsChanged(SavingsChanged),
    /// A processed file's result landed: its pending validation (the file's earlier pending one,
    /// if any, is superseded).
    #[serde(rename = "validation.created")]
    ValidationCreated(ValidationChange),
    /// A validation was approved, rejected or changed status.
    #[serde(rename = "validation.updated")]
    ValidationUpdated(ValidationChange),
    /// A file's pending validation went with the file.
    #[serde(rename = "validation.deleted")]
    ValidationDeleted(ValidationChange),
    /// An administrator approved or rejected a file's lever classification (Enhanced
    /// Classification Training).
    #[serde(rename = "classification.reviewed")]
    ClassificationReviewed(ClassificationReviewed),
    /// A lever's column definitions changed (Column Configuration).
    #[serde(rename = "definitions.changed")]
    DefinitionsChanged(LeverChange),
    /// The universal column-mapping suggestions or the global-learning switch changed.
    #[serde(rename = "suggestions.changed")]
    SuggestionsChanged,
    /// A calculator scenario of a client was saved.
    #[serde(rename = "scenario.saved")]
    ScenarioSaved(ScenarioChange),
    /// A calculator scenario of a client was deleted.
    #[serde(rename = "scenario.deleted")]
    ScenarioDeleted(ScenarioChange),
    /// A lever of the dictionary or its analysis files changed (added, edited, renamed with its
    /// files moved, deleted).
    #[serde(rename = "levers.changed")]
    LeversChanged(LeverChange),
    /// A knowledge-base document was uploaded, finished processing (completed or failed) or
    /// was deleted.
    #[serde(rename = "knowledge.changed")]
    KnowledgeChanged(KnowledgeChange),
    /// The knowledge base's settings (the chunk size) changed.
    #[serde(rename = "knowledge.settings_changed")]
    KnowledgeSettingsChanged,
    /// Regulatory rules were saved from a lever extraction (the Rules tab and Total Rules).
    #[serde(rename = "knowledge.rules_changed")]
    KnowledgeRulesChanged,
    /// A client's project settings (name, description) changed.
    #[serde(rename = "project.updated")]
    ProjectUpdated(ProjectChange),
    /// A client was created, edited (details, official figures, savings) or its members changed
    /// (the Clients page and the client data room).
    #[serde(rename = "client.changed")]
    ClientChanged(ClientChange),
    /// A user was created, edited, deleted or their client memberships changed (User
    /// Management).
    #[serde(rename = "user.changed")]
    UserChanged(UserChange),
    /// A report template was created, edited or deleted.
    #[serde(rename = "templates.changed")]
    TemplatesChanged(TemplateRef),
    /// A lever justification template was created, edited or deleted.
    #[serde(rename = "justifications.changed")]
    JustificationsChanged(TemplateRef),
    /// The subscription is active from the frame's `seq` on.
    #[serde(rename = "subscribed")]
    Subscribed,
    /// The subscription ended.
    #[serde(rename = "unsubscribed")]
    Unsubscribed(Reason),
    /// The subscription was refused.
    #[serde(rename = "denied")]
    Denied(Reason),
    /// The answer to a ping.
    #[serde(rename = "pong")]
    Pong,
    /// Events may have been lost (a relay between instances was interrupted): refetch.
    #[serde(rename = "resync")]
    Resync,
    /// A request could not be understood or served.
    #[serde(rename = "error")]
    Error(ErrorMessage),
    /// The caller's role or client memberships changed: load the caller again.
    #[serde(rename = "session.changed")]
    SessionChanged,
}

impl Event {
    /// The wire name of the event (its `type`).
    pub fn name(&self) -> &'static str {
        match self {
            Event::ColumnCreated(_) => "column.created",
            Event::ColumnUpdated(_) => "column.updated",
            Event::ColumnMoved(_) => "column.moved",
            Event::TaskCreated(_) => "task.created",
            Event::TaskUpdated(_) => "task.updated",
            Event::TaskDeleted(_) => "task.deleted",
            Event::TaskMoved(_) => "task.moved",
            Event::CategoryCreated(_) => "category.created",
            Event::CategoryDeleted(_) => "category.deleted",
            Event::ReportCreated(_) => "report.created",
            Event::ReportUpdated(_) => "report.updated",
            Event::ReportDeleted(_) => "report.deleted",
            Event::FolderCreated(_) => "folder.created",
            Event::FolderDeleted(_) => "folder.deleted",
            Event::ReportMediaCreated(_) => "report.media.created",
            Event::ReportMediaDeleted(_) => "report.media.deleted",
            Event::ReportVersionsChanged(_) => "report.versions.changed",
            Event::RunProgress(_) => "run.progress",
            Event::FileCreated(_) => "file.created",
            Event::FileUpdated(_) => "file.updated",
            Event::FileDeleted(_) => "file.deleted",
            Event::SavingsChanged(_) => "savings.changed",
            Event::ValidationCreated(_) => "validation.created",
            Event::ValidationUpdated(_) => "validation.updated",
            Event::ValidationDeleted(_) => "validation.deleted",
            Event::ClassificationReviewed(_) => "classification.reviewed",
            Event::DefinitionsChanged(_) => "definitions.changed",
            Event::SuggestionsChanged => "suggestions.changed",
            Event::ScenarioSaved(_) => "scenario.saved",
            Event::ScenarioDeleted(_) => "scenario.deleted",
            Event::LeversChanged(_) => "levers.changed",
            Event::KnowledgeChanged(_) => "knowledge.changed",
            Event::KnowledgeSettingsChanged => "knowledge.settings_changed",
            Event::KnowledgeRulesChanged => "knowledge.rules_changed",
            Event::ProjectUpdated(_) => "project.updated",
            Event::ClientChanged(_) => "client.changed",
            Event::UserChanged(_) => "user.changed",
            Event::TemplatesChanged(_) => "templates.changed",
            Event::JustificationsChanged(_) => "justifications.changed",
            Event::Subscribed => "subscribed",
            Event::Unsubscribed(_) => "unsubscribed",
            Event::Denied(_) => "denied",
            Event::Pong => "pong",
            Event::Resync => "resync",
            Event::Error(_) => "error",
            Event::SessionChanged => "session.changed",
        }
    }
}

/// Which file of which client changed (`file.created`, `file.updated`, `file.deleted`): screens
/// refetch what they show of it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FileChange {
    /// The client.
    pub client_id: String,
    /// The file.
    pub file_id: String,
}

/// A classification review's outcome (`classification.reviewed`): the training lists and the
/// client's file screens refetch.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ClassificationReviewed {
    /// The client.
    pub client_id: String,
    /// The file.
    pub file_id: String,
    /// The reviewed run.
    pub run_id: String,
    /// `approved` or `rejected`.
    pub status: String,
}

/// Which lever's column definitions changed (`definitions.changed`): Column Configuration
/// refetches them.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeverChange {
    /// The lever.
    pub lever_id: String,
}

/// Which report template changed (`templates.changed`): screens refetch the list and it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TemplateRef {
    /// The template.
    pub template_id: String,
}

/// Which knowledge-base document changed (`knowledge.changed`): the knowledge base screen
/// refetches its list and figures.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KnowledgeChange {
    /// The document.
    pub document_id: String,
}

/// Which client's project settings changed (`project.updated`): screens refetch them.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ProjectChange {
    /// The client.
    pub client_id: String,
}

/// Which client changed and how (`client.changed`): the Clients page and the client's data room
/// refetch it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ClientChange {
    /// The client.
    pub client_id: String,
    /// `created`, `updated`, `savings` or `members`.
    pub what: &'static str,
}

/// Which user changed (`user.changed`; several at once for bulk changes): User Management
/// refetches its list.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UserChange {
    /// The users.
    pub user_ids: Vec<String>,
    /// `created`, `updated`, `deleted` or `memberships`.
    pub what: &'static str,
}

/// Why a subscription ended or was refused.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct Reason {
    /// `requested`, `forbidden`, `unknown_topic` or `too_many`.
    pub reason: &'static str,
}

/// The message of an `error` frame.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ErrorMessage {
    /// What went wrong.
    pub message: String,
}

/// One frame as the web app receives it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct EventFrame {
    /// The topic (empty for connection-wide control frames).
    pub topic: String,
    /// The topic's sequence number of this event (for `subscribed`: the current one; 0 for
    /// other control frames).
    #[ts(type = "number")]
    pub seq: i64,
    /// When the event was published, in microseconds since the UNIX epoch (absent on control
    /// frames).
    #[ts(type = "number", optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<i64>,
    /// The event.
    #[serde(flatten)]
    pub event: Event,
}
