//! The calculators (spec 002) through the API, against figures worked out by hand in the
//! comments: the admin calculator on the figures it is given, the client calculator on the
//! client's official figures (Bank A of the demo data: total RWAs 48.2bn, CET1 capital 6.53bn,
//! savings 221.6m), saved scenarios beside the real portfolio, and who may do what with them.
//! Also the support contact of FAQ & Support.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;
use crate::realtime::{Ws, client_id};

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[track_caller]
fn close(v: &Value, expected: f64, tol: f64) {
    let got = num(v);
    assert!(
        (got - expected).abs() <= tol,
        "{got} != {expected} (tolerance {tol})"
    );
}

/// The domain brief's example K01 (R = 100bn, C = 13bn, ΔR = 1bn) with a three-year projection.
#[tokio::test]
async fn the_admin_calculator_gives_the_hand_computed_figures() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let (st, r) = send(
        &admin,
        Method::POST,
        "/api/admin/calculator",
        Some(json!({"cet1Capital": 13e9, "totalRwas": 100e9,
            "optimisation": {"by": "rwas", "value": 1e9}, "projectionYears": 3, "currency": "gbp"})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{r}");
    assert_eq!(r["currency"], "gbp");
    // ρ = 13 %; RWAs per bp = 1e22 / (1e4 × 1.3e10) = 76,923,076.92.
    close(&r["cet1RatioPct"], 13.0, 1e-12);
    close(&r["rwasPerBp"], 76_923_076.923_076_9, 1e-4);
    // New RWAs 99bn, 1 % of the RWAs; 13 / 99 = 13.131313 %: +13.1313 bps.
    let s = &r["summary"];
    close(&s["optimisedRwas"], 1e9, 1e-3);
    close(&s["newTotalRwas"], 99e9, 1e-3);
    close(&s["optimisationPct"], 1.0, 1e-12);
    close(&s["optimisationBps"], 13.131_313_131_3, 1e-9);
    let a = &r["scenarioA"];
    close(&a["currentRatioPct"], 13.0, 1e-12);
    close(&a["optimisedRatioPct"], 13.131_313_131_3, 1e-9);
    close(&a["improvementBps"], 13.131_313_131_3, 1e-9);
    // Freed 1bn × 13 % = 130m; unlocked 97 % = 126.1m; fee 3 % = 3.783m. Margin 1.3 %:
    // year 1 126.1m × 1.3 % − 3.783m = −2,143,700; year 2 123,956,300 × 1.3 % = 1,611,431.90,
    // cumulative −532,268.10; year 3 125,567,731.90 × 1.3 % = 1,632,380.51, cumulative
    // 1,100,112.41; break-even 2 + 532,268.10 / 1,632,380.51 = 2.3261.
    let b = &r["scenarioB"];
    close(&b["capitalFreed"], 130e6, 1e-6);
    close(&b["unlockedCapital"], 126.1e6, 1e-6);
    close(&b["variableFee"], 3_783_000.0, 1e-6);
    close(&b["netInterestMarginPct"], 1.3, 0.0);
    close(&b["variableFeePct"], 3.0, 0.0);
    close(&b["firstYearNetIncome"], -2_143_700.0, 1e-6);
    close(&b["cumulativeIncome"], 1_100_112.414_7, 1e-4);
    assert_eq!(b["projectionYears"], 3);
    let years = b["years"].as_array().unwrap();
    assert_eq!(years.len(), 3);
    close(&years[1]["balance"], 123_956_300.0, 1e-6);
    close(&years[1]["cumulativeValue"], -532_268.1, 1e-6);
    close(&b["breakEvenYear"], 2.326_068_6, 1e-6);

    // By BPS: 10 bps need ΔR = 10 × 1e22 / (1.3e14 + 1e12) = 763,358,778.63; 13 / 99.2366 = 13.10 %.
    let (st, r) = send(
        &admin,
        Method::POST,
        "/api/admin/calculator",
        Some(json!({"cet1Capital": 13e9, "totalRwas": 100e9, "optimisation": {"by": "bps", "value": 10}})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{r}");
    close(&r["summary"]["optimisedRwas"], 763_358_778.625_954, 1e-3);
    close(&r["scenarioA"]["optimisedRatioPct"], 13.1, 1e-9);
    assert_eq!(r["currency"], "eur");
    assert_eq!(r["scenarioB"]["years"].as_array().unwrap().len(), 10);

    // A margin of 0 never recovers the fee: no break-even.
    let (_, r) = send(
        &admin,
        Method::POST,
        "/api/admin/calculator",
        Some(json!({"cet1Capital": 13e9, "totalRwas": 100e9, "optimisation": {"by": "rwas", "value": 1e9}, "netInterestMarginPct": 0})),
    )
    .await;
    assert_eq!(r["scenarioB"]["breakEvenYear"], Value::Null);

    // Figures and inputs the engine refuses are 422 with its message.
    for (payload, message) in [
        (
            json!({"cet1Capital": 0, "totalRwas": 100e9, "optimisation": {"by": "bps", "value": 10}}),
            "CET1 capital must be a positive amount",
        ),
        (
            json!({"cet1Capital": 200e9, "totalRwas": 100e9, "optimisation": {"by": "bps", "value": 10}}),
            "must be smaller than the total RWAs",
        ),
        (
            json!({"cet1Capital": 13e9, "totalRwas": 100e9, "optimisation": {"by": "rwas", "value": 100e9}}),
            "must be smaller than the total RWAs",
        ),
        (
            json!({"cet1Capital": 13e9, "totalRwas": 100e9, "optimisation": {"by": "bps", "value": 10}, "projectionYears": 41}),
            "the projection must be 3 to 40 years, found 41",
        ),
        (
            json!({"cet1Capital": 13e9, "totalRwas": 100e9, "optimisation": {"by": "bps", "value": 10}, "netInterestMarginPct": 150}),
            "net interest margin",
        ),
    ] {
        let (st, r) = send(&admin, Method::POST, "/api/admin/calculator", Some(payload)).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{r}");
        assert_eq!(r["code"], "invalid_calculation");
        assert!(
            r["message"].as_str().unwrap().contains(message),
            "{r} does not say {message}"
        );
    }

    // The admin calculator is the administrators'.
    let member = app.login(USER_A).await;
    let (st, _) = send(
        &member,
        Method::POST,
        "/api/admin/calculator",
        Some(json!({"cet1Capital": 13e9, "totalRwas": 100e9, "optimisation": {"by": "bps", "value": 10}})),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
}

/// Bank A: R = 48.2bn, C = 6.53bn; its members compute on those figures only.
#[tokio::test]
async fn the_client_calculator_works_on_the_clients_official_figures() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let bank_a = client_id(&app, "Bank A").await;
    let member = app.login(USER_A).await;
    let (st, c) = member.json("/api/calculator").await;
    assert_eq!(st, StatusCode::OK, "{c}");
    assert_eq!(c["clientId"], bank_a.as_str());
    assert_eq!(c["clientName"], "Bank A");
    close(&c["cet1Capital"], 6.53e9, 0.0);
    close(&c["totalRwas"], 48.2e9, 0.0);
    // 6.53 / 48.2 = 13.5477 %; RWAs per bp = 48.2e9² / (1e4 × 6.53e9) = 35,577,947.93.
    close(&c["cet1RatioPct"], 13.547_717_842_3, 1e-9);
    close(&c["rwasPerBp"], 35_577_947.932_6, 1e-3);
    assert_eq!(c["figuresProblem"], Value::Null);
    // The seeded savings: the last month's levers, 12 × 9.5m + 10 × 6.2m + 8 × 2.1m + 6 × 4.8m.
    close(&c["portfolioSavingsRwas"], 221.6e6, 1e-6);
    assert_eq!(c["canSave"], true);

    // 2.5 % of 48.2bn = 1.205bn; 6.53 / 46.995 = 13.8951 %;
    // 10,000 × 6.53 × 1.205 / (48.2 × 46.995) = 34.7377 bps.
    let (st, r) = send(
        &member,
        Method::POST,
        "/api/calculator",
        Some(json!({"optimisation": {"by": "percent_of_rwas", "value": 2.5}, "netInterestMarginPct": 2, "projectionYears": 5})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{r}");
    close(&r["cet1Capital"], 6.53e9, 0.0);
    close(&r["summary"]["optimisedRwas"], 1.205e9, 1e-3);
    close(&r["summary"]["newTotalRwas"], 46.995e9, 1e-3);
    close(&r["scenarioA"]["optimisedRatioPct"], 13.895_095_222_9, 1e-9);
    close(&r["summary"]["optimisationBps"], 34.737_738_057_2, 1e-9);
    // Freed 1.205bn × 13.5477 % = 163.25m; unlocked 158,352,500; fee 4,750,575. Margin 2 %:
    // year 1 0.02U − 0.03U = −1,583,525; year 2 0.99U × 0.02 = 3,135,379.50, cumulative
    // 1,551,854.50; break-even 1 + 0.01 / 0.0198 = 1.50505.
    close(&r["scenarioB"]["capitalFreed"], 163.25e6, 1e-6);
    close(&r["scenarioB"]["unlockedCapital"], 158_352_500.0, 1e-6);
    close(&r["scenarioB"]["firstYearNetIncome"], -1_583_525.0, 1e-6);
    close(
        &r["scenarioB"]["years"][1]["cumulativeValue"],
        1_551_854.5,
        1e-6,
    );
    close(&r["scenarioB"]["breakEvenYear"], 1.505_050_505, 1e-9);
    assert_eq!(r["scenarioB"]["years"].as_array().unwrap().len(), 5);

    // Computing changes nothing: a viewer of Bank A may; a user of Bank B gets 404 for Bank A.
    let viewer = app.login(VIEWER).await;
    let (st, c) = viewer.json("/api/calculator").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(c["canSave"], false);
    let (st, _) = send(
        &viewer,
        Method::POST,
        "/api/calculator",
        Some(json!({"optimisation": {"by": "bps", "value": 20}})),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let other = app.login(USER_B).await;
    let (st, e) = other
        .json(&format!("/api/calculator?client_id={bank_a}"))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert!(!e.to_string().contains("Bank A"));
    let (st, _) = send(
        &other,
        Method::POST,
        &format!("/api/calculator?client_id={bank_a}"),
        Some(json!({"optimisation": {"by": "bps", "value": 20}})),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    // Bank B's own figures: 3.045 / 21.75 = 14 %.
    let (st, c) = other.json("/api/calculator").await;
    assert_eq!(st, StatusCode::OK);
    close(&c["cet1RatioPct"], 14.0, 1e-9);
}

#[tokio::test]
async fn a_client_without_official_figures_is_told_so() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let bank_b = client_id(&app, "Bank B").await;
    sqlx::query(
        "UPDATE clients SET official_cet1_capital = NULL, official_total_rwas = NULL WHERE id = $1",
    )
    .bind(&bank_b)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    let member = app.login(USER_B).await;
    let (st, c) = member.json("/api/calculator").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(c["cet1Capital"], Value::Null);
    assert_eq!(c["cet1RatioPct"], Value::Null);
    assert_eq!(c["rwasPerBp"], Value::Null);
    assert_eq!(
        c["figuresProblem"],
        "The official CET1 capital and total RWAs of Bank B are not set. An administrator enters them on the client's record."
    );
    let (st, e) = send(
        &member,
        Method::POST,
        "/api/calculator",
        Some(json!({"optimisation": {"by": "bps", "value": 20}})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(e["code"], "figures_not_set");
    // No scenario can be saved on figures that are not there, and the portfolio says why.
    let (st, e) = send(
        &member,
        Method::POST,
        "/api/calculator/scenarios",
        Some(json!({"name": "Plan", "optimisation": {"by": "bps", "value": 20}})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(e["code"], "figures_not_set");
    let (st, list) = member.json("/api/calculator/scenarios").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(list["portfolio"]["result"], Value::Null);
    assert!(
        list["portfolio"]["error"]
            .as_str()
            .unwrap()
            .contains("are not set")
    );
}

#[tokio::test]
async fn saved_scenarios_are_compared_with_the_real_portfolio_and_kept_to_the_client() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let bank_a = client_id(&app, "Bank A").await;
    let member = app.login(USER_A).await;
    let admin = app.login(ADMIN).await;
    let mut ws = Ws::connect(&member).await;
    let topic = format!("client:{bank_a}:scenarios");
    let answers = ws.subscribe(&[&topic]).await;
    assert_eq!(answers[0]["type"], "subscribed", "{answers:?}");

    // A member saves a scenario on the client's official figures: 20 bps need
    // ΔR = 20 × 48.2e9² / (1e4 × 6.53e9 + 20 × 48.2e9) = 701,207,292.04.
    let (st, first) = send(
        &member,
        Method::POST,
        "/api/calculator/scenarios",
        Some(json!({"name": "  Plan 20 bps ", "optimisation": {"by": "bps", "value": 20}, "projectionYears": 12})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{first}");
    assert_eq!(first["name"], "Plan 20 bps");
    assert_eq!(first["clientId"], bank_a.as_str());
    assert_eq!(first["createdByName"], "Ana García");
    assert_eq!(first["projectionYears"], 12);
    close(&first["result"]["cet1Capital"], 6.53e9, 0.0);
    close(
        &first["result"]["summary"]["optimisedRwas"],
        701_207_292.044,
        1e-2,
    );
    close(&first["result"]["summary"]["optimisationBps"], 20.0, 1e-9);
    let first_id = first["id"].as_str().unwrap().to_string();
    let frame = ws
        .next_json(Duration::from_secs(5))
        .await
        .expect("scenario.saved");
    assert_eq!(frame["type"], "scenario.saved");
    assert_eq!(frame["topic"], topic.as_str());
    assert_eq!(frame["data"]["id"], first_id.as_str());

    // An administrator saves one for Bank A with the figures of the admin calculator.
    let (st, second) = send(
        &admin,
        Method::POST,
        "/api/calculator/scenarios",
        Some(json!({"clientId": bank_a, "name": "K01 figures", "cet1Capital": 13e9, "totalRwas": 100e9,
            "optimisation": {"by": "rwas", "value": 1e9}, "currency": "usd"})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{second}");
    close(
        &second["result"]["summary"]["optimisationBps"],
        13.131_313_131_3,
        1e-9,
    );
    assert_eq!(second["currency"], "usd");

    // The same name again is refused; so are a blank name, half the figures and bad inputs.
    for (payload, status, code) in [
        (
            json!({"name": "Plan 20 bps", "optimisation": {"by": "bps", "value": 5}}),
            StatusCode::CONFLICT,
            "scenario_name_taken",
        ),
        (
            json!({"name": "   ", "optimisation": {"by": "bps", "value": 5}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
        ),
        (
            json!({"name": "Half", "cet1Capital": 1e9, "optimisation": {"by": "bps", "value": 5}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
        ),
        (
            json!({"name": "Too long", "optimisation": {"by": "bps", "value": 5}, "projectionYears": 2}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_calculation",
        ),
    ] {
        let (st, e) = send(
            &member,
            Method::POST,
            "/api/calculator/scenarios",
            Some(payload),
        )
        .await;
        assert_eq!(st, status, "{e}");
        assert_eq!(e["code"], code, "{e}");
    }

    // The comparison: newest first, each computed now, beside the real portfolio: Bank A's
    // official figures with its files' savings, 221.6m:
    // 10,000 × 6.53 × 0.2216 / (48.2 × 47.9784) = 6.2573 bps; 6.53 / 47.9784 = 13.6103 %.
    let (st, list) = member.json("/api/calculator/scenarios").await;
    assert_eq!(st, StatusCode::OK, "{list}");
    assert_eq!(list["canSave"], true);
    let names: Vec<&str> = list["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["K01 figures", "Plan 20 bps"]);
    let p = &list["portfolio"];
    close(&p["savingsRwas"], 221.6e6, 1e-6);
    close(&p["savingsBps"], 6.257_345_542_7, 1e-6);
    close(&p["result"]["summary"]["optimisedRwas"], 221.6e6, 1e-6);
    close(
        &p["result"]["summary"]["optimisationBps"],
        6.257_345_542_7,
        1e-9,
    );
    close(
        &p["result"]["scenarioA"]["optimisedRatioPct"],
        13.610_291_297_75,
        1e-9,
    );
    assert_eq!(p["error"], Value::Null);

    // A viewer reads but may not save or delete; a user of Bank B sees none of it.
    let viewer = app.login(VIEWER).await;
    let (st, list) = viewer.json("/api/calculator/scenarios").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(list["canSave"], false);
    assert_eq!(list["scenarios"].as_array().unwrap().len(), 2);
    let (st, e) = send(
        &viewer,
        Method::POST,
        "/api/calculator/scenarios",
        Some(json!({"name": "Viewer plan", "optimisation": {"by": "bps", "value": 5}})),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN, "{e}");
    let (st, _) = send(
        &viewer,
        Method::DELETE,
        &format!("/api/calculator/scenarios/{first_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let other = app.login(USER_B).await;
    let (st, e) = other
        .json(&format!("/api/calculator/scenarios?client_id={bank_a}"))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert!(!e.to_string().contains("Bank A"));
    let (st, _) = send(
        &other,
        Method::POST,
        "/api/calculator/scenarios",
        Some(json!({"clientId": bank_a, "name": "Intruder", "optimisation": {"by": "bps", "value": 5}})),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, e) = send(
        &other,
        Method::DELETE,
        &format!("/api/calculator/scenarios/{first_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(e["message"], "Scenario not found");
    let (_, own) = other.json("/api/calculator/scenarios").await;
    assert_eq!(own["scenarios"].as_array().unwrap().len(), 0);

    // The member deletes it; the screen hears of it; a second delete finds nothing.
    let (st, _) = send(
        &member,
        Method::DELETE,
        &format!("/api/calculator/scenarios/{first_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let mut deleted = None;
    while let Some(frame) = ws.next_json(Duration::from_secs(5)).await {
        if frame["type"] == "scenario.deleted" {
            deleted = Some(frame);
            break;
        }
    }
    let deleted = deleted.expect("scenario.deleted");
    assert_eq!(deleted["data"]["id"], first_id.as_str());
    let (st, _) = send(
        &member,
        Method::DELETE,
        &format!("/api/calculator/scenarios/{first_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (_, list) = admin
        .json(&format!("/api/calculator/scenarios?client_id={bank_a}"))
        .await;
    assert_eq!(list["scenarios"].as_array().unwrap().len(), 1);

    // The audit trail names both changes.
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_events WHERE entity_type = 'calculator_scenario'",
    )
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!(n, 3);
}

#[tokio::test]
async fn the_support_contact_comes_from_the_configuration() {
    let app = TestApp::spawn_with(|c| {
        c.run_concurrency = 0;
        c.support_email = "help@bank-support.example".into();
    })
    .await;
    let (st, _) = app.client().await.json("/api/support").await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, s) = app.login(VIEWER).await.json("/api/support").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        s,
        json!({"email": "help@bank-support.example", "responseHours": 24})
    );
}
