//! The task board: scoping to the caller's client, the kanban rules and messages, viewers, and
//! concurrent moves that must converge to one order with nothing lost or duplicated.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::*;
use crate::realtime::{Ws, client_id};

async fn board(s: &Session) -> Value {
    let (st, b) = s.json("/api/board").await;
    assert_eq!(st, StatusCode::OK, "{b}");
    b
}

async fn create_task(s: &Session, column: &str, title: &str) -> Value {
    let (st, t) = body(
        s.post(
            "/api/board/tasks",
            json!({"column_id": column, "title": title}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{t}");
    t
}

/// Column name -> task titles, in board order.
fn layout(b: &Value) -> Vec<(String, Vec<String>)> {
    b["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let titles = b["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| t["column_id"] == c["id"])
                .map(|t| t["title"].as_str().unwrap().to_string())
                .collect();
            (c["name"].as_str().unwrap().to_string(), titles)
        })
        .collect()
}

#[tokio::test]
async fn a_new_board_gets_default_columns_and_is_scoped_to_the_users_client() {
    let app = TestApp::spawn().await;
    // A viewer's read comes first and writes nothing: no topic sequence, no column created.
    let viewer = app.login(VIEWER).await;
    assert_eq!(board(&viewer).await["columns"].as_array().unwrap().len(), 4);
    let (topics,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM realtime_topics")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(topics, 0, "a read took a topic sequence number");
    let a = app.login(USER_A).await;
    let b = app.login(USER_B).await;
    let ba = board(&a).await;
    assert_eq!(ba["client_name"], "Bank A");
    let names: Vec<&str> = ba["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["To Do", "In Progress", "Review", "Done"]);
    let cats: Vec<&str> = ba["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        cats,
        [
            "Analysis",
            "Data Quality",
            "Documentation",
            "Regulatory",
            "Reporting"
        ]
    );
    // Reading again creates nothing more.
    assert_eq!(board(&a).await["columns"].as_array().unwrap().len(), 4);

    let bb = board(&b).await;
    assert_eq!(bb["client_name"], "Bank B");
    assert_ne!(bb["client_id"], ba["client_id"]);
    // Bank B's user cannot reach Bank A's board, nor its rows through its own board.
    let bank_a = client_id(&app, "Bank A").await;
    let (st, _) = b.json(&format!("/api/board?client_id={bank_a}")).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let task = create_task(&a, ba["columns"][0]["id"].as_str().unwrap(), "Bank A only").await;
    let tid = task["id"].as_str().unwrap();
    let (st, _) = send(
        &b,
        reqwest::Method::PUT,
        &format!("/api/board/tasks/{tid}"),
        Some(json!({"title": "Hijack"})),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, _) = send(
        &b,
        reqwest::Method::DELETE,
        &format!("/api/board/tasks/{tid}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, _) = body(
        b.post(
            &format!("/api/board/tasks/{tid}/move"),
            json!({"column_id": bb["columns"][0]["id"]}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, _) = body(
        b.post(
            &format!("/api/board/tasks?client_id={bank_a}"),
            json!({"column_id": ba["columns"][0]["id"], "title": "x"}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert!(board(&b).await["tasks"].as_array().unwrap().is_empty());
    // An admin may open any client's board.
    let admin = app.login(ADMIN).await;
    let bank_b = client_id(&app, "Bank B").await;
    let (st, v) = admin.json(&format!("/api/board?client_id={bank_b}")).await;
    assert_eq!(
        (st, v["client_name"].as_str()),
        (StatusCode::OK, Some("Bank B"))
    );
}

#[tokio::test]
async fn tasks_are_created_edited_and_deleted_with_the_spec_messages() {
    let app = TestApp::spawn().await;
    let a = app.login(USER_A).await;
    let b0 = board(&a).await;
    let col = b0["columns"][0]["id"].as_str().unwrap().to_string();
    let (st, e) = body(
        a.post(
            "/api/board/tasks",
            json!({"column_id": col, "title": "   "}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, e["message"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("Title is required"))
    );
    let (st, e) = body(
        a.post(
            "/api/board/tasks",
            json!({"column_id": col, "title": "T", "priority": "urgent"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, e["message"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("Priority must be low, medium or high")
        )
    );
    let (st, _) = body(
        a.post(
            "/api/board/tasks",
            json!({"column_id": "nope", "title": "T"}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        board(&a).await["tasks"].as_array().unwrap().is_empty(),
        "bad input changed nothing"
    );

    let (st, t) = body(
        a.post(
            "/api/board/tasks",
            json!({"column_id": col, "title": " Review PSE matches ", "description": "Sample 20 rows", "category_id": "default-regulatory", "priority": "high", "due_date": "2026-12-31"}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::CREATED);
    assert_eq!(
        (
            t["title"].as_str(),
            t["category_name"].as_str(),
            t["priority"].as_str(),
            t["due_date"].as_str()
        ),
        (
            Some("Review PSE matches"),
            Some("Regulatory"),
            Some("high"),
            Some("2026-12-31")
        )
    );
    let me: Value = a.json("/api/auth/me").await.1;
    assert_eq!(t["created_by"], me["id"]);
    let id = t["id"].as_str().unwrap();

    let (st, t2) = send(&a, reqwest::Method::PUT, &format!("/api/board/tasks/{id}"), Some(json!({"title": "Review PSE matches (2)", "priority": null, "category_id": null, "due_date": null}))).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        (
            t2["priority"].clone(),
            t2["category_id"].clone(),
            t2["description"].as_str()
        ),
        (Value::Null, Value::Null, Some(""))
    );
    let (st, e) = send(
        &a,
        reqwest::Method::PUT,
        &format!("/api/board/tasks/{id}"),
        Some(json!({"title": ""})),
    )
    .await;
    assert_eq!(
        (st, e["message"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("Title is required"))
    );
    assert_eq!(
        board(&a).await["tasks"][0]["title"],
        "Review PSE matches (2)"
    );

    let (st, _) = send(
        &a,
        reqwest::Method::DELETE,
        &format!("/api/board/tasks/{id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, e) = send(
        &a,
        reqwest::Method::DELETE,
        &format!("/api/board/tasks/{id}"),
        None,
    )
    .await;
    assert_eq!(
        (st, e["message"].as_str()),
        (StatusCode::NOT_FOUND, Some("Task not found"))
    );
}

#[tokio::test]
async fn a_viewer_sees_the_board_and_its_changes_but_cannot_change_anything() {
    let app = TestApp::spawn().await;
    let bank_a = client_id(&app, "Bank A").await;
    let a = app.login(USER_A).await;
    let viewer = app.login(VIEWER).await;
    let b = board(&viewer).await;
    let col = b["columns"][0]["id"].as_str().unwrap().to_string();
    let col2 = b["columns"][1]["id"].as_str().unwrap().to_string();
    let task = create_task(&a, &col, "Visible to the viewer").await;
    let tid = task["id"].as_str().unwrap();
    let mut ws = Ws::connect(&viewer).await;
    assert_eq!(
        ws.subscribe(&[&format!("client:{bank_a}:board")]).await[0]["type"],
        "subscribed"
    );

    for (st, _) in [
        body(
            viewer
                .post("/api/board/tasks", json!({"column_id": col, "title": "No"}))
                .await,
        )
        .await,
        body(
            viewer
                .post(
                    &format!("/api/board/tasks/{tid}/move"),
                    json!({"column_id": col2}),
                )
                .await,
        )
        .await,
        send(
            &viewer,
            reqwest::Method::PUT,
            &format!("/api/board/tasks/{tid}"),
            Some(json!({"title": "No"})),
        )
        .await,
        send(
            &viewer,
            reqwest::Method::DELETE,
            &format!("/api/board/tasks/{tid}"),
            None,
        )
        .await,
        body(
            viewer
                .post("/api/board/columns", json!({"name": "No"}))
                .await,
        )
        .await,
        send(
            &viewer,
            reqwest::Method::PATCH,
            &format!("/api/board/columns/{col}"),
            Some(json!({"name": "No"})),
        )
        .await,
        body(
            viewer
                .post(&format!("/api/board/columns/{col}/move"), json!({}))
                .await,
        )
        .await,
        body(
            viewer
                .post("/api/board/categories", json!({"name": "No"}))
                .await,
        )
        .await,
    ] {
        assert_eq!(st, StatusCode::FORBIDDEN);
    }
    let l = layout(&board(&a).await);
    assert_eq!(
        (l[0].1.as_slice(), l[1].1.len(), l.len()),
        (["Visible to the viewer".to_string()].as_slice(), 0, 4),
        "nothing changed"
    );
    // The user's move shows live on the viewer's socket.
    let (st, _) = body(
        a.post(
            &format!("/api/board/tasks/{tid}/move"),
            json!({"column_id": col2}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let ev = ws.next_json(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        (
            ev["type"].as_str(),
            ev["data"]["tasks"][0]["column_id"].as_str()
        ),
        (Some("task.moved"), Some(col2.as_str()))
    );
}

#[tokio::test]
async fn categories_default_ones_cannot_be_deleted() {
    let app = TestApp::spawn().await;
    let a = app.login(USER_A).await;
    let b = app.login(USER_B).await;
    let col = board(&a).await["columns"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, e) = send(
        &a,
        reqwest::Method::DELETE,
        "/api/board/categories/default-analysis",
        None,
    )
    .await;
    assert_eq!(
        (st, e["code"].as_str(), e["message"].as_str()),
        (
            StatusCode::CONFLICT,
            Some("cannot_delete"),
            Some("Default categories cannot be deleted")
        )
    );
    let (st, e) = body(a.post("/api/board/categories", json!({"name": "  "})).await).await;
    assert_eq!(
        (st, e["message"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("Category name is required")
        )
    );
    let (st, cat) = body(
        a.post("/api/board/categories", json!({"name": "Model risk"}))
            .await,
    )
    .await;
    assert_eq!(
        (st, cat["is_default"].as_bool()),
        (StatusCode::CREATED, Some(false))
    );
    let cid = cat["id"].as_str().unwrap();
    // Another client does not see it and cannot use or delete it.
    assert!(
        !board(&b).await["categories"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == cat["id"])
    );
    let bcol = board(&b).await["columns"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, _) = body(
        b.post(
            "/api/board/tasks",
            json!({"column_id": bcol, "title": "x", "category_id": cid}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    let (st, _) = send(
        &b,
        reqwest::Method::DELETE,
        &format!("/api/board/categories/{cid}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    // Deleting it leaves its tasks without a category.
    let (_, t) = body(
        a.post(
            "/api/board/tasks",
            json!({"column_id": col, "title": "Tagged", "category_id": cid}),
        )
        .await,
    )
    .await;
    assert_eq!(t["category_name"], "Model risk");
    let (st, _) = send(
        &a,
        reqwest::Method::DELETE,
        &format!("/api/board/categories/{cid}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let after = board(&a).await;
    assert_eq!(after["tasks"][0]["category_id"], Value::Null);
    assert!(
        !after["categories"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == cat["id"])
    );
}

#[tokio::test]
async fn columns_are_added_renamed_and_reordered() {
    let app = TestApp::spawn().await;
    let a = app.login(USER_A).await;
    board(&a).await;
    let (st, e) = body(a.post("/api/board/columns", json!({"name": " "})).await).await;
    assert_eq!(
        (st, e["message"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("Column name is required")
        )
    );
    let (st, c) = body(
        a.post("/api/board/columns", json!({"name": " Blocked "}))
            .await,
    )
    .await;
    assert_eq!(
        (st, c["name"].as_str()),
        (StatusCode::CREATED, Some("Blocked"))
    );
    let cid = c["id"].as_str().unwrap().to_string();
    let (st, c) = send(
        &a,
        reqwest::Method::PATCH,
        &format!("/api/board/columns/{cid}"),
        Some(json!({"name": "On hold"})),
    )
    .await;
    assert_eq!((st, c["name"].as_str()), (StatusCode::OK, Some("On hold")));
    // Drag the new last column to the front, then between the 2nd and 3rd.
    let first = board(&a).await["columns"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, _) = body(
        a.post(
            &format!("/api/board/columns/{cid}/move"),
            json!({"before_id": first}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let names = |b: &Value| {
        b["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&board(&a).await),
        ["On hold", "To Do", "In Progress", "Review", "Done"]
    );
    let b = board(&a).await;
    let (after, before) = (b["columns"][2]["id"].clone(), b["columns"][3]["id"].clone());
    body(
        a.post(
            &format!("/api/board/columns/{cid}/move"),
            json!({"after_id": after, "before_id": before}),
        )
        .await,
    )
    .await;
    assert_eq!(
        names(&board(&a).await),
        ["To Do", "In Progress", "On hold", "Review", "Done"]
    );
}

#[tokio::test]
async fn moves_follow_the_kanban_rules() {
    let app = TestApp::spawn().await;
    let a = app.login(USER_A).await;
    let b = board(&a).await;
    let todo = b["columns"][0]["id"].as_str().unwrap().to_string();
    let doing = b["columns"][1]["id"].as_str().unwrap().to_string();
    let done = b["columns"][3]["id"].as_str().unwrap().to_string();
    let mut ids = Vec::new();
    for t in ["A", "B", "C"] {
        ids.push(
            create_task(&a, &todo, t).await["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    create_task(&a, &doing, "D").await;
    // Reorder within a column: C before A.
    body(
        a.post(
            &format!("/api/board/tasks/{}/move", ids[2]),
            json!({"column_id": todo, "before_id": ids[0]}),
        )
        .await,
    )
    .await;
    // Dropped on another column: to its end.
    let (st, moved) = body(
        a.post(
            &format!("/api/board/tasks/{}/move", ids[1]),
            json!({"column_id": doing}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        moved.as_array().unwrap().len(),
        1,
        "a move rewrites one row"
    );
    let l = layout(&board(&a).await);
    assert_eq!(l[0].1, ["C", "A"]);
    assert_eq!(l[1].1, ["D", "B"]);
    // Reaching Done completes the task; leaving it clears that.
    let (_, moved) = body(
        a.post(
            &format!("/api/board/tasks/{}/move", ids[0]),
            json!({"column_id": done}),
        )
        .await,
    )
    .await;
    assert!(moved[0]["completed_at"].is_string());
    let (_, moved) = body(
        a.post(
            &format!("/api/board/tasks/{}/move", ids[0]),
            json!({"column_id": todo}),
        )
        .await,
    )
    .await;
    assert!(moved[0]["completed_at"].is_null());
    let (st, e) = body(
        a.post(
            &format!("/api/board/tasks/{}/move", ids[0]),
            json!({"column_id": "missing"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, e["message"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("Column not found"))
    );
}

/// A board replica kept up to date from events alone, as the web app does.
#[derive(Default, Debug)]
struct Replica {
    seq: i64,
    columns: HashMap<String, (String, String)>,
    tasks: HashMap<String, (String, String)>,
}

impl Replica {
    fn from_board(b: &Value) -> Replica {
        let mut r = Replica {
            seq: b["seq"].as_i64().unwrap(),
            ..Default::default()
        };
        r.apply(b);
        r
    }
    fn apply(&mut self, data: &Value) {
        for c in data["columns"].as_array().into_iter().flatten() {
            self.columns.insert(
                c["id"].as_str().unwrap().into(),
                (
                    c["position"].as_str().unwrap().into(),
                    c["name"].as_str().unwrap().into(),
                ),
            );
        }
        for t in data["tasks"].as_array().into_iter().flatten() {
            self.tasks.insert(
                t["id"].as_str().unwrap().into(),
                (
                    t["column_id"].as_str().unwrap().into(),
                    t["position"].as_str().unwrap().into(),
                ),
            );
        }
        for id in data["deleted_task_ids"].as_array().into_iter().flatten() {
            self.tasks.remove(id.as_str().unwrap());
        }
    }
    /// Column id -> task ids in order (byte order of keys, ties by id).
    fn order(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for (id, (col, pos)) in &self.tasks {
            out.entry(col.clone())
                .or_default()
                .push((pos.clone(), id.clone()));
        }
        out.into_iter()
            .map(|(c, mut v)| {
                v.sort();
                (c, v.into_iter().map(|(_, id)| id).collect())
            })
            .collect()
    }
}

fn board_order(b: &Value) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in b["tasks"].as_array().unwrap() {
        out.entry(t["column_id"].as_str().unwrap().into())
            .or_default()
            .push(t["id"].as_str().unwrap().into());
    }
    out
}

#[tokio::test]
async fn concurrent_moves_by_several_people_converge_with_nothing_lost() {
    let app = TestApp::spawn().await;
    let bank_a = client_id(&app, "Bank A").await;
    let people = [
        app.login(USER_A).await,
        app.login(APPROVER).await,
        app.login(ADMIN).await,
        app.login(USER_A).await,
    ];
    let b0 = board(&people[0]).await;
    let cols: Vec<String> = b0["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    let mut all_ids = Vec::new();
    for i in 0..12 {
        all_ids.push(
            create_task(&people[0], &cols[i % 2], &format!("T{i}")).await["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let start = board(&people[1]).await;
    let mut replica = Replica::from_board(&start);
    let mut ws = Ws::connect(&people[2]).await;
    let ans = ws.subscribe(&[&format!("client:{bank_a}:board")]).await;
    assert_eq!(ans[0]["seq"].as_i64(), Some(replica.seq));

    // Each person makes 15 moves from a view of the board taken once at the start (so most moves
    // name neighbours that others have moved meanwhile), all at the same time.
    let mut handles = Vec::new();
    for (p, s) in people.iter().enumerate() {
        let s = s.clone();
        let cols = cols.clone();
        let view = start.clone();
        handles.push(tokio::spawn(async move {
            let tasks = view["tasks"].as_array().unwrap().clone();
            let mut rng = (p as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = move || {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng as usize
            };
            let mut ok = 0;
            for _ in 0..15 {
                let t = &tasks[next() % tasks.len()];
                let col = &cols[next() % cols.len()];
                let in_col: Vec<&Value> = tasks.iter().filter(|x| x["column_id"].as_str() == Some(col.as_str()) && x["id"] != t["id"]).collect();
                let body = if in_col.is_empty() || next() % 3 == 0 {
                    json!({"column_id": col})
                } else {
                    let i = next() % in_col.len();
                    json!({"column_id": col, "after_id": in_col[i]["id"], "before_id": in_col.get(i + 1).map(|x| x["id"].clone())})
                };
                let r = s.post(&format!("/api/board/tasks/{}/move", t["id"].as_str().unwrap()), body).await;
                assert_eq!(r.status(), StatusCode::OK);
                ok += 1;
            }
            ok
        }));
    }
    let mut total = 0;
    for h in handles {
        total += h.await.unwrap();
    }
    assert_eq!(total, 60);

    // Every reader gets the same order; every task is there exactly once.
    let finals: Vec<Value> = futures_util::future::join_all(people.iter().map(board)).await;
    let order = board_order(&finals[0]);
    for f in &finals[1..] {
        assert_eq!(board_order(f), order);
    }
    let mut seen: Vec<String> = order.values().flatten().cloned().collect();
    seen.sort();
    all_ids.sort();
    assert_eq!(seen, all_ids, "no task lost or duplicated");
    let final_seq = finals[0]["seq"].as_i64().unwrap();
    assert_eq!(final_seq, replica.seq + 60, "one event per move");

    // A socket that applied the 60 events, in sequence and without gaps, has the same board.
    let mut events: BTreeMap<i64, Value> = BTreeMap::new();
    while events.len() < 60 {
        let ev = ws
            .next_json(Duration::from_secs(10))
            .await
            .expect("all move events delivered");
        events.insert(ev["seq"].as_i64().unwrap(), ev);
    }
    for (seq, ev) in events {
        assert_eq!(seq, replica.seq + 1, "no gap");
        replica.apply(&ev["data"]);
        replica.seq = seq;
    }
    assert_eq!(replica.order(), order);
}

#[tokio::test]
async fn the_client_list_is_every_client_for_admins_and_their_own_for_others() {
    let app = TestApp::spawn().await;
    let names = |v: Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    let (st, all) = app.login(ADMIN).await.json("/api/clients").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(names(all), ["Bank A", "Bank B"]);
    let (_, mine) = app.login(USER_B).await.json("/api/clients").await;
    assert_eq!(names(mine), ["Bank B"]);
    let (_, viewer) = app.login(VIEWER).await.json("/api/clients").await;
    assert_eq!(names(viewer), ["Bank A"]);
    let (st, _) = app.client().await.json("/api/clients").await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
}
