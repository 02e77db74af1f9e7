//! The report editor's AI text assistant: a section's new text written by the AI provider from
//! the report's client's own figures (its files' latest completed runs). The editor puts the
//! text into the shared document (so co-editors receive it live) and marks the section
//! AI-generated; nothing is stored here.

use serde::{Deserialize, Serialize};

use crate::access::Need;
use crate::ai::sections::{
    MAX_CONTENT_CHARS, MAX_PROMPT_CHARS, MAX_TITLE_CHARS, SECTION_TYPES, SectionRequest,
};
use crate::ai::{AiError, QaContext};
use crate::error::{ApiError, ApiResult};
use crate::service::Actor;
use crate::state::AppState;

/// The spec's 'No Content Generated' message.
pub const NO_CONTENT: &str = "AI returned empty content. Please try rephrasing your request.";
/// The spec's message when the model's service cannot be reached.
pub const UNAVAILABLE: &str = "AI service unavailable. Please check configuration.";

/// A request to write a section.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct GenerateSectionRequest {
    /// The section's title.
    pub section_title: String,
    /// summary, introduction, regulatory, capital, conclusion, content or custom.
    pub section_type: String,
    /// The section's current text (at most 20,000 characters are read).
    #[serde(default)]
    pub content: String,
    /// What the user asks for; required, at most 2,000 characters.
    pub prompt: String,
}

/// The text written for a section.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct GeneratedSection {
    /// Paragraphs separated by a blank line.
    pub content: String,
    /// `builtin` or `openai`.
    pub provider: String,
}

fn check(req: GenerateSectionRequest) -> ApiResult<SectionRequest> {
    let prompt = req.prompt.trim().to_string();
    if prompt.is_empty() {
        return Err(ApiError::validation("Please enter a prompt."));
    }
    if prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(ApiError::validation(format!(
            "The prompt is longer than {MAX_PROMPT_CHARS} characters."
        )));
    }
    let title = req.section_title.trim().to_string();
    if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS {
        return Err(ApiError::validation(format!(
            "The section title must be 1 to {MAX_TITLE_CHARS} characters."
        )));
    }
    let kind = req.section_type.trim().to_lowercase();
    if !SECTION_TYPES.contains(&kind.as_str()) {
        return Err(ApiError::validation(format!(
            "Unknown section type '{}': use one of {}.",
            req.section_type,
            SECTION_TYPES.join(", ")
        )));
    }
    Ok(SectionRequest {
        title,
        kind,
        content: req.content.chars().take(MAX_CONTENT_CHARS).collect(),
        prompt,
    })
}

/// Writes a section of report `id` (its editors) from its client's figures. A blank result is
/// 'No Content Generated'; a provider that could not write says why ('Generation Failed',
/// or the model's service being unreachable, or its rate limit with the quoted wait).
pub async fn generate(
    state: &AppState,
    actor: &Actor,
    id: &str,
    req: GenerateSectionRequest,
) -> ApiResult<GeneratedSection> {
    let (_, scope) = super::reports::load(state, actor, id, Need::Write).await?;
    let req = check(req)?;
    let ctx = QaContext {
        client_name: scope.client_name.clone(),
        files: super::qa::latest_runs(state, &scope, None).await?,
        ..QaContext::default()
    };
    let provider = state.ai.clone();
    let written = provider.write_section(&req, &ctx, &|_| {}).await;
    match written {
        Ok(text) if !text.trim().is_empty() => Ok(GeneratedSection {
            content: text.trim().to_string(),
            provider: provider.name().to_string(),
        }),
        Ok(_) | Err(AiError::Empty) => Err(ApiError::Validation {
            code: "no_content",
            message: NO_CONTENT.into(),
        }),
        Err(AiError::RateLimited { wait }) => Err(ApiError::RateLimited(
            crate::ai::rate_limit_reply(wait.as_deref()),
        )),
        Err(AiError::Ungrounded(figures)) => Err(ApiError::Validation {
            code: "generation_failed",
            message: format!(
                "Unable to generate content: the text quoted figures your data does not \
                 contain ({}).",
                figures.join(", ")
            ),
        }),
        Err(AiError::Failed(reason)) if provider.name() == "builtin" => Err(ApiError::Validation {
            code: "generation_failed",
            message: format!("Unable to generate content: {reason}."),
        }),
        Err(AiError::Failed(reason)) => {
            tracing::warn!(report = %id, %reason, "the model's service could not write a section");
            Err(ApiError::Validation {
                code: "ai_unavailable",
                message: UNAVAILABLE.into(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(prompt: &str, kind: &str) -> GenerateSectionRequest {
        GenerateSectionRequest {
            section_title: "Capital".into(),
            section_type: kind.into(),
            content: String::new(),
            prompt: prompt.into(),
        }
    }

    #[test]
    fn a_blank_prompt_or_an_unknown_type_is_refused() {
        assert_eq!(
            check(req("  \n ", "capital")).unwrap_err().to_string(),
            "Please enter a prompt."
        );
        assert!(check(req("x", "poem")).is_err());
        assert!(check(req(&"x".repeat(MAX_PROMPT_CHARS + 1), "capital")).is_err());
        let ok = check(req(" Summarise the savings ", "Capital")).unwrap();
        assert_eq!(
            (ok.prompt.as_str(), ok.kind.as_str()),
            ("Summarise the savings", "capital")
        );
    }
}
