//! An OpenAI-compatible chat-completions client: plain `reqwest`, our own tolerant types (any
//! `finish_reason`, unknown fields ignored, no `usage` needed), the server-sent events read from
//! the body as they arrive, a connect, read and overall timeout, retries with exponential
//! back-off for refused connections and 5xx answers (and a 429 whose quoted wait is short), and
//! the spec's rate-limit reply with the quoted wait otherwise.
//!
//! The model is given the built-in engine's rendering of the caller's own data
//! ([`super::builtin::data_text`]) and nothing else; its answer is returned only when every
//! figure in it is in that data ([`super::grounding`]).

use std::time::Duration;

use serde::Deserialize;

use super::{
    AiError, AiProvider, ExtractionInput, Progress, QaContext, builtin, grounding, sections,
};
use crate::config::Config;
use crate::knowledge::levers::ExtractedLever;

/// A 429 is retried when it quotes a wait up to this long; a longer one is answered at once.
const RETRY_AFTER_MAX: Duration = Duration::from_secs(2);
/// The first back-off; doubled at each retry.
const BACKOFF: Duration = Duration::from_millis(250);

/// The instructions given to the model with the data.
const SYSTEM: &str = "You are the Q&A agent of a regulatory capital optimisation platform. \
Answer the user's question about their exposure files using ONLY the data below, which is the \
analysis of their own files. Quote every figure exactly as the data writes it; never compute, \
estimate or invent a figure. If the data does not answer the question, say so plainly. Format: \
numbered headers ('1. Title'), bullets ('- text') and 'Key: value' lines.";

/// The endpoint, model and key, and the limits.
#[derive(Clone)]
pub struct Settings {
    /// Base URL, e.g. `https://api.example.com/v1` (`/chat/completions` is appended).
    pub base_url: String,
    /// The model.
    pub model: String,
    /// The key (never logged: `Debug` redacts it).
    pub api_key: String,
    /// Overall time for one request, its stream included.
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &"<redacted>")
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

impl Settings {
    /// The settings when `LLM_BASE_URL`, `LLM_MODEL` and `LLM_API_KEY` are all set (not blank).
    pub fn from_config(c: &Config) -> Option<Settings> {
        fn set(v: &Option<String>) -> Option<&str> {
            v.as_deref().map(str::trim).filter(|s| !s.is_empty())
        }
        Some(Settings {
            base_url: set(&c.llm_base_url)?.trim_end_matches('/').to_string(),
            model: set(&c.llm_model)?.to_string(),
            api_key: c
                .llm_api_key
                .as_ref()
                .map(|k| k.expose().trim())
                .filter(|k| !k.is_empty())?
                .to_string(),
            timeout: Duration::from_secs(c.llm_timeout_secs.max(1)),
            max_retries: c.llm_max_retries,
        })
    }
}

/// The OpenAI-compatible provider.
#[derive(Debug, Clone)]
pub struct OpenAi {
    settings: Settings,
    http: reqwest::Client,
}

impl OpenAi {
    /// A client for `settings`.
    pub fn new(settings: Settings) -> OpenAi {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5).min(settings.timeout))
            .read_timeout(settings.timeout)
            .timeout(settings.timeout)
            .build()
            .unwrap_or_default();
        OpenAi { settings, http }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Message {
    content: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Choice {
    delta: Option<Message>,
    message: Option<Message>,
    // Read so that any value parses ("", "stop", null, a provider's own); not used.
    #[allow(dead_code)]
    finish_reason: Option<serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ErrorBody {
    message: Option<String>,
}

/// A completion or one streamed chunk of it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Chunk {
    choices: Vec<Choice>,
    error: Option<ErrorBody>,
}

impl Chunk {
    fn text(&self) -> impl Iterator<Item = &str> {
        self.choices.iter().filter_map(|c| {
            c.delta
                .as_ref()
                .or(c.message.as_ref())
                .and_then(|m| m.content.as_deref())
        })
    }
}

/// How one attempt failed.
enum Attempt {
    /// Worth another attempt, after this wait (`None`: the back-off).
    Retry(Option<Duration>, AiError),
    /// Final.
    Fatal(AiError),
}

/// The wait a 429 quoted: `Retry-After` in seconds (or a date, counted from now), else a
/// "try again in 20s" in its message; in words and as a duration.
fn quoted_wait(retry_after: Option<&str>, body: &str) -> Option<(String, Duration)> {
    let secs = retry_after
        .and_then(|v| {
            let v = v.trim();
            v.parse::<f64>().ok().or_else(|| {
                httpdate_secs(v).map(|at| (at - chrono::Utc::now().timestamp()).max(0) as f64)
            })
        })
        .or_else(|| {
            let lower = body.to_lowercase();
            let i = lower.find("try again in ")? + "try again in ".len();
            let rest = &lower[i..];
            let n: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let v = n.parse::<f64>().ok()?;
            let unit = rest[n.len()..].trim_start();
            Some(if unit.starts_with("ms") {
                v / 1000.0
            } else if unit.starts_with('m') {
                v * 60.0
            } else {
                v
            })
        })?;
    if !secs.is_finite() || secs < 0.0 {
        return None;
    }
    let whole = secs.ceil() as u64;
    let words = if whole >= 120 && whole.is_multiple_of(60) {
        format!("{} minutes", whole / 60)
    } else if whole == 60 {
        "1 minute".to_string()
    } else if whole == 1 {
        "1 second".to_string()
    } else {
        format!("{whole} seconds")
    };
    Some((words, Duration::from_secs_f64(secs.min(3600.0))))
}

fn httpdate_secs(v: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc2822(v)
        .ok()
        .map(|d| d.timestamp())
}

impl OpenAi {
    /// One completion, retried with back-off while the failure is worth another attempt.
    async fn complete(
        &self,
        body: &serde_json::Value,
        progress: Progress<'_>,
    ) -> Result<String, AiError> {
        let mut attempt = 0u32;
        loop {
            match self.once(body, progress).await {
                Ok(t) => return Ok(t),
                Err(Attempt::Retry(wait, e)) if attempt < self.settings.max_retries => {
                    let backoff = BACKOFF * 2u32.pow(attempt.min(6));
                    tracing::warn!(attempt, error = %e, "retrying the model's service");
                    tokio::time::sleep(wait.unwrap_or(backoff)).await;
                    attempt += 1;
                }
                Err(Attempt::Retry(_, e)) | Err(Attempt::Fatal(e)) => return Err(e),
            }
        }
    }

    async fn once(
        &self,
        body: &serde_json::Value,
        progress: Progress<'_>,
    ) -> Result<String, Attempt> {
        let url = format!("{}/chat/completions", self.settings.base_url);
        let sent = self
            .http
            .post(&url)
            .bearer_auth(&self.settings.api_key)
            .header(
                reqwest::header::ACCEPT,
                "text/event-stream, application/json",
            )
            .json(body)
            .send()
            .await;
        let mut resp = match sent {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return Err(Attempt::Fatal(AiError::Failed(
                    "the model's service did not answer in time".into(),
                )));
            }
            Err(e) => {
                return Err(Attempt::Retry(
                    None,
                    AiError::Failed(format!(
                        "the model's service could not be reached: {}",
                        e.without_url()
                    )),
                ));
            }
        };
        let status = resp.status();
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            let retry_after = resp
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let text = resp.text().await.unwrap_or_default();
            let wait = quoted_wait(retry_after.as_deref(), &text);
            let err = AiError::RateLimited {
                wait: wait.as_ref().map(|w| w.0.clone()),
            };
            return Err(match wait {
                Some((_, d)) if d <= RETRY_AFTER_MAX => Attempt::Retry(Some(d), err),
                _ => Attempt::Fatal(err),
            });
        }
        if status.is_server_error() {
            return Err(Attempt::Retry(
                None,
                AiError::Failed(format!("the model's service answered {status}")),
            ));
        }
        if !status.is_success() {
            let text = resp.text().await.unwrap_or_default();
            let message = serde_json::from_str::<Chunk>(&text)
                .ok()
                .and_then(|c| c.error.and_then(|e| e.message))
                .unwrap_or_default();
            return Err(Attempt::Fatal(AiError::Failed(format!(
                "the model's service answered {status}: {message}"
            ))));
        }
        let streamed = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let mut text = String::new();
        let mut buf: Vec<u8> = Vec::new();
        let mut done = false;
        loop {
            let chunk = match resp.chunk().await {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(e) if e.is_timeout() => {
                    return Err(Attempt::Fatal(AiError::Failed(
                        "the model's service did not answer in time".into(),
                    )));
                }
                Err(e) => {
                    return Err(Attempt::Fatal(AiError::Failed(format!(
                        "the model's answer was cut off: {}",
                        e.without_url()
                    ))));
                }
            };
            buf.extend_from_slice(&chunk);
            if !streamed {
                continue;
            }
            while let Some(nl) = buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = buf.drain(..=nl).collect();
                let line = String::from_utf8_lossy(&line);
                let line = line.trim_end_matches(['\n', '\r']);
                let Some(data) = line.strip_prefix("data:") else {
                    continue;
                };
                let data = data.trim();
                if data == "[DONE]" {
                    done = true;
                    break;
                }
                let c: Chunk = serde_json::from_str(data).map_err(|e| {
                    Attempt::Fatal(AiError::Failed(format!("unreadable stream event: {e}")))
                })?;
                if let Some(e) = c.error {
                    let m = e.message.unwrap_or_default();
                    return Err(Attempt::Fatal(if m.to_lowercase().contains("rate limit") {
                        AiError::RateLimited {
                            wait: quoted_wait(None, &m).map(|w| w.0),
                        }
                    } else {
                        AiError::Failed(format!("the model's service failed: {m}"))
                    }));
                }
                for t in c.text() {
                    text.push_str(t);
                }
                progress(text.chars().count());
            }
            if done {
                break;
            }
        }
        if !streamed {
            let c: Chunk = serde_json::from_slice(&buf)
                .map_err(|e| Attempt::Fatal(AiError::Failed(format!("unreadable answer: {e}"))))?;
            text = c.text().collect();
        }
        if text.trim().is_empty() {
            return Err(Attempt::Fatal(AiError::Empty));
        }
        Ok(text)
    }
}

#[async_trait::async_trait]
impl AiProvider for OpenAi {
    fn name(&self) -> &'static str {
        "openai"
    }

    async fn answer(
        &self,
        question: &str,
        ctx: &QaContext,
        progress: Progress<'_>,
    ) -> Result<String, AiError> {
        let data = builtin::data_text(ctx);
        let exposures: String = ctx
            .exposures
            .iter()
            .map(|e| {
                let mut one = QaContext {
                    client_name: ctx.client_name.clone(),
                    focus: ctx.focus.clone(),
                    files: ctx.files.clone(),
                    ..QaContext::default()
                };
                one.exposures.push(e.clone());
                builtin::answer("", &one)
            })
            .collect();
        let data = format!("{exposures}{data}");
        let mut messages = vec![
            serde_json::json!({"role": "system", "content": format!("{SYSTEM}\n\nDATA:\n{data}")}),
        ];
        for (role, content) in &ctx.history {
            messages.push(serde_json::json!({"role": role, "content": content}));
        }
        messages.push(serde_json::json!({"role": "user", "content": question}));
        let body = serde_json::json!({
            "model": self.settings.model,
            "stream": true,
            "temperature": 0,
            "messages": messages,
        });
        let text = self.complete(&body, progress).await?;
        let bad = grounding::ungrounded(&text, &data);
        if !bad.is_empty() {
            tracing::warn!(figures = ?bad, "a model's answer quoted figures not in the data");
            return Err(AiError::Ungrounded(bad));
        }
        Ok(text)
    }

    async fn write_section(
        &self,
        req: &sections::SectionRequest,
        ctx: &QaContext,
        progress: Progress<'_>,
    ) -> Result<String, AiError> {
        let data = sections::data_text(req, ctx);
        let body = serde_json::json!({
            "model": self.settings.model,
            "stream": true,
            "temperature": 0.2,
            "messages": [
                {"role": "system", "content": format!("{}\n\nDATA:\n{data}", sections::SYSTEM)},
                {"role": "user", "content": sections::model_request(req)},
            ],
        });
        let text = self.complete(&body, progress).await?;
        let bad = grounding::ungrounded(&text, &data);
        if !bad.is_empty() {
            tracing::warn!(figures = ?bad, "a model's section quoted figures not in the data");
            return Err(AiError::Ungrounded(bad));
        }
        Ok(text.trim().to_string())
    }

    async fn extract_levers(&self, doc: &ExtractionInput) -> Result<Vec<ExtractedLever>, AiError> {
        let text = extraction_text(doc);
        let body = serde_json::json!({
            "model": self.settings.model,
            "stream": true,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": EXTRACTION_SYSTEM},
                {"role": "user", "content": format!("DOCUMENT: {}\n\n{text}", doc.document_name)},
            ],
        });
        let answer = self.complete(&body, &|_| {}).await?;
        let levers = parse_extraction(&answer)?;
        // Every weight the model proposes must be written in the text it was given.
        for l in &levers {
            for r in &l.rules {
                let bad = grounding::ungrounded(&r.actions.to_string(), &text);
                if !bad.is_empty() {
                    tracing::warn!(figures = ?bad, rule = %r.rule_name, "a model's rule quoted figures not in the text");
                    return Err(AiError::Ungrounded(bad));
                }
            }
        }
        Ok(levers)
    }
}

/// The most text of a document a model is given to extract from.
const EXTRACTION_MAX_CHARS: usize = 60_000;

/// What the model is asked for: the extracted-lever schema of spec 002.
const EXTRACTION_SYSTEM: &str = "You extract optimisation levers and their rules from a \
regulatory text (the EU Capital Requirements Regulation or similar). Answer with one JSON object \
{\"levers\": [...]} and nothing else. Each lever: {\"leverName\": string, \"leverCategory\": one of \
\"Assets\", \"CRMT\", \"CET1 Deductions\", \"description\": string, \"articleReference\": string, \
\"confidenceScore\": number from 0 to 1, \"variables\": [{\"name\": string, \"type\": one of \"string\", \
\"number\", \"boolean\", \"date\", \"description\": string}], \"rules\": [{\"ruleName\": string, \
\"ruleType\": one of \"condition\", \"calculation\", \"classification\", \"ruleDescription\": string, \
\"conditions\": a non-empty object, \"actions\": a non-empty object, \"priority\": integer of at least \
1, \"isActive\": boolean, \"articleReference\": string}]}. Give 3 to 5 rules per lever where the text \
supports them. Use only risk weights and figures written in the text; do not invent any. Risk \
weights by credit quality step go in actions as {\"riskWeightByCqs\": {\"1\": 20, ...}}, a single \
weight as {\"riskWeight\": 20}.";

/// The document's text as the model reads it: headings marked, page numbers kept, bounded.
fn extraction_text(doc: &ExtractionInput) -> String {
    let mut out = String::new();
    let mut page = None;
    for b in &doc.blocks {
        if b.page != page {
            if let Some(p) = b.page {
                out.push_str(&format!("\n[page {p}]\n"));
            }
            page = b.page;
        }
        if matches!(b.kind, crate::knowledge::BlockKind::Heading(_)) {
            out.push_str("## ");
        }
        out.push_str(&b.text);
        out.push('\n');
        if out.len() > EXTRACTION_MAX_CHARS {
            let mut cut = EXTRACTION_MAX_CHARS;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            break;
        }
    }
    out
}

/// Reads the model's answer: a `{"levers": [...]}` object (or a bare list), fenced or not, each
/// lever checked against the schema.
fn parse_extraction(answer: &str) -> Result<Vec<ExtractedLever>, AiError> {
    let t = answer.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .map(|r| r.trim_end().trim_end_matches("```"))
        .unwrap_or(t)
        .trim();
    #[derive(serde::Deserialize)]
    struct Wrapped {
        levers: Vec<ExtractedLever>,
    }
    let levers = serde_json::from_str::<Wrapped>(t)
        .map(|w| w.levers)
        .or_else(|_| serde_json::from_str::<Vec<ExtractedLever>>(t))
        .map_err(|e| {
            AiError::Failed(format!(
                "the model's extraction is not the JSON asked for: {e}"
            ))
        })?;
    let issues = crate::knowledge::levers::check(&levers);
    if let Some(first) = issues.first() {
        return Err(AiError::Failed(format!(
            "the model's extraction does not follow the schema ({} problems; lever {}: {})",
            issues.len(),
            first.lever + 1,
            first.message
        )));
    }
    Ok(levers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_are_read_from_the_header_or_the_message() {
        assert_eq!(quoted_wait(Some("30"), "").unwrap().0, "30 seconds");
        assert_eq!(quoted_wait(Some("60"), "").unwrap().0, "1 minute");
        assert_eq!(quoted_wait(Some("1.2"), "").unwrap().0, "2 seconds");
        assert_eq!(
            quoted_wait(None, "Rate limit reached. Please try again in 20s.")
                .unwrap()
                .0,
            "20 seconds"
        );
        assert_eq!(quoted_wait(None, "slow down"), None);
    }

    #[test]
    fn an_extraction_is_read_fenced_or_bare_and_checked() {
        let one = r#"{"leverName":"PSE","leverCategory":"Assets","description":"d","rules":[{"ruleName":"r","ruleType":"calculation","conditions":{"a":1},"actions":{"riskWeight":20},"priority":5}]}"#;
        let levers = parse_extraction(&format!("```json\n{{\"levers\": [{one}]}}\n```")).unwrap();
        assert_eq!(levers[0].rules[0].priority, 5);
        assert!(levers[0].rules[0].is_active);
        assert_eq!(parse_extraction(&format!("[{one}]")).unwrap().len(), 1);
        let bad = one.replace(r#""leverCategory":"Assets""#, r#""leverCategory":"Loans""#);
        let e = parse_extraction(&format!("[{bad}]")).unwrap_err();
        assert!(matches!(e, AiError::Failed(m) if m.contains("Lever category must be one of")));
        assert!(parse_extraction("Here are the levers").is_err());
    }

    #[test]
    fn chunks_tolerate_quirks() {
        let c: Chunk = serde_json::from_str(
            r#"{"id":"x","service_tier":"on_demand","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":""}]}"#,
        )
        .unwrap();
        assert_eq!(c.text().collect::<String>(), "Hi");
        let c: Chunk =
            serde_json::from_str(r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#).unwrap();
        assert_eq!(c.text().count(), 0);
    }
}
