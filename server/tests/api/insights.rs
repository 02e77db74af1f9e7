//! AI explainability: a hand-computed PSE file processed by the server's own run, then explained
//! through the API: the decisions paged and searched by the server, the decision trace of an
//! exposure whose path and articles follow the regulation (CRR Art. 116 as in
//! `design/domain.md`: an unrated PSE with Spain at CQS 2 takes 50 % from 116(1) Table 2 after
//! 116(4) and 116(3) answer no; a PSE exposure of three months or less takes 20 % from 116(3)),
//! the confidence's four factors, similar earlier decisions once a second run of the file lands,
//! and the exports. Access: members and viewers of the client read, another client's users get
//! 404, whichever client they name.

use reqwest::StatusCode;
use serde_json::Value;
use server::service::runs::RunMode;

use crate::helpers::*;
use crate::runs::{queue, stored_file, wait_final};

/// Three PSE exposures worked out by hand (EU-CRR3; Spain CQS 2 in the shipped reference data):
/// 1. ADIF (Q2801660H, a real public body, unrated, not treated as central government), 24 months:
///    116(4) no, 116(3) no, no own rating, 116(1) Table 2 at CQS 2: 50 %.
/// 2. AEAT (Q2826000H), 2 months: 116(4) no, 116(3) yes: 20 %.
/// 3. A NIF with a wrong check character: not matched, 100 % kept.
pub(crate) const HAND_PSE: &str = "Exposure_ID,Counterparty,NIF,Exposure_Amount,Current_Risk_Weight,Maturity (months),Currency\n\
EXP-ADIF-24M,Administrador de Infraestructuras Ferroviarias,Q2801660H,1000000,100,24,EUR\n\
EXP-AEAT-2M,Agencia Estatal de Administracion Tributaria,Q2826000H,500000,100,2,EUR\n\
EXP-BAD-NIF,Entidad Desconocida,Q9999999J,250000,100,24,EUR\n";

pub(crate) async fn client_of(s: &Session) -> String {
    let (_, me) = s.json("/api/auth/me").await;
    me["client"]["id"].as_str().expect("a client").to_string()
}

/// Processes the hand file for Bank A under the PSE lever; the run's id.
pub(crate) async fn processed(app: &TestApp, s: &Session, client: &str, name: &str) -> String {
    let file = stored_file(app, client, name, HAND_PSE.as_bytes()).await;
    let run = queue(app, client, &file, RunMode::Manual, Some("lever-pse")).await;
    let v = wait_final(s, &run, 60).await;
    assert_eq!(v["state"], "completed", "{v}");
    run
}

fn steps(detail: &Value) -> Vec<(String, String, String)> {
    detail["trace"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["test"].as_str().unwrap().to_string(),
                s["outcome"].as_str().unwrap().to_string(),
                s["article"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn factor<'v>(detail: &'v Value, key: &str) -> &'v Value {
    detail["confidence"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == key)
        .unwrap_or_else(|| panic!("factor {key}"))
}

#[tokio::test]
async fn a_hand_computed_pse_exposure_is_explained_with_the_articles_of_the_regulation() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;
    let run = processed(&app, &user, &client, "hand-pse.csv").await;
    let q = format!("client_id={client}");

    // The client's runs.
    let (st, runs) = user.json(&format!("/api/insights/runs?{q}")).await;
    assert_eq!(st, StatusCode::OK, "{runs}");
    let listed = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == run.as_str())
        .expect("the run is listed");
    assert_eq!(listed["fileName"], "hand-pse.csv");
    assert_eq!(listed["rows"], 3);
    assert_eq!(listed["validationStatus"], "pending");

    // The overview: the decisions add up to the run's stored result.
    let (st, o) = user.json(&format!("/api/insights/runs/{run}?{q}")).await;
    assert_eq!(st, StatusCode::OK, "{o}");
    assert_eq!(o["lever"], "pse");
    assert_eq!(o["ruleSet"], "EU-CRR3");
    assert_eq!(o["reportingDateStored"], true);
    assert_eq!(o["totals"]["rows"], 3);
    assert_eq!(o["totals"]["matched"], 2);
    assert_eq!(o["totals"]["notMatched"], 1);
    assert_eq!(o["totals"]["changed"], 2);
    // 1,000,000 x (100 - 50) % + 500,000 x (100 - 20) %.
    assert_eq!(o["totals"]["rwaSaving"], 900000.0);
    assert_eq!(o["consistency"], Value::Null, "{o}");
    // A manual run: the classifier's tokens on the same file, computed now.
    assert_eq!(o["tokens"]["source"], "recomputed");
    let tokens = o["tokens"]["tokens"].as_array().unwrap();
    // The strongest: two of the three NIFs are in the PSE list.
    assert_eq!(tokens[0]["token"], "PSE list", "{tokens:?}");
    assert_eq!(tokens[0]["detail"], "2 of 3 NIFs found in the PSE list");
    assert_eq!(tokens[0]["importance"], "high");
    assert!(
        tokens.iter().any(|t| t["token"] == "NIF key Q"),
        "{tokens:?}"
    );
    let (h, m, l) = (
        o["tokens"]["high"].as_u64().unwrap(),
        o["tokens"]["medium"].as_u64().unwrap(),
        o["tokens"]["low"].as_u64().unwrap(),
    );
    assert_eq!((h + m + l) as usize, tokens.len());
    assert!(h >= 1);

    // The decisions, paged and searched by the server.
    let (st, page) = user
        .json(&format!("/api/insights/runs/{run}/decisions?{q}"))
        .await;
    assert_eq!(st, StatusCode::OK, "{page}");
    assert_eq!(page["total"], 3);
    let first = &page["items"][0];
    assert_eq!(first["row"], 1);
    assert_eq!(first["exposureId"], "EXP-ADIF-24M");
    assert_eq!(
        first["counterparty"],
        "Administrador de Infraestructuras Ferroviarias"
    );
    assert_eq!(first["identifier"], "Q2801660H");
    assert_eq!(first["originalRw"], 100.0);
    assert_eq!(first["proposedRw"], 50.0);
    assert_eq!(first["regulatoryBasis"], "CRR Art. 116(1) Table 2");
    assert_eq!(first["appliedRule"], "PSE_UNRATED");
    assert!(
        first["reasoning"]
            .as_str()
            .unwrap()
            .contains("central government ES CQS 2")
    );
    let search = |extra: &str| {
        let (user, run, q) = (&user, &run, &q);
        let extra = extra.to_string();
        async move {
            let (st, v) = user
                .json(&format!("/api/insights/runs/{run}/decisions?{q}&{extra}"))
                .await;
            assert_eq!(st, StatusCode::OK, "{v}");
            v
        }
    };
    let by_nif = search("q=q2826000h").await;
    assert_eq!(by_nif["total"], 1);
    assert_eq!(by_nif["items"][0]["exposureId"], "EXP-AEAT-2M");
    let by_article = search("q=116(3)").await;
    assert_eq!(by_article["total"], 1);
    assert_eq!(by_article["items"][0]["proposedRw"], 20.0);
    let not_matched = search("status=not_matched").await;
    assert_eq!(not_matched["total"], 1);
    assert_eq!(not_matched["items"][0]["exposureId"], "EXP-BAD-NIF");
    let second_page = search("pageSize=2&page=2").await;
    assert_eq!(second_page["total"], 3);
    assert_eq!(second_page["items"].as_array().unwrap().len(), 1);
    assert_eq!(second_page["items"][0]["row"], 3);
    let (st, _) = user
        .json(&format!(
            "/api/insights/runs/{run}/decisions?{q}&pageSize=1000"
        ))
        .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);

    // The decision tree of the ADIF exposure: the regulation's path and articles.
    let (st, d) = user
        .json(&format!("/api/insights/runs/{run}/decisions/1?{q}"))
        .await;
    assert_eq!(st, StatusCode::OK, "{d}");
    let path = steps(&d);
    let expected = [
        ("current risk weight usable?", "yes", ""),
        (
            "listed as treated like the central government?",
            "no",
            "CRR Art. 116(4)",
        ),
        ("original maturity <= 3 months?", "no", ""),
        ("own rating?", "none", ""),
        ("weight of PSE_UNRATED", "50%", "CRR Art. 116(1) Table 2"),
    ];
    let mut at = 0;
    for (test, outcome, article) in expected {
        let i = path[at..]
            .iter()
            .position(|(t, _, _)| t == test)
            .unwrap_or_else(|| panic!("step '{test}' after step {at} in {path:?}"))
            + at;
        assert_eq!(path[i].1, outcome, "{test}: {path:?}");
        if !article.is_empty() {
            assert_eq!(path[i].2, article, "{test}");
        }
        at = i + 1;
    }
    assert!(
        path.iter()
            .any(|(t, o, _)| t == "NIF in the PSE reference list?" && o.starts_with("yes")),
        "{path:?}"
    );
    assert_eq!(d["trace"]["suggestedRw"], 50.0);
    assert_eq!(d["trace"]["regulatoryReference"], "CRR Art. 116(1) Table 2");
    assert_eq!(d["trace"]["ruleSet"], "EU-CRR3");
    assert_eq!(d["trace"]["referenceEntries"][0]["list"], "PSE");
    assert_eq!(d["trace"]["referenceEntries"][0]["key"], "Q2801660H");
    // The fields the lever requires, all present.
    let maturity = d["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "Maturity")
        .expect("the Maturity field");
    assert_eq!(maturity["column"], "Maturity (months)");
    assert_eq!(maturity["value"], "24");
    assert_eq!(maturity["state"], "present");
    assert_eq!(maturity["required"], true);
    // The four factors: a clean match, no decided history yet, complete data, pending.
    assert_eq!(factor(&d, "rule_match")["score"], 100.0);
    assert_eq!(factor(&d, "historical_consistency")["score"], 50.0);
    assert_eq!(factor(&d, "data_completeness")["score"], 100.0);
    assert_eq!(factor(&d, "expert_validation")["score"], 50.0);
    assert_eq!(d["confidence"]["overall"], 75.0);
    assert_eq!(d["decision"]["confidence"], 75.0);

    // The short-term exposure: 116(3).
    let (_, d2) = user
        .json(&format!("/api/insights/runs/{run}/decisions/2?{q}"))
        .await;
    let short = steps(&d2);
    let last_weight = short
        .iter()
        .find(|(t, _, _)| t == "weight of PSE_SHORT")
        .expect("the 116(3) weight");
    assert_eq!(
        (last_weight.1.as_str(), last_weight.2.as_str()),
        ("20%", "CRR Art. 116(3)")
    );
    assert!(
        short
            .iter()
            .any(|(t, o, _)| t == "original maturity <= 3 months?" && o.starts_with("yes"))
    );
    // Its maturity was taken as the original one (no Origination_Date): a deduction.
    assert!(factor(&d2, "rule_match")["score"].as_f64().unwrap() < 100.0);
    // The invalid NIF: no rule applied.
    let (_, d3) = user
        .json(&format!("/api/insights/runs/{run}/decisions/3?{q}"))
        .await;
    assert_eq!(d3["decision"]["status"], "not_matched");
    assert_eq!(factor(&d3, "rule_match")["score"], 0.0);
    let (st, _) = user
        .json(&format!("/api/insights/runs/{run}/decisions/4?{q}"))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);

    // No earlier run yet.
    let (st, h) = user
        .json(&format!("/api/insights/runs/{run}/decisions/1/history?{q}"))
        .await;
    assert_eq!(st, StatusCode::OK, "{h}");
    assert_eq!(h["similarTotal"], 0);
    assert_eq!(h["patternMatch"], Value::Null);

    // An approver approves the result; the same file is processed again.
    let approver = app.login(APPROVER).await;
    let (_, pending) = approver
        .json(&format!("/api/validations?{q}&tab=pending"))
        .await;
    let validation = pending["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["runId"] == run.as_str())
        .expect("the run's validation")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = approver
        .post(
            &format!("/api/validations/{validation}/approve"),
            Value::Null,
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let again = processed(&app, &user, &client, "hand-pse-again.csv").await;

    // The first run's decision is now approved history of the second.
    let (_, h) = user
        .json(&format!(
            "/api/insights/runs/{again}/decisions/1/history?{q}"
        ))
        .await;
    assert_eq!(h["runsCompared"], 1, "{h}");
    assert_eq!(h["patternMatch"], 100.0, "{h}");
    assert!(h["similarLast6Months"].as_u64().unwrap() >= 1);
    let case = &h["cases"][0];
    assert_eq!(case["runId"], run.as_str());
    assert_eq!(case["exposureId"], "EXP-ADIF-24M");
    assert_eq!(case["similarity"], 100.0);
    assert_eq!(case["outcome"], "Approved");
    assert_eq!(case["proposedRw"], 50.0);
    let (_, d) = user
        .json(&format!("/api/insights/runs/{again}/decisions/1?{q}"))
        .await;
    assert_eq!(factor(&d, "historical_consistency")["score"], 100.0);
    // And the first run's own validation is now approved.
    let (_, d) = user
        .json(&format!("/api/insights/runs/{run}/decisions/1?{q}"))
        .await;
    assert_eq!(factor(&d, "expert_validation")["score"], 100.0);
    assert!(
        factor(&d, "expert_validation")["how"]
            .as_str()
            .unwrap()
            .contains("approved by")
    );

    // The analysis as files.
    let r = user
        .get(&format!(
            "/api/insights/runs/{run}/export?{q}&format=json&row=1"
        ))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let disposition = r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        disposition.contains("ai-analysis-hand-pse-row-1.json"),
        "{disposition}"
    );
    let json: Value = r.json().await.unwrap();
    assert_eq!(
        json["decision"]["trace"]["regulatoryReference"],
        "CRR Art. 116(1) Table 2"
    );
    assert_eq!(json["run"]["totals"]["rows"], 3);
    let r = user
        .get(&format!(
            "/api/insights/runs/{run}/export?{q}&format=csv&row=2"
        ))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let csv = r.text().await.unwrap();
    assert!(csv.starts_with("section,item,value,detail\n"), "{csv}");
    assert!(csv.contains("decision,proposed weight,20%,"), "{csv}");
    assert!(csv.contains("CRR Art. 116(3)"), "{csv}");
    let r = user
        .get(&format!("/api/insights/runs/{run}/export?{q}&format=pdf"))
        .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn only_the_clients_readers_see_its_runs_decisions() {
    // No worker: the test runs its one run itself, and a second one stays queued.
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;
    let file = stored_file(&app, &client, "hand-pse.csv", HAND_PSE.as_bytes()).await;
    let run = queue(&app, &client, &file, RunMode::Manual, Some("lever-pse")).await;
    assert_eq!(
        server::jobs::runs::run_once(&app.state, "insights-test").await,
        Some(run.clone())
    );
    assert_eq!(wait_final(&user, &run, 5).await["state"], "completed");
    let other = app.login(USER_B).await;
    let other_client = client_of(&other).await;
    assert_ne!(client, other_client);
    let paths = [
        format!("/api/insights/runs/{run}"),
        format!("/api/insights/runs/{run}/decisions"),
        format!("/api/insights/runs/{run}/decisions/1"),
        format!("/api/insights/runs/{run}/decisions/1/history"),
        format!("/api/insights/runs/{run}/export"),
    ];
    // A viewer of Bank A reads everything.
    let viewer = app.login(VIEWER).await;
    for p in &paths {
        let (st, v) = viewer.json(&format!("{p}?client_id={client}")).await;
        assert_eq!(st, StatusCode::OK, "{p}: {v}");
    }
    // Bank B's user: Bank A's run is not found, naming either client, and nothing of it shows.
    for p in &paths {
        for c in [&client, &other_client] {
            let r = other.get(&format!("{p}?client_id={c}")).await;
            assert_eq!(r.status(), StatusCode::NOT_FOUND, "{p} naming {c}");
            let body = r.text().await.unwrap();
            assert!(
                !body.contains("hand-pse") && !body.contains("EXP-"),
                "{body}"
            );
        }
    }
    let (_, listed) = other
        .json(&format!("/api/insights/runs?client_id={other_client}"))
        .await;
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["id"] != run.as_str()),
        "{listed}"
    );
    // Bank A's own user cannot reach it through Bank B either.
    let r = user
        .get(&format!(
            "/api/insights/runs/{run}?client_id={other_client}"
        ))
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    // Anonymous.
    let anon = app.client().await;
    let r = anon
        .get(&format!("/api/insights/runs?client_id={client}"))
        .await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    // A run without results (queued: no worker here) has nothing to explain.
    let file = stored_file(&app, &client, "waiting.csv", HAND_PSE.as_bytes()).await;
    let waiting = queue(&app, &client, &file, RunMode::Manual, Some("lever-pse")).await;
    let (st, v) = user
        .json(&format!(
            "/api/insights/runs/{waiting}/decisions?client_id={client}"
        ))
        .await;
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    assert_eq!(v["code"], "run_not_completed");
    assert_eq!(
        v["message"],
        "This run has no decisions to explain: it is queued"
    );
}
