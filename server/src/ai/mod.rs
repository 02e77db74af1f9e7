//! The one AI provider of the server: [`AiProvider`], with two implementations.
//!
//! - [`builtin::Builtin`], the default: deterministic, no network, no model. It answers from the
//!   figures a question's [`QaContext`] holds (the client's completed runs' kept totals and
//!   breakdowns, and the decision traces of exposures the question names) and says plainly what
//!   it cannot answer.
//! - [`openai::OpenAi`], any OpenAI-compatible chat-completions endpoint, used when
//!   `LLM_BASE_URL`, `LLM_MODEL` and `LLM_API_KEY` are all set. It is given only the caller's own
//!   data (the built-in engine's rendering of the same context, [`builtin::data_text`]) and its
//!   answer is shown only when every figure in it is found in that data ([`grounding`]).
//!
//! Both also write report sections for the report editor's AI text assistant ([`sections`]),
//! from the same context and with the same check.
//!
//! Neither knows HTTP routes or SQL: the Q&A service (`service::qa`) builds the context from the
//! database and the engine, asks the provider, and streams the checked answer.

pub mod builtin;
pub mod grounding;
pub mod openai;
pub mod sections;

use std::sync::Arc;

use crate::config::Config;
use crate::knowledge::levers::ExtractedLever;
use crate::service::insights::InsightDecisionDetail;
use crate::service::qa::facts::RunFacts;
use crate::service::runs::RunResult;

/// The reply when the engine failed (spec 001, Q&A messages).
pub const ERROR_REPLY: &str =
    "Sorry, I encountered an error analyzing the files. Please try again.";

/// The reply when the model's service refused for its rate limit, with the wait it quoted
/// (spec 001, Q&A messages: the quoted duration, or 'some time').
pub fn rate_limit_reply(wait: Option<&str>) -> String {
    format!(
        "I've reached my rate limit. Please try again in {}.",
        wait.unwrap_or("some time")
    )
}

/// One file's latest completed run, as the agent answers from it.
#[derive(Debug, Clone)]
pub struct FileData {
    /// The file.
    pub file_id: String,
    /// Its name.
    pub file_name: String,
    /// The run.
    pub run_id: String,
    /// The run's stored result.
    pub result: RunResult,
    /// Its kept totals and breakdowns (`None`: a run completed before they were kept).
    pub facts: Option<RunFacts>,
}

/// An exposure the question names, found in one of the runs.
#[derive(Debug, Clone)]
pub struct ExposureData {
    /// The file it is in.
    pub file_name: String,
    /// Its decision, trace, fields and confidence (from `service::insights`).
    pub detail: InsightDecisionDetail,
}

/// A passage of the regulatory knowledge base a question is about.
#[derive(Debug, Clone, Default)]
pub struct KnowledgeData {
    /// The document's name.
    pub document_name: String,
    /// The headings above it, outermost first.
    pub heading: Option<String>,
    /// First page.
    pub page_from: Option<i64>,
    /// Last page.
    pub page_to: Option<i64>,
    /// The articles it cites or holds ("Article 116(2), Article 117").
    pub article: Option<String>,
    /// Its text.
    pub text: String,
}

/// Everything a provider may use to answer: the caller's own data, nothing else.
#[derive(Debug, Clone, Default)]
pub struct QaContext {
    /// The client's name.
    pub client_name: String,
    /// The focused file's name, when the question is about one file.
    pub focus: Option<String>,
    /// The files with a completed run (each file's latest), newest first.
    pub files: Vec<FileData>,
    /// Exposures the question names.
    pub exposures: Vec<ExposureData>,
    /// Identifiers the question names that no run holds.
    pub not_found: Vec<String>,
    /// Exposures matching the named identifiers beyond those listed.
    pub more_matches: u64,
    /// Files whose run could not be searched for the named identifiers.
    pub unsearchable: Vec<String>,
    /// A regulatory question: the knowledge base was searched for it.
    pub regulatory: bool,
    /// The passages of the knowledge base found for it, best first.
    pub knowledge: Vec<KnowledgeData>,
    /// The caller's latest earlier messages of the conversation, oldest first: (`user` or
    /// `assistant`, text). A model reads them for follow-up questions; the built-in engine
    /// answers each question on its own.
    pub history: Vec<(String, String)>,
}

/// Why a provider gave no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AiError {
    /// The model's service refused for its rate limit; the wait it quoted, in words.
    #[error("rate limited")]
    RateLimited {
        /// `30 seconds`, ... (`None`: it quoted none).
        wait: Option<String>,
    },
    /// The answer held figures the data does not contain: not shown.
    #[error("ungrounded figures: {0:?}")]
    Ungrounded(Vec<String>),
    /// The model answered nothing but blanks.
    #[error("the model's answer was empty")]
    Empty,
    /// The service failed, timed out or answered something unreadable.
    #[error("{0}")]
    Failed(String),
}

impl AiError {
    /// The reply the user sees instead of an answer.
    pub fn reply(&self) -> String {
        match self {
            AiError::RateLimited { wait } => rate_limit_reply(wait.as_deref()),
            AiError::Ungrounded(figures) => format!(
                "I could not verify the model's answer against your data, so it is not shown: \
                 it quoted {} that your files do not contain ({}). Please rephrase the question \
                 or try again.",
                if figures.len() == 1 {
                    "a figure"
                } else {
                    "figures"
                },
                figures.join(", ")
            ),
            AiError::Empty | AiError::Failed(_) => ERROR_REPLY.to_string(),
        }
    }
}

/// Called with the characters received so far while a provider works.
pub type Progress<'a> = &'a (dyn Fn(usize) + Send + Sync);

/// An engine that answers a question about a client's files from a [`QaContext`].
#[async_trait::async_trait]
pub trait AiProvider: Send + Sync + std::fmt::Debug {
    /// `builtin` or `openai` (stored with each answer).
    fn name(&self) -> &'static str;

    /// The answer to `question` in the reply format (numbered headers, bullets, `Key: value`
    /// lines), or why there is none.
    async fn answer(
        &self,
        question: &str,
        ctx: &QaContext,
        progress: Progress<'_>,
    ) -> Result<String, AiError>;

    /// The levers and rules a regulatory text states ([`crate::knowledge::levers`]'s shape),
    /// checked against that shape before they are returned.
    async fn extract_levers(&self, doc: &ExtractionInput) -> Result<Vec<ExtractedLever>, AiError>;

    /// The text of one report section (the report editor's AI text assistant) from the
    /// client's figures in `ctx`: plain paragraphs separated by a blank line, or why there is
    /// none.
    async fn write_section(
        &self,
        req: &sections::SectionRequest,
        ctx: &QaContext,
        progress: Progress<'_>,
    ) -> Result<String, AiError>;
}

/// A regulatory text to propose levers and rules from: one knowledge-base document's blocks.
#[derive(Debug, Clone)]
pub struct ExtractionInput {
    /// The document's name.
    pub document_name: String,
    /// Its headings and paragraphs in reading order.
    pub blocks: Vec<crate::knowledge::Block>,
}

/// The provider the configuration asks for: the OpenAI-compatible client when `LLM_BASE_URL`,
/// `LLM_MODEL` and `LLM_API_KEY` are all set, the built-in engine otherwise (a warning names the
/// settings missing when only some are set). Built once with the state, so the client's
/// connections are reused. An `LLM_BASE_URL` that is not an http(s) URL is refused at start-up.
pub fn provider(config: &Config) -> anyhow::Result<Arc<dyn AiProvider>> {
    match openai::Settings::from_config(config) {
        Some(s) => {
            let url = reqwest::Url::parse(&s.base_url)
                .map_err(|e| anyhow::anyhow!("LLM_BASE_URL is not a URL: {e}"))?;
            if !matches!(url.scheme(), "http" | "https") {
                anyhow::bail!("LLM_BASE_URL must be an http or https URL");
            }
            tracing::info!(base_url = %s.base_url, model = %s.model, "the Q&A agent uses an OpenAI-compatible model");
            Ok(Arc::new(openai::OpenAi::new(s)))
        }
        None => {
            let missing: Vec<&str> = [
                ("LLM_BASE_URL", &config.llm_base_url),
                ("LLM_MODEL", &config.llm_model),
                (
                    "LLM_API_KEY",
                    &config.llm_api_key.as_ref().map(|k| k.expose().to_string()),
                ),
            ]
            .into_iter()
            .filter(|(_, v)| v.as_deref().is_none_or(|v| v.trim().is_empty()))
            .map(|(k, _)| k)
            .collect();
            if missing.len() < 3 {
                tracing::warn!(
                    ?missing,
                    "the Q&A agent's model is partly configured; the built-in engine answers"
                );
            }
            Ok(Arc::new(builtin::Builtin))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(url: Option<&str>, model: Option<&str>, key: Option<&str>) -> Config {
        let mut c = Config::for_tests(std::env::temp_dir(), None);
        c.llm_base_url = url.map(str::to_string);
        c.llm_model = model.map(str::to_string);
        c.llm_api_key = key.map(crate::config::Secret::from);
        c
    }

    #[test]
    fn the_model_is_used_only_when_all_three_settings_are_set() {
        let name = |c: &Config| provider(c).unwrap().name();
        assert_eq!(name(&config(None, None, None)), "builtin");
        assert_eq!(
            name(&config(Some("http://127.0.0.1:9/v1"), Some("m"), None)),
            "builtin"
        );
        assert_eq!(
            name(&config(
                Some("http://127.0.0.1:9/v1"),
                Some("m"),
                Some("  ")
            )),
            "builtin"
        );
        assert_eq!(
            name(&config(Some("http://127.0.0.1:9/v1"), Some("m"), Some("k"))),
            "openai"
        );
    }

    #[test]
    fn a_base_url_that_is_not_http_is_refused_and_the_key_is_never_printed() {
        let e = provider(&config(Some("ftp://x/v1"), Some("m"), Some("k"))).unwrap_err();
        assert!(e.to_string().contains("http or https"), "{e}");
        assert!(provider(&config(Some("not a url"), Some("m"), Some("k"))).is_err());
        let p = provider(&config(
            Some("http://127.0.0.1:9/v1"),
            Some("m"),
            Some("sk-secret-value"),
        ))
        .unwrap();
        let shown = format!("{p:?}");
        assert!(!shown.contains("sk-secret-value"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
        let c = config(None, None, Some("sk-secret-value"));
        let shown = format!("{c:?}");
        assert!(!shown.contains("sk-secret-value"), "{shown}");
    }
}
