//! Reviewed classifications: a person's decision on the lever the classifier proposed for a file
//! in an enhanced-AI run (approved: the same lever; corrected: another; or the classification
//! rejected). Stored once per run ([`record_review`], called where a person decides a classified
//! file's lever: the training screen of [`training`] and File Management's lever assignment),
//! read back by the classifier per client ([`reviews_for`]: files with similar headers lean
//! towards the reviewed lever, the file's own client's reviews fully and the other clients' at
//! [`OTHER_CLIENTS_WEIGHT`], see `analysis::classify::classify_with_feedback`), and measured
//! ([`learning`]): the figures of the 'Continuous Learning' card, which appears only when reviews
//! exist.

pub mod training;

use analysis::classify::{FEEDBACK_MIN_SIMILARITY, Feedback, header_similarity};
use analysis::model::Lever;
use serde::{Deserialize, Serialize};
use sqlx::{AnyConnection, AnyExecutor};

use crate::db::classification::{self as db, FeedbackRow, NewFeedback};
use crate::db::runs::RunRow;
use crate::error::ApiResult;

/// The most recent reviews the classifier reads of the file's own client, and as many of the
/// other clients' (the figures are measured on them).
pub const REVIEWS_READ: i64 = 2000;
/// Reviews from which the earlier and recent halves are compared.
pub const MIN_REVIEWS_FOR_TREND: usize = 10;
/// How much a review of another client's file counts in a classification (the file's own
/// client's count fully): a bank's own layouts are strong evidence, another bank's a hint. With
/// one review of identical headers and no other evidence, the own client's review makes the
/// next file's classification confident (about 0.95 against the 0.7 threshold) and another
/// client's proposes the lever for review (about 0.41).
pub const OTHER_CLIENTS_WEIGHT: f64 = 0.25;
/// Confidence delta of a review that kept the proposed lever (specification: 0.1).
pub const DELTA_KEPT: f64 = 0.1;
/// Confidence delta of a review that chose another lever (specification: -0.2).
pub const DELTA_CORRECTED: f64 = -0.2;

/// What past reviews say about the classifier, measured when a file is classified: the
/// 'Continuous Learning' card. Stored in the run's classification JSON (`learning`), which the
/// web reads defensively like the rest of the engine's evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Learning {
    /// Reviewed classifications read (every client).
    #[ts(type = "number")]
    pub reviewed: u64,
    /// Of which the reviewer kept the proposed lever.
    #[ts(type = "number")]
    pub approved: u64,
    /// `approved / reviewed`, in 0..1.
    pub accuracy: f64,
    /// Reviews of files with headers similar enough to this file's to count in its
    /// classification.
    #[ts(type = "number")]
    pub similar: u64,
    /// Accuracy over the older half of the reviews (from [`MIN_REVIEWS_FOR_TREND`] reviews).
    pub earlier_accuracy: Option<f64>,
    /// Accuracy over the newer half.
    pub recent_accuracy: Option<f64>,
    /// Reviews of the file's own client.
    #[serde(default)]
    #[ts(type = "number")]
    pub client_reviewed: u64,
    /// Of which the reviewer kept the proposed lever.
    #[serde(default)]
    #[ts(type = "number")]
    pub client_approved: u64,
    /// `client_approved / client_reviewed` (`None` without reviews of the client).
    #[serde(default)]
    pub client_accuracy: Option<f64>,
}

/// One review as a classification reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reviewed {
    /// When it was made (RFC 3339, sorts in time).
    pub at: String,
    /// Whether it is a review of the classified file's own client.
    pub own: bool,
    /// The decision, weighted ([`OTHER_CLIENTS_WEIGHT`] for other clients').
    pub feedback: Feedback,
}

/// The reviews a classification of one client's file reads, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reviews(pub Vec<Reviewed>);

impl Reviews {
    /// Every review, as the classifier takes them.
    pub fn all(&self) -> Vec<Feedback> {
        self.0.iter().map(|r| r.feedback.clone()).collect()
    }
}

fn feedback(r: &FeedbackRow, weight: f64) -> Option<Feedback> {
    Some(Feedback {
        headers: serde_json::from_str(&r.headers).ok()?,
        proposed: r.proposed_lever.as_deref().and_then(Lever::parse),
        lever: Lever::parse(&r.reviewed_lever)?,
        weight,
    })
}

/// The most recent approved reviews of every client, oldest first, each counting fully (rows
/// that no longer parse are skipped).
pub async fn reviews<'e>(ex: impl AnyExecutor<'e>) -> ApiResult<Vec<Feedback>> {
    let rows = db::recent(ex, REVIEWS_READ).await?;
    Ok(rows.iter().filter_map(|r| feedback(r, 1.0)).collect())
}

/// The reviews a classification of `client_id`'s file reads, oldest first: the client's own
/// most recent approved reviews (counting fully) and as many of the other clients' (counting
/// [`OTHER_CLIENTS_WEIGHT`]).
pub async fn reviews_for(conn: &mut AnyConnection, client_id: &str) -> ApiResult<Reviews> {
    let own = db::recent_of(&mut *conn, client_id, true, REVIEWS_READ).await?;
    let others = db::recent_of(&mut *conn, client_id, false, REVIEWS_READ).await?;
    let mut all: Vec<Reviewed> = own
        .iter()
        .map(|r| (r, true))
        .chain(others.iter().map(|r| (r, false)))
        .filter_map(|(r, own)| {
            let weight = if own { 1.0 } else { OTHER_CLIENTS_WEIGHT };
            Some(Reviewed {
                at: r.created_at.clone(),
                own,
                feedback: feedback(r, weight)?,
            })
        })
        .collect();
    all.sort_by(|a, b| a.at.cmp(&b.at));
    Ok(Reviews(all))
}

/// A classification of one client's file as its run makes it: the classifier over the file's
/// headers and sample rows with the reviews of [`reviews_for`], and the figures of those reviews.
pub fn classify(
    reviews: &Reviews,
    headers: &[&str],
    rows: &[Vec<&str>],
    refdata: &analysis::refdata::RefData,
) -> (analysis::classify::Classification, Option<Learning>) {
    let c = analysis::classify::classify_with_feedback(headers, rows, refdata, &reviews.all());
    (c, learning(reviews, headers))
}

fn kept(r: &Reviewed) -> bool {
    r.feedback.proposed == Some(r.feedback.lever)
}

fn accuracy<'a>(reviews: impl Iterator<Item = &'a Reviewed>) -> Option<f64> {
    let (mut n, mut k) = (0usize, 0usize);
    for r in reviews {
        n += 1;
        k += usize::from(kept(r));
    }
    (n > 0).then(|| k as f64 / n as f64)
}

/// The figures of past reviews for a file with `headers`; `None` without reviews. Accuracy is
/// the share of reviews that kept the proposed lever, over every client's reviews and over the
/// file's own client's; from [`MIN_REVIEWS_FOR_TREND`] reviews the newer half is compared with
/// the older half.
pub fn learning(reviews: &Reviews, headers: &[&str]) -> Option<Learning> {
    let all = &reviews.0;
    if all.is_empty() {
        return None;
    }
    let approved = all.iter().filter(|r| kept(r)).count();
    let similar = all
        .iter()
        .filter(|r| {
            let h: Vec<&str> = r.feedback.headers.iter().map(String::as_str).collect();
            header_similarity(headers, &h) >= FEEDBACK_MIN_SIMILARITY
        })
        .count();
    let (earlier, recent) = if all.len() >= MIN_REVIEWS_FOR_TREND {
        let (a, b) = all.split_at(all.len() / 2);
        (accuracy(a.iter()), accuracy(b.iter()))
    } else {
        (None, None)
    };
    let own = all.iter().filter(|r| r.own);
    Some(Learning {
        reviewed: all.len() as u64,
        approved: approved as u64,
        accuracy: approved as f64 / all.len() as f64,
        similar: similar as u64,
        earlier_accuracy: earlier,
        recent_accuracy: recent,
        client_reviewed: own.clone().count() as u64,
        client_approved: own.clone().filter(|r| kept(r)).count() as u64,
        client_accuracy: accuracy(own),
    })
}

/// A person's decision on a classified run.
#[derive(Debug, Clone, Copy)]
pub struct Decision<'a> {
    /// Approved (the file gets `lever_code`) or rejected.
    pub approved: bool,
    /// The engine's code of the lever chosen (for a rejection: the one selected, if any).
    pub lever_code: Option<&'a str>,
    /// The reviewer.
    pub by: Option<&'a str>,
    /// The reviewer's words.
    pub explanation: &'a str,
    /// The run an approval queued.
    pub follow_up_run_id: Option<&'a str>,
}

/// What [`record_review`] stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The lever code the classifier proposed.
    pub proposed: Option<&'static str>,
    /// Whether the reviewer chose another lever than the one proposed.
    pub corrected: bool,
    /// -0.2 when corrected, else 0.1.
    pub confidence_delta: f64,
}

/// The classification a run stored in its result (`None`: it classified nothing, such as a
/// manual run).
pub fn stored_classification(run: &RunRow) -> Option<serde_json::Value> {
    run.result
        .as_deref()
        .and_then(|r| serde_json::from_str::<serde_json::Value>(r).ok())
        .and_then(|mut v| v.get_mut("classification").map(serde_json::Value::take))
        .filter(|c| c.is_object())
}

/// Records a person's decision on the file `run` classified. Nothing is recorded (`None`) for a
/// run that classified nothing (manual mode, a run not yet finished) or, for an approval, a
/// lever the engine does not know.
pub async fn record_review(
    conn: &mut AnyConnection,
    run: &RunRow,
    decision: Decision<'_>,
) -> ApiResult<Option<Recorded>> {
    let reviewed = decision.lever_code.and_then(Lever::parse);
    if decision.approved && reviewed.is_none() {
        return Ok(None);
    }
    let Some(classification) = stored_classification(run) else {
        return Ok(None);
    };
    let Some(headers) = classification
        .get("headers")
        .filter(|h| h.is_array())
        .map(serde_json::Value::to_string)
    else {
        return Ok(None);
    };
    let proposed = classification
        .get("lever")
        .and_then(serde_json::Value::as_str)
        .and_then(Lever::parse);
    let corrected = reviewed.is_some() && reviewed != proposed;
    let confidence_delta = if corrected {
        DELTA_CORRECTED
    } else {
        DELTA_KEPT
    };
    db::upsert(
        conn,
        &NewFeedback {
            id: &uuid::Uuid::new_v4().to_string(),
            run_id: &run.id,
            client_id: &run.client_id,
            headers: &headers,
            proposed_lever: proposed.map(Lever::as_str),
            reviewed_lever: reviewed.map_or("", Lever::as_str),
            feedback_type: if decision.approved {
                "approval"
            } else {
                "rejection"
            },
            confidence_delta,
            follow_up_run_id: decision.follow_up_run_id,
            explanation: decision.explanation.trim(),
            created_by: decision.by,
            now: &crate::db::now(),
        },
    )
    .await?;
    Ok(Some(Recorded {
        proposed: proposed.map(Lever::as_str),
        corrected,
        confidence_delta,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(headers: &[&str], proposed: Option<Lever>, lever: Lever, own: bool) -> Reviewed {
        Reviewed {
            at: String::new(),
            own,
            feedback: Feedback::new(
                headers.iter().map(|h| h.to_string()).collect(),
                proposed,
                lever,
            ),
        }
    }

    #[test]
    fn no_reviews_no_figures() {
        assert_eq!(learning(&Reviews::default(), &["NIF"]), None);
    }

    #[test]
    fn accuracy_counts_the_approved_and_similar_counts_close_headers() {
        let pse = ["NIF", "Nombre", "Exposicion"];
        let other = ["LEI", "Counterparty", "Rating"];
        let r = Reviews(vec![
            review(&pse, Some(Lever::Pse), Lever::Pse, true),
            review(&pse, Some(Lever::Pse), Lever::Rgla, false),
            review(&other, None, Lever::Institutions, false),
            review(&other, Some(Lever::Institutions), Lever::Institutions, true),
        ]);
        let l = learning(&r, &pse).unwrap();
        assert_eq!((l.reviewed, l.approved, l.similar), (4, 2, 2));
        assert_eq!(l.accuracy, 0.5);
        assert_eq!((l.earlier_accuracy, l.recent_accuracy), (None, None));
        // The client's own: both kept.
        assert_eq!((l.client_reviewed, l.client_approved), (2, 2));
        assert_eq!(l.client_accuracy, Some(1.0));
        let others_only = Reviews(vec![review(&pse, Some(Lever::Pse), Lever::Rgla, false)]);
        let l = learning(&others_only, &pse).unwrap();
        assert_eq!((l.client_reviewed, l.client_accuracy), (0, None));
    }

    #[test]
    fn the_trend_compares_the_older_and_newer_halves() {
        let h = ["NIF"];
        let mut r: Vec<Reviewed> = (0..6)
            .map(|i| {
                let lever = if i < 3 { Lever::Rgla } else { Lever::Pse };
                review(&h, Some(Lever::Pse), lever, i % 2 == 0)
            })
            .collect();
        r.extend((0..6).map(|_| review(&h, Some(Lever::Pse), Lever::Pse, false)));
        let l = learning(&Reviews(r), &["LEI"]).unwrap();
        assert_eq!(l.earlier_accuracy, Some(0.5));
        assert_eq!(l.recent_accuracy, Some(1.0));
        assert_eq!(l.similar, 0);
        assert_eq!(l.approved, 9);
    }
}
