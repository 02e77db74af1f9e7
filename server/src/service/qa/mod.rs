//! The Q&A agent (spec 001 section 2.8): a client's user asks about the client's files (all of
//! them, or one file in focus); the answer comes from the AI provider in force
//! ([`crate::ai::provider`]) and is streamed back as [`QaEvent`]s; each user keeps one
//! conversation per client (`qa_messages`, migration 0019), which only they read and clear.
//!
//! The context of a question is the caller's own client's data and nothing else: each file's
//! latest completed run (its stored result and the figures kept with it, [`facts::RunFacts`]),
//! and for identifiers the question names (an exposure id, a NIF or an LEI) the exposure's
//! decision and decision trace, evaluated again from the stored original by
//! [`crate::service::insights`]. A question about the regulation is given the knowledge base's
//! passages about it ([`crate::service::knowledge::passages`]), product-wide text every client
//! reads, cited with their document, article and pages. Readers of the client (members, viewers, administrators) may
//! ask: asking reads the client's data and writes only the asker's own conversation.

pub mod facts;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::ai::{AiError, ExposureData, FileData, KnowledgeData, QaContext};
use crate::db::qa::{self as db, NewMessage, QaMessageRow};
use crate::error::{ApiError, ApiResult};
use crate::service::insights;
use crate::service::runs::RunResult;
use crate::service::{Audit, Change, Scope};
use crate::state::AppState;

/// A question's length at most, in characters.
pub const MAX_QUESTION: usize = 2000;
/// Messages a conversation shows at most (the latest).
pub const HISTORY_LIMIT: i64 = 200;
/// Earlier messages a model reads with a question (the latest).
pub const HISTORY_FOR_MODEL: i64 = 6;
/// Exposures a question may name and see in one answer.
pub const MAX_EXPOSURES: usize = 3;
/// Knowledge-base passages a regulatory question is given.
pub const MAX_PASSAGES: i64 = 3;
/// Characters per streamed piece of an answer.
const PIECE: usize = 200;

/// A question to the agent.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct QaAsk {
    /// The question.
    pub question: String,
    /// The file in focus ('analyse with AI'); absent: all the client's files.
    #[serde(default)]
    #[ts(optional)]
    pub file_id: Option<String>,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct QaMessage {
    /// Id.
    pub id: String,
    /// `user` or `assistant`.
    pub role: String,
    /// The text (answers: numbered headers, bullets, `Key: value` lines).
    pub content: String,
    /// The file the question focused on.
    pub file_id: Option<String>,
    /// The engine that answered (`builtin` or `openai`); none for questions.
    pub provider: Option<String>,
    /// Written at.
    pub created_at: String,
}

/// A user's conversation about a client.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct QaConversation {
    /// The messages, oldest first (the latest [`HISTORY_LIMIT`]).
    pub messages: Vec<QaMessage>,
    /// The engine answering now (`builtin` or `openai`).
    pub provider: String,
}

/// What went wrong with an answer the user sees a reply for instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum QaFailure {
    /// The model's service refused for its rate limit.
    RateLimited,
    /// The model quoted figures the data does not contain.
    Ungrounded,
    /// The engine or the service failed.
    Failed,
}

/// One event of an answer's stream (Server-Sent Events; the event's name is its `type`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[ts(export)]
pub enum QaEvent {
    /// The question was accepted; the engine answering.
    Started {
        /// `builtin` or `openai`.
        provider: String,
    },
    /// The model has written this many characters so far (not yet checked, so not shown).
    Progress {
        /// Characters received.
        #[ts(type = "number")]
        received: u64,
    },
    /// The next piece of the answer (checked), to append.
    Delta {
        /// Text.
        text: String,
    },
    /// The end: the question and the answer as stored in the conversation.
    Done {
        /// The question.
        question: Box<QaMessage>,
        /// The answer (or the reply saying why there is none).
        answer: Box<QaMessage>,
        /// Why there is no answer, when there is none ('Failed to get AI response').
        failure: Option<QaFailure>,
    },
}

fn message_view(r: QaMessageRow) -> QaMessage {
    QaMessage {
        id: r.id,
        role: r.role,
        content: r.content,
        file_id: r.file_id,
        provider: r.provider,
        created_at: r.created_at,
    }
}

/// The caller's conversation about the scope's client.
pub async fn conversation(state: &AppState, scope: &Scope) -> ApiResult<QaConversation> {
    let rows = db::messages(
        &state.db.pool,
        &scope.client_id,
        &scope.user().id,
        HISTORY_LIMIT,
    )
    .await?;
    Ok(QaConversation {
        messages: rows.into_iter().map(message_view).collect(),
        provider: state.ai.name().to_string(),
    })
}

/// Deletes the caller's conversation about the scope's client; the messages deleted.
pub async fn clear(state: &AppState, scope: &Scope) -> ApiResult<u64> {
    let mut change = Change::begin_unannounced(state).await?;
    let n = db::clear(change.conn(), &scope.client_id, &scope.user().id).await?;
    change
        .commit_unannounced(
            scope.actor.audited(),
            Audit {
                event_type: "qa_conversation_cleared",
                entity_type: "qa_conversation",
                entity_id: &scope.user().id,
                details: serde_json::json!({"client_id": scope.client_id.as_str(), "messages": n}),
                severity: "info",
            },
        )
        .await?;
    Ok(n)
}

/// The identifiers a question names: words of at least 4 characters holding a digit (an
/// exposure id, a NIF, an LEI), at most [`MAX_EXPOSURES`], in order.
pub fn named_identifiers(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in question.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')) {
        let w = w.trim_matches(|c: char| c == '-' || c == '_');
        if w.chars().count() >= 4
            && w.chars().any(|c| c.is_ascii_digit())
            && w.chars().any(|c| c.is_alphabetic() || c == '-')
            && !out.iter().any(|o| o.eq_ignore_ascii_case(w))
        {
            out.push(w.to_string());
        }
        if out.len() == MAX_EXPOSURES {
            break;
        }
    }
    out
}

/// Each of the scope's client's files' latest completed run (only `file`'s when given), newest
/// first: what the Q&A agent and the report editor's AI text assistant write from.
pub(crate) async fn latest_runs(
    state: &AppState,
    scope: &Scope,
    file: Option<&str>,
) -> ApiResult<Vec<FileData>> {
    let rows = db::completed_runs(&state.db.pool, &scope.client_id, file).await?;
    let mut files: Vec<FileData> = Vec::new();
    for r in rows {
        if files.iter().any(|f| f.file_id == r.file_id) {
            continue;
        }
        let Some(result) = r
            .result
            .as_deref()
            .and_then(|s| serde_json::from_str::<RunResult>(s).ok())
        else {
            continue;
        };
        let facts = r
            .facts
            .as_deref()
            .and_then(|s| serde_json::from_str::<facts::RunFacts>(s).ok());
        files.push(FileData {
            file_id: r.file_id,
            file_name: r.file_name,
            run_id: r.id,
            result,
            facts,
        });
    }
    Ok(files)
}

/// The context of a question: each file's latest completed run, and the named exposures.
async fn context(
    state: &AppState,
    scope: &Scope,
    file: Option<(&str, &str)>,
    question: &str,
) -> ApiResult<QaContext> {
    let files = latest_runs(state, scope, file.map(|f| f.0)).await?;
    let history = db::messages(
        &state.db.pool,
        &scope.client_id,
        &scope.user().id,
        HISTORY_FOR_MODEL,
    )
    .await?
    .into_iter()
    .map(|m| (m.role, m.content))
    .collect();
    let mut ctx = QaContext {
        client_name: scope.client_name.clone(),
        focus: file.map(|f| f.1.to_string()),
        files,
        history,
        ..QaContext::default()
    };
    if crate::ai::builtin::is_regulatory(question) {
        ctx.regulatory = true;
        ctx.knowledge = crate::service::knowledge::passages(state, question, MAX_PASSAGES)
            .await?
            .into_iter()
            .map(|h| KnowledgeData {
                document_name: h.document_name,
                heading: h.heading,
                page_from: h.page_from,
                page_to: h.page_to,
                article: h.article,
                text: h.text,
            })
            .collect();
    }
    // A regulatory question names articles and texts (CRR3, Art 116a), not exposures, unless
    // the word looks like an exposure id, a NIF or an LEI.
    let regulatory = ctx.regulatory;
    for id in named_identifiers(question)
        .into_iter()
        .filter(|id| !regulatory || id.chars().count() >= 6 || id.contains(['-', '_']))
    {
        let mut found = false;
        for f in &ctx.files {
            // A run whose original cannot be read is not searched; the answer names its file.
            let rows = match insights::rows_named(state, scope, &f.run_id, &id).await {
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!(run = %f.run_id, error = %e, "a run could not be searched");
                    if !ctx.unsearchable.contains(&f.file_name) {
                        ctx.unsearchable.push(f.file_name.clone());
                    }
                    continue;
                }
            };
            for row in rows {
                found = true;
                if ctx.exposures.len() >= MAX_EXPOSURES {
                    ctx.more_matches += 1;
                    continue;
                }
                let detail = insights::decision(state, scope, &f.run_id, row).await?;
                ctx.exposures.push(ExposureData {
                    file_name: f.file_name.clone(),
                    detail,
                });
            }
        }
        if !found {
            ctx.not_found.push(id);
        }
    }
    Ok(ctx)
}

/// A question checked: its text and the focused file (id and name).
#[derive(Debug, Clone)]
pub struct Question {
    text: String,
    file: Option<(String, String)>,
}

/// Checks a question before anything is asked or stored: not blank, at most
/// [`MAX_QUESTION`] characters, a focused file of the scope's client (another client's file is
/// not found).
pub async fn check(state: &AppState, scope: &Scope, ask: QaAsk) -> ApiResult<Question> {
    let text = ask.question.trim().to_string();
    if text.is_empty() {
        return Err(ApiError::validation("Please enter a question"));
    }
    if text.chars().count() > MAX_QUESTION {
        return Err(ApiError::validation(format!(
            "A question is at most {MAX_QUESTION} characters"
        )));
    }
    let file = match ask
        .file_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        None => None,
        Some(id) => {
            let name = db::file_name(&state.db.pool, &scope.client_id, id)
                .await?
                .ok_or_else(|| ApiError::not_found("File not found"))?;
            Some((id.to_string(), name))
        }
    };
    Ok(Question { text, file })
}

/// Answers a checked question: the events of its answer, sent as they come. The question and
/// its answer (or the reply saying why there is none) are stored together once the answer is
/// complete, whether or not the caller is still listening.
pub fn ask(state: AppState, scope: Scope, q: Question) -> mpsc::Receiver<QaEvent> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let provider = state.ai.clone();
        let _ = tx
            .send(QaEvent::Started {
                provider: provider.name().to_string(),
            })
            .await;
        let file = q
            .file
            .as_ref()
            .map(|(id, name)| (id.as_str(), name.as_str()));
        let outcome = match context(&state, &scope, file, &q.text).await {
            Ok(ctx) => {
                let progress_tx = tx.clone();
                let last = std::sync::atomic::AtomicUsize::new(0);
                let progress = move |n: usize| {
                    // At most one event per 200 characters.
                    if n >= last.load(std::sync::atomic::Ordering::Relaxed) + 200 {
                        last.store(n, std::sync::atomic::Ordering::Relaxed);
                        let _ = progress_tx.try_send(QaEvent::Progress { received: n as u64 });
                    }
                };
                provider.answer(&q.text, &ctx, &progress).await
            }
            Err(e) => {
                tracing::error!(error = %e, "the Q&A context could not be read");
                Err(AiError::Failed(e.to_string()))
            }
        };
        let (content, failure) = match &outcome {
            Ok(text) => (text.clone(), None),
            Err(e) => (
                e.reply(),
                Some(match e {
                    AiError::RateLimited { .. } => QaFailure::RateLimited,
                    AiError::Ungrounded(_) => QaFailure::Ungrounded,
                    AiError::Empty | AiError::Failed(_) => QaFailure::Failed,
                }),
            ),
        };
        if let Err(e) = &outcome {
            tracing::warn!(error = %e, provider = provider.name(), "the Q&A agent gave no answer");
        }
        let mut rest = content.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(PIECE);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            // Cut after a line break when one is near, so lines arrive whole.
            if let Some(nl) = rest[..cut].rfind('\n').filter(|_| cut < rest.len()) {
                cut = nl + 1;
            }
            let _ = tx
                .send(QaEvent::Delta {
                    text: rest[..cut].to_string(),
                })
                .await;
            rest = &rest[cut..];
        }
        match store(&state, &scope, &q, &content, provider.name()).await {
            Ok((question, answer)) => {
                let _ = tx
                    .send(QaEvent::Done {
                        question: Box::new(question),
                        answer: Box::new(answer),
                        failure,
                    })
                    .await;
            }
            Err(e) => {
                tracing::error!(error = %e, "the Q&A conversation could not be stored");
            }
        }
    });
    rx
}

async fn store(
    state: &AppState,
    scope: &Scope,
    q: &Question,
    answer: &str,
    provider: &str,
) -> ApiResult<(QaMessage, QaMessage)> {
    let now = crate::db::now();
    let user = scope.user().id.clone();
    let file_id = q.file.as_ref().map(|f| f.0.as_str());
    let question = QaMessage {
        id: crate::db::new_id(),
        role: "user".into(),
        content: q.text.clone(),
        file_id: file_id.map(str::to_string),
        provider: None,
        created_at: now.clone(),
    };
    let reply = QaMessage {
        id: crate::db::new_id(),
        role: "assistant".into(),
        content: answer.to_string(),
        file_id: file_id.map(str::to_string),
        provider: Some(provider.to_string()),
        created_at: now.clone(),
    };
    let mut change = Change::begin_unannounced(state).await?;
    for m in [&question, &reply] {
        db::insert_message(
            change.conn(),
            &NewMessage {
                id: &m.id,
                client_id: &scope.client_id,
                user_id: &user,
                file_id,
                role: &m.role,
                content: &m.content,
                provider: m.provider.as_deref(),
                created_at: &now,
            },
        )
        .await?;
    }
    change
        .commit_unannounced(
            scope.actor.audited(),
            Audit {
                event_type: "qa_question_answered",
                entity_type: "qa_conversation",
                entity_id: &user,
                details: serde_json::json!({
                    "client_id": scope.client_id.as_str(),
                    "file_id": file_id,
                    "provider": provider,
                    "message_id": reply.id,
                }),
                severity: "info",
            },
        )
        .await?;
    Ok((question, reply))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_words_with_a_digit() {
        assert_eq!(
            named_identifiers("Tell me about EXP-ADIF-24M and Q2826000H, not 2024 or abc."),
            vec!["EXP-ADIF-24M".to_string(), "Q2826000H".to_string()]
        );
        assert!(named_identifiers("total exposures in this file").is_empty());
    }
}
