//! The admin and client dashboards through the API, against figures worked out by hand from a
//! fixture that replaces the demo savings. With c the current month:
//!
//! | client | month | RWAs | bps | levers (RWAs) |
//! |---|---|---|---|---|
//! | Bank A | c−2 | 100m | 10 | PSE 60m, RGLA 40m |
//! | Bank A | c−1 | 150m | 15 | PSE 90m, RGLA 40m, Corporates 20m |
//! | Bank A | c | 180m | 18 | PSE 100m, RGLA 40m, Corporates 40m |
//! | Bank B | c−1 | 50m | 5 | Institutions 50m (no row in c: it stands) |
//!
//! Savings of all clients at the end of c−2: 100m; c−1: 200m; now: 230m (23 bps).

use std::time::Duration;

use chrono::Datelike;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;
use crate::realtime::{Ws, client_id};

const M: f64 = 1_000_000.0;

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[track_caller]
fn close(v: &Value, expected: f64) {
    let got = num(v);
    assert!(
        (got - expected).abs() <= 1e-6 * expected.abs().max(1.0),
        "{got} != {expected}"
    );
}

/// The month `back` months before the current one.
fn month_back(back: i64) -> (i64, i64) {
    let t = chrono::Utc::now().date_naive();
    let i = t.year() as i64 * 12 + t.month0() as i64 - back;
    (i.div_euclid(12), i.rem_euclid(12) + 1)
}

async fn write_fixture(app: &TestApp) -> (String, String) {
    let pool = &app.state.db.pool;
    sqlx::query("DELETE FROM savings_history")
        .execute(pool)
        .await
        .unwrap();
    let a = client_id(app, "Bank A").await;
    let b = client_id(app, "Bank B").await;
    let rows: [(&str, i64, f64, f64, Value); 4] = [
        (
            &a,
            2,
            100.0,
            10.0,
            json!({"lever-pse": 60e6, "lever-rgla": 40e6}),
        ),
        (
            &a,
            1,
            150.0,
            15.0,
            json!({"lever-pse": 90e6, "lever-rgla": 40e6, "lever-corporates": 20e6}),
        ),
        (
            &a,
            0,
            180.0,
            18.0,
            json!({"lever-pse": 100e6, "lever-rgla": 40e6, "lever-corporates": 40e6}),
        ),
        (&b, 1, 50.0, 5.0, json!({"lever-institutions": 50e6})),
    ];
    let mut conn = pool.acquire().await.unwrap();
    // Written newest first: each row's change follows whatever is already on record.
    for (client, back, rwas, bps, levers) in rows.iter().rev() {
        let (year, month) = month_back(*back);
        server::db::clients::upsert_savings(
            &mut conn,
            &server::db::clients::SavingsRow {
                client_id: client.to_string(),
                year,
                month,
                total_rwas: rwas * M,
                total_bps: *bps,
                monthly_growth_rate: 0.0,
                lever_breakdown: levers.to_string(),
            },
        )
        .await
        .unwrap();
    }
    for (client, rwas, bps) in [(&a, 180.0, 18.0), (&b, 50.0, 5.0)] {
        server::db::clients::set_savings(&mut *conn, client, rwas * M, bps)
            .await
            .unwrap();
    }
    // Bank B has been a client since 2024; Bank A was added this month.
    sqlx::query("UPDATE clients SET created_at = $1 WHERE id = $2")
        .bind("2024-01-01T00:00:00.000000Z")
        .bind(&b)
        .execute(&mut *conn)
        .await
        .unwrap();
    (a, b)
}

#[tokio::test]
async fn the_metric_cards_compare_with_the_previous_period() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    write_fixture(&app).await;
    let admin = app.login(ADMIN).await;

    // All Time: 230m now against 200m at the end of last month, +15 %.
    let (st, m) = admin.json("/api/admin/dashboard/metrics").await;
    assert_eq!(st, StatusCode::OK, "{m}");
    assert_eq!(m["period"], "all");
    close(&m["capital"]["value"], 230.0 * M);
    close(&m["capital"]["previous"], 200.0 * M);
    close(&m["capital"]["changePct"], 15.0);
    close(&m["bps"]["value"], 23.0);
    close(&m["bps"]["previous"], 20.0);
    close(&m["bps"]["changePct"], 15.0);
    // Levers with savings: PSE, RGLA, Corporates, Institutions now and at the end of last month.
    close(&m["levers"]["value"], 4.0);
    close(&m["levers"]["previous"], 4.0);
    close(&m["levers"]["changePct"], 0.0);
    // Two clients, one of them before this month: +100 %.
    close(&m["clients"]["value"], 2.0);
    close(&m["clients"]["previous"], 1.0);
    close(&m["clients"]["changePct"], 100.0);

    // This Month: 30m gained (230 − 200) against last month's 100m (200 − 100): −70 %.
    let (_, m) = admin
        .json("/api/admin/dashboard/metrics?period=month")
        .await;
    close(&m["capital"]["value"], 30.0 * M);
    close(&m["capital"]["previous"], 100.0 * M);
    close(&m["capital"]["changePct"], -70.0);
    close(&m["bps"]["value"], 3.0);
    close(&m["bps"]["previous"], 10.0);

    // A period with nothing before it has no change.
    let (st, m) = admin.json("/api/admin/dashboard/metrics?period=year").await;
    assert_eq!(st, StatusCode::OK);
    assert!(m["capital"]["previous"].is_number());

    // An unknown period is refused with the JSON error body.
    let (st, e) = admin
        .json("/api/admin/dashboard/metrics?period=decade")
        .await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["message"].is_string());

    // Not for client users.
    let user = app.login(USER_A).await;
    let (st, _) = user.json("/api/admin/dashboard/metrics").await;
    assert_eq!(st, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn the_evolution_and_overview_charts_follow_the_history() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    write_fixture(&app).await;
    let admin = app.login(ADMIN).await;
    let (year, month) = month_back(0);
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];

    // Monthly: January to this month; this month ends at 230m, 30m gained in it.
    let (st, e) = admin
        .json("/api/admin/dashboard/evolution?view=monthly")
        .await;
    assert_eq!(st, StatusCode::OK, "{e}");
    assert_eq!(e["year"], year);
    assert_eq!(e["years"], json!([year, year - 1, year - 2]));
    assert_eq!(e["hasData"], true);
    let points = e["points"].as_array().unwrap();
    assert_eq!(points.len() as i64, month);
    let last = points.last().unwrap();
    assert_eq!(last["label"], MONTHS[(month - 1) as usize]);
    close(&last["cumulative"], 230.0 * M);
    close(&last["change"], 30.0 * M);
    // A month without rows of its own keeps what stood: Bank B's 50m in this month.
    if month >= 2 {
        close(&points[(month - 2) as usize]["cumulative"], 200.0 * M);
    }

    // Yearly: three points ending with this year at 230m.
    let (_, e) = admin
        .json("/api/admin/dashboard/evolution?view=yearly")
        .await;
    let points = e["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    assert_eq!(points[2]["label"], year.to_string());
    close(&points[2]["cumulative"], 230.0 * M);

    // A year without history: no data (the screen says 'No monthly data available for …').
    let (_, e) = admin
        .json(&format!(
            "/api/admin/dashboard/evolution?view=monthly&year={}",
            year - 5
        ))
        .await;
    assert_eq!(e["hasData"], false);
    assert!(
        e["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| num(&p["cumulative"]) == 0.0)
    );

    // Weekly: four weeks from Monday, from processed files (the demo has none).
    let (_, e) = admin
        .json("/api/admin/dashboard/evolution?view=weekly")
        .await;
    assert_eq!(e["points"].as_array().unwrap().len(), 4);
    assert_eq!(e["hasData"], false);

    // All time: PSE 100m, Institutions 50m, Corporates 40m, RGLA 40m; Assets 190m (82.61 %),
    // CRMT 40m (17.39 %).
    let (st, o) = admin
        .json("/api/admin/dashboard/overview?window=allTime")
        .await;
    assert_eq!(st, StatusCode::OK, "{o}");
    let levers: Vec<(&str, f64)> = o["levers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["id"].as_str().unwrap(), num(&l["value"])))
        .collect();
    assert_eq!(
        levers,
        [
            ("lever-pse", 100.0 * M),
            ("lever-institutions", 50.0 * M),
            ("lever-corporates", 40.0 * M),
            ("lever-rgla", 40.0 * M)
        ]
    );
    let cats = o["categories"].as_array().unwrap();
    assert_eq!(cats[0]["name"], "Assets");
    close(&cats[0]["totalValue"], 190.0 * M);
    close(&cats[0]["percentage"], 190.0 / 230.0 * 100.0);
    assert_eq!(cats[1]["name"], "CRMT");
    close(&cats[1]["percentage"], 40.0 / 230.0 * 100.0);

    // The last 30 days, from the last month end on or before 30 days ago (c−1 or c−2).
    let (_, o) = admin.json("/api/admin/dashboard/overview").await;
    assert_eq!(o["window"], "last30Days");
    let since = o["since"].as_str().unwrap().to_string();
    let (py, pm) = month_back(1);
    let levers: Vec<(&str, f64)> = o["levers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["id"].as_str().unwrap(), num(&l["value"])))
        .collect();
    if since.starts_with(&format!("{py:04}-{pm:02}")) {
        // Against c−1: Corporates +20m, PSE +10m.
        assert_eq!(
            levers,
            [("lever-corporates", 20.0 * M), ("lever-pse", 10.0 * M)]
        );
    } else {
        // Against c−2: Institutions +50m, Corporates +40m, PSE +40m (RGLA unchanged).
        assert_eq!(
            levers,
            [
                ("lever-institutions", 50.0 * M),
                ("lever-corporates", 40.0 * M),
                ("lever-pse", 40.0 * M)
            ]
        );
    }
}

#[tokio::test]
async fn client_and_lever_performance_tables() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let (a, b) = write_fixture(&app).await;
    let admin = app.login(ADMIN).await;

    // Lever Performance: now against the end of last month.
    let (st, l) = admin.json("/api/admin/dashboard/levers").await;
    assert_eq!(st, StatusCode::OK, "{l}");
    let by_id = |id: &str| {
        l.as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == id)
            .unwrap_or_else(|| panic!("no {id}"))
            .clone()
    };
    let pse = by_id("lever-pse");
    close(&pse["value"], 100.0 * M);
    close(&pse["previousValue"], 90.0 * M);
    close(&pse["changePct"], 100.0 / 9.0);
    assert_eq!(pse["impact"], "high");
    assert_eq!(pse["category"], "Assets");
    let corp = by_id("lever-corporates");
    close(&corp["changePct"], 100.0);
    assert_eq!(corp["category"], "CRMT");
    let mdb = by_id("lever-mdb");
    close(&mdb["value"], 0.0);
    assert!(mdb.get("changePct").is_none());
    assert_eq!(mdb["impact"], "low");
    assert_eq!(l.as_array().unwrap()[0]["id"], "lever-pse");

    // Client Performance, searched by name (any case); `%` is a character, not a wildcard.
    let (st, rows) = admin
        .json("/api/admin/dashboard/clients?search=bank%20a")
        .await;
    assert_eq!(st, StatusCode::OK, "{rows}");
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["clientId"], a.as_str());
    assert_eq!(r["client"], "Bank A");
    close(&r["cet1Capital"], 6_530_000_000.0);
    close(&r["cet1Ratio"], 6.53 / 48.2);
    close(&r["optimizedValue"], 180.0 * M);
    close(&r["bpsValue"], 18.0);
    assert_eq!(r["levers"], 3);
    let (members,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM client_users WHERE client_id = $1")
            .bind(&a)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    assert_eq!(r["memberCount"], members);
    let (_, all) = admin.json("/api/admin/dashboard/clients?search=BANK").await;
    assert_eq!(all.as_array().unwrap().len(), 2);
    let (_, none) = admin.json("/api/admin/dashboard/clients?search=%25").await;
    assert_eq!(none.as_array().unwrap().len(), 0);

    // One client's levers; a client without history has none; an unknown one is not found.
    let (st, lv) = admin
        .json(&format!("/api/admin/dashboard/clients/{b}/levers"))
        .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        lv,
        json!([{"id": "lever-institutions", "name": "Institutions", "category": "Assets", "value": 50e6}])
    );
    let mut conn = app.state.db.pool.acquire().await.unwrap();
    let fresh = server::db::clients::insert(
        &mut *conn,
        &server::db::clients::NewClient {
            name: "Bank C",
            description: "No savings yet",
            from_date: None,
            created_by: None,
            official_cet1_capital: None,
            official_total_rwas: None,
            official_cet1_ratio: None,
        },
    )
    .await
    .unwrap();
    let (_, lv) = admin
        .json(&format!("/api/admin/dashboard/clients/{fresh}/levers"))
        .await;
    assert_eq!(lv, json!([]));
    let (st, _) = admin
        .json("/api/admin/dashboard/clients/no-such-client/levers")
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);

    // The export holds the same figures.
    let r = admin
        .get("/api/admin/dashboard/export?format=csv&period=all")
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let text = r.text().await.unwrap();
    assert!(
        text.contains("Metrics,Total Capital Optimized (EUR),All Time,230000000,200000000,15\n"),
        "{text}"
    );
    assert!(
        text.contains("Clients,Bank A,6530000000,13.55,180000000,18,3\n"),
        "{text}"
    );
    assert!(
        text.contains("Levers,Public Sector Entities (PSE),Assets,100000000,90000000,11.11,high\n"),
        "{text}"
    );
    let r = admin.get("/api/admin/dashboard/export").await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains(".xlsx")
    );
    assert_eq!(&r.bytes().await.unwrap()[..2], b"PK");
    // The PDF: the same figures, laid out by the server.
    let r = admin
        .get("/api/admin/dashboard/export?format=pdf&period=all")
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/pdf");
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains(".pdf")
    );
    let text = pdf_text(&r.bytes().await.unwrap());
    for expected in [
        "Capital Optimization Dashboard",
        "Clients",
        "Public Sector Entities (PSE)",
        "100.000.000,00",
        "Bank A",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from {text}");
    }
    let r = admin.get("/api/admin/dashboard/export?format=doc").await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn the_client_dashboard_shows_the_clients_own_savings() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let (a, _) = write_fixture(&app).await;

    let user = app.login(USER_A).await;
    let (st, d) = user.json("/api/dashboard").await;
    assert_eq!(st, StatusCode::OK, "{d}");
    assert_eq!(d["clientId"], a.as_str());
    assert_eq!(d["clientName"], "Bank A");
    close(&d["totalRwas"], 180.0 * M);
    close(&d["totalBps"], 18.0);
    close(&d["previousMonthRwas"], 150.0 * M);
    close(&d["changePct"], 20.0);
    let history = d["history"].as_array().unwrap();
    assert_eq!(history.len(), 3);
    close(&history[2]["totalRwas"], 180.0 * M);
    let levers = d["levers"].as_array().unwrap();
    assert_eq!(levers.len(), 6, "every lever of the dictionary");
    assert_eq!(levers[0]["id"], "lever-pse");
    close(&levers[0]["previousValue"], 90.0 * M);
    close(&levers[0]["changePct"], 100.0 / 9.0);
    assert_eq!(levers[0]["impact"], "high");
    // RGLA: 40m both months, 0 %; Institutions is Bank B's, not Bank A's.
    let rgla = levers.iter().find(|l| l["id"] == "lever-rgla").unwrap();
    close(&rgla["changePct"], 0.0);
    let inst = levers
        .iter()
        .find(|l| l["id"] == "lever-institutions")
        .unwrap();
    close(&inst["value"], 0.0);

    // Viewers read it; another client's user does not see Bank A (404).
    let viewer = app.login(VIEWER).await;
    let (st, _) = viewer.json(&format!("/api/dashboard?client_id={a}")).await;
    assert_eq!(st, StatusCode::OK);
    let other = app.login(USER_B).await;
    let (st, e) = other.json(&format!("/api/dashboard?client_id={a}")).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert!(!e.to_string().contains("Bank A"));
    let (st, d) = other.json("/api/dashboard").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(d["clientName"], "Bank B");
    close(&d["changePct"], 0.0);
    let r = other
        .get(&format!("/api/dashboard/export?client_id={a}"))
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);

    // The export: capital_optimization_{client}_{date}.
    let r = user.get("/api/dashboard/export?format=csv").await;
    assert_eq!(r.status(), StatusCode::OK);
    let disposition = r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    let today = chrono::Utc::now().date_naive();
    assert!(
        disposition.contains(&format!("capital_optimization_Bank_A_{today}.csv")),
        "{disposition}"
    );
    let text = r.text().await.unwrap();
    assert!(
        text.contains("Summary,Bank A,180000000,18,150000000,20,"),
        "{text}"
    );
    let r = user.get("/api/dashboard/export").await;
    assert_eq!(&r.bytes().await.unwrap()[..2], b"PK");
    // The PDF: 'Capital Optimization Dashboard', A4 portrait, the client's own figures.
    let r = user.get("/api/dashboard/export?format=pdf").await;
    assert_eq!(r.status(), StatusCode::OK);
    let disposition = r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        disposition.contains(&format!("capital_optimization_Bank_A_{today}.pdf")),
        "{disposition}"
    );
    let pdf = r.bytes().await.unwrap();
    let text = pdf_text(&pdf);
    for expected in [
        "Capital Optimization Dashboard",
        "Bank A",
        "180.000.000,00",
        "Monthly evolution",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from {text}");
    }
    assert!(!text.contains("Bank B"), "{text}");
    for (w, h) in pdf_pages(&pdf) {
        assert!(
            (w - 595.5).abs() < 1.0 && (h - 842.25).abs() < 1.0,
            "A4 portrait: {w} x {h}"
        );
    }
    let r = other
        .get(&format!("/api/dashboard/export?client_id={a}&format=pdf"))
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = user.get("/api/dashboard/export?format=doc").await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

/// A savings change made through the API reaches an open admin dashboard subscription and the
/// client's savings topic, and the figures read afterwards include it.
#[tokio::test]
async fn a_savings_change_reaches_the_dashboards_live() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let (a, _) = write_fixture(&app).await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    // A processed file of Bank A with no savings yet.
    let file = uuid::Uuid::new_v4().to_string();
    sqlx::query(
        "INSERT INTO client_files (id, client_id, name, original_name, file_path, file_type, content_type,
           size_bytes, uploaded_at, lever_id, processed, processing_status, object_key)
         VALUES ($1, $2, 'pse.csv', 'pse.csv', $3, 'csv', 'text/csv', 10, $4, 'lever-pse', 1, 'processed', $3)",
    )
    .bind(&file)
    .bind(&a)
    .bind(format!("clients/{a}/input/{}.csv", uuid::Uuid::new_v4()))
    .bind(server::db::now())
    .execute(&app.state.db.pool)
    .await
    .unwrap();

    let mut admin_ws = Ws::connect(&admin).await;
    assert_eq!(
        admin_ws.subscribe(&["admin:dashboard"]).await[0]["type"],
        "subscribed"
    );
    let mut user_ws = Ws::connect(&user).await;
    let topic = format!("client:{a}:savings");
    assert_eq!(
        user_ws.subscribe(&[topic.as_str()]).await[0]["type"],
        "subscribed"
    );
    // A client user may not watch the admin dashboard.
    let mut denied = Ws::connect(&user).await;
    assert_eq!(
        denied.subscribe(&["admin:dashboard"]).await[0]["type"],
        "denied"
    );

    let (st, r) = send(
        &admin,
        Method::PATCH,
        &format!("/api/admin/files/{file}"),
        Some(json!({"savingsRwas": 260e6})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{r}");
    for ws in [&mut admin_ws, &mut user_ws] {
        let ev = loop {
            let v = ws
                .next_json(Duration::from_secs(5))
                .await
                .expect("an event");
            if v["type"] == "savings.changed" {
                break v;
            }
        };
        assert_eq!(ev["data"]["clientId"], a.as_str());
        close(&ev["data"]["cet1SavingsRwas"], 260.0 * M);
    }
    // Bank A's savings are now its one processed file's 260m: 260m + Bank B's 50m.
    let (_, m) = admin.json("/api/admin/dashboard/metrics").await;
    close(&m["capital"]["value"], 310.0 * M);
    let (_, d) = user.json("/api/dashboard").await;
    close(&d["totalRwas"], 260.0 * M);
    close(&d["levers"][0]["value"], 260.0 * M);
}
