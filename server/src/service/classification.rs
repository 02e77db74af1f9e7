//! Reviewed classifications: a person's decision on the lever the classifier proposed for a file
//! in an enhanced-AI run (approved: the same lever; corrected: another). Stored once per run
//! ([`record_review`], called where a person decides a classified file's lever), read back by the
//! classifier (files with similar headers lean towards the reviewed lever, see
//! `analysis::classify::classify_with_feedback`), and measured ([`learning`]): the figures of the
//! 'Continuous Learning' card, which appears only when reviews exist.

use analysis::classify::{FEEDBACK_MIN_SIMILARITY, Feedback, header_similarity};
use analysis::model::Lever;
use serde::{Deserialize, Serialize};
use sqlx::{AnyConnection, AnyExecutor};

use crate::db::classification::{self as db, NewFeedback};
use crate::db::runs::RunRow;
use crate::error::ApiResult;

/// The most recent reviews the classifier reads (and the figures are measured on).
pub const REVIEWS_READ: i64 = 2000;
/// Reviews from which the earlier and recent halves are compared.
pub const MIN_REVIEWS_FOR_TREND: usize = 10;

/// What past reviews say about the classifier, measured when a file is classified: the
/// 'Continuous Learning' card. Stored in the run's classification JSON (`learning`), which the
/// web reads defensively like the rest of the engine's evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Learning {
    /// Reviewed classifications read.
    pub reviewed: u64,
    /// Of which the reviewer kept the proposed lever.
    pub approved: u64,
    /// `approved / reviewed`, in 0..1.
    pub accuracy: f64,
    /// Reviews of files with headers similar enough to this file's to count in its
    /// classification.
    pub similar: u64,
    /// Accuracy over the older half of the reviews (from [`MIN_REVIEWS_FOR_TREND`] reviews).
    pub earlier_accuracy: Option<f64>,
    /// Accuracy over the newer half.
    pub recent_accuracy: Option<f64>,
}

/// The most recent reviews, oldest first (rows that no longer parse are skipped).
pub async fn reviews<'e>(ex: impl AnyExecutor<'e>) -> ApiResult<Vec<Feedback>> {
    let rows = db::recent(ex, REVIEWS_READ).await?;
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            Some(Feedback {
                headers: serde_json::from_str(&r.headers).ok()?,
                proposed: r.proposed_lever.as_deref().and_then(Lever::parse),
                lever: Lever::parse(&r.reviewed_lever)?,
            })
        })
        .collect())
}

fn accuracy(reviews: &[Feedback]) -> f64 {
    let kept = reviews
        .iter()
        .filter(|r| r.proposed == Some(r.lever))
        .count();
    kept as f64 / reviews.len().max(1) as f64
}

/// The figures of past reviews for a file with `headers`; `None` without reviews.
pub fn learning(reviews: &[Feedback], headers: &[&str]) -> Option<Learning> {
    if reviews.is_empty() {
        return None;
    }
    let approved = reviews
        .iter()
        .filter(|r| r.proposed == Some(r.lever))
        .count();
    let similar = reviews
        .iter()
        .filter(|r| {
            let h: Vec<&str> = r.headers.iter().map(String::as_str).collect();
            header_similarity(headers, &h) >= FEEDBACK_MIN_SIMILARITY
        })
        .count();
    let (earlier, recent) = if reviews.len() >= MIN_REVIEWS_FOR_TREND {
        let (a, b) = reviews.split_at(reviews.len() / 2);
        (Some(accuracy(a)), Some(accuracy(b)))
    } else {
        (None, None)
    };
    Some(Learning {
        reviewed: reviews.len() as u64,
        approved: approved as u64,
        accuracy: accuracy(reviews),
        similar: similar as u64,
        earlier_accuracy: earlier,
        recent_accuracy: recent,
    })
}

/// Records that a person decided the lever of the file `run` classified: `reviewed_lever_code` is
/// the engine's code of the lever chosen. Nothing is recorded (`false`) for a run that classified
/// nothing (manual mode, a run not yet finished) or a lever the engine does not know.
pub async fn record_review(
    conn: &mut AnyConnection,
    run: &RunRow,
    reviewed_lever_code: &str,
    by: Option<&str>,
    explanation: &str,
) -> ApiResult<bool> {
    let Some(reviewed) = Lever::parse(reviewed_lever_code) else {
        return Ok(false);
    };
    let Some(classification) = run
        .result
        .as_deref()
        .and_then(|r| serde_json::from_str::<serde_json::Value>(r).ok())
        .and_then(|mut v| v.get_mut("classification").map(serde_json::Value::take))
    else {
        return Ok(false);
    };
    let Some(headers) = classification
        .get("headers")
        .filter(|h| h.is_array())
        .map(serde_json::Value::to_string)
    else {
        return Ok(false);
    };
    let proposed = classification
        .get("lever")
        .and_then(serde_json::Value::as_str)
        .and_then(Lever::parse);
    db::upsert(
        conn,
        &NewFeedback {
            id: &uuid::Uuid::new_v4().to_string(),
            run_id: &run.id,
            client_id: &run.client_id,
            headers: &headers,
            proposed_lever: proposed.map(Lever::as_str),
            reviewed_lever: reviewed.as_str(),
            explanation: explanation.trim(),
            created_by: by,
            now: &crate::db::now(),
        },
    )
    .await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(headers: &[&str], proposed: Option<Lever>, lever: Lever) -> Feedback {
        Feedback {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            proposed,
            lever,
        }
    }

    #[test]
    fn no_reviews_no_figures() {
        assert_eq!(learning(&[], &["NIF"]), None);
    }

    #[test]
    fn accuracy_counts_the_approved_and_similar_counts_close_headers() {
        let pse = ["NIF", "Nombre", "Exposicion"];
        let other = ["LEI", "Counterparty", "Rating"];
        let r = vec![
            review(&pse, Some(Lever::Pse), Lever::Pse),
            review(&pse, Some(Lever::Pse), Lever::Rgla),
            review(&other, None, Lever::Institutions),
            review(&other, Some(Lever::Institutions), Lever::Institutions),
        ];
        let l = learning(&r, &pse).unwrap();
        assert_eq!((l.reviewed, l.approved, l.similar), (4, 2, 2));
        assert_eq!(l.accuracy, 0.5);
        assert_eq!((l.earlier_accuracy, l.recent_accuracy), (None, None));
    }

    #[test]
    fn the_trend_compares_the_older_and_newer_halves() {
        let h = ["NIF"];
        let mut r: Vec<Feedback> = (0..6)
            .map(|i| {
                let lever = if i < 3 { Lever::Rgla } else { Lever::Pse };
                review(&h, Some(Lever::Pse), lever)
            })
            .collect();
        r.extend((0..6).map(|_| review(&h, Some(Lever::Pse), Lever::Pse)));
        let l = learning(&r, &["LEI"]).unwrap();
        assert_eq!(l.earlier_accuracy, Some(0.5));
        assert_eq!(l.recent_accuracy, Some(1.0));
        assert_eq!(l.similar, 0);
        assert_eq!(l.approved, 9);
    }
}
