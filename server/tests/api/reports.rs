//! Reports REST API (list, create, rename, status, delete, folders, draft limit) and the SQL
//! document store behind the collaborative editor.

use bytes::Bytes;
use collab::DocStore;
use reqwest::{Response, StatusCode};
use serde_json::{Value, json};
use server::docs::SqlDocStore;
use yrs::updates::decoder::Decode;
use yrs::{Doc, Map, ReadTxn, StateVector, Transact};

use crate::helpers::*;

trait MoreVerbs {
    async fn patch(&self, path: &str, body: Value) -> Response;
    async fn delete(&self, path: &str) -> Response;
}

impl MoreVerbs for Session {
    async fn patch(&self, path: &str, body: Value) -> Response {
        let csrf = self.cookie("capopt_csrf").unwrap_or_default();
        self.http
            .patch(format!("{}{}", self.base, path))
            .header("x-csrf-token", csrf)
            .json(&body)
            .send()
            .await
            .unwrap()
    }
    async fn delete(&self, path: &str) -> Response {
        let csrf = self.cookie("capopt_csrf").unwrap_or_default();
        self.http
            .delete(format!("{}{}", self.base, path))
            .header("x-csrf-token", csrf)
            .send()
            .await
            .unwrap()
    }
}

async fn create(s: &Session, name: &str) -> Value {
    let (status, body) = body(s.post("/api/reports", json!({"name": name})).await).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

async fn count_reports(app: &TestApp) -> i64 {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM reports")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    n
}

#[tokio::test]
async fn create_list_rename_status_delete() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;

    let (s, list) = user.json("/api/reports").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list, json!([]));

    let report = create(&user, "  Q3 Pillar 3 disclosure  ").await;
    let id = report["id"].as_str().unwrap().to_string();
    assert_eq!(report["name"], "Q3 Pillar 3 disclosure");
    assert_eq!(report["status"], "draft");
    assert_eq!(report["section_count"], 1);
    assert!(report["template_id"].is_null());

    // The initial content was created on the server with the report.
    let store = SqlDocStore::new(&app.state.db);
    let stored = store
        .load(&id)
        .await
        .unwrap()
        .expect("document created with the report");
    assert_eq!(stored.last_seq(), 1);
    let sections = collab::report::read_sections(&stored).unwrap();
    assert_eq!(
        sections
            .iter()
            .map(|s| s.title.as_str())
            .collect::<Vec<_>>(),
        ["Introduction"]
    );

    let (s, list) = user.json("/api/reports").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["section_count"], 1);

    let (s, detail) = user.json(&format!("/api/reports/{id}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(detail["can_edit"], true);
    assert_eq!(detail["report"]["name"], "Q3 Pillar 3 disclosure");

    // Rename; an empty name is refused and changes nothing.
    let (s, b) = body(
        user.patch(&format!("/api/reports/{id}"), json!({"name": "   "}))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{b}");
    assert_eq!(b["message"], "Report name is required");
    let (s, b) = body(
        user.patch(&format!("/api/reports/{id}"), json!({"name": "Renamed"}))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["name"], "Renamed");
    assert!(b["last_saved_at"].is_string());
    assert_eq!(b["last_edited_by_name"], "Ana García");

    // Status.
    let (s, b) = body(
        user.patch(
            &format!("/api/reports/{id}"),
            json!({"status": "published"}),
        )
        .await,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "published");
    assert_eq!(b["name"], "Renamed");
    let (s, _) = body(
        user.patch(&format!("/api/reports/{id}"), json!({"status": "archived"}))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    let (_, detail) = user.json(&format!("/api/reports/{id}")).await;
    assert_eq!(detail["report"]["status"], "published");

    // Delete removes the report and its document.
    assert_eq!(
        user.delete(&format!("/api/reports/{id}")).await.status(),
        StatusCode::NO_CONTENT
    );
    let (s, b) = user.json(&format!("/api/reports/{id}")).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(b["message"], "Report not found");
    assert!(store.load(&id).await.unwrap().is_none());
    assert_eq!(
        user.delete(&format!("/api/reports/{id}")).await.status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn bad_input_is_refused_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    for bad in [
        json!({"name": ""}),
        json!({"name": "  "}),
        json!({"name": "x".repeat(201)}),
        json!({}),
    ] {
        let (s, _) = body(user.post("/api/reports", bad.clone()).await).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    }
    let (s, b) = body(
        user.post(
            "/api/reports",
            json!({"name": "T", "template_id": "no-such-template"}),
        )
        .await,
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(b["message"], "Failed to fetch template");
    let (s, b) = body(
        user.post(
            "/api/reports",
            json!({"name": "F", "folder_id": "no-such-folder"}),
        )
        .await,
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(b["message"], "Folder not found");
    assert_eq!(count_reports(&app).await, 0);
    let (_, limit) = user.json("/api/reports/draft-limit").await;
    assert_eq!(
        limit["draft_count"], 0,
        "refused creations use no draft slot"
    );
}

#[tokio::test]
async fn viewers_read_only_and_other_clients_see_nothing() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let id = create(&user, "Bank A report").await["id"]
        .as_str()
        .unwrap()
        .to_string();

    let viewer = app.login(VIEWER).await;
    let (s, list) = viewer.json("/api/reports").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        list.as_array().unwrap().len(),
        1,
        "viewers read their client's reports"
    );
    let (s, detail) = viewer.json(&format!("/api/reports/{id}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(detail["can_edit"], false);
    assert_eq!(
        viewer
            .post("/api/reports", json!({"name": "V"}))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        viewer
            .patch(&format!("/api/reports/{id}"), json!({"name": "V"}))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        viewer.delete(&format!("/api/reports/{id}")).await.status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        viewer
            .post("/api/reports/folders", json!({"name": "V"}))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );

    let other = app.login(USER_B).await;
    let (s, list) = other.json("/api/reports").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list, json!([]));
    assert_eq!(
        other.get(&format!("/api/reports/{id}")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        other
            .patch(&format!("/api/reports/{id}"), json!({"name": "Mine"}))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        other.delete(&format!("/api/reports/{id}")).await.status(),
        StatusCode::NOT_FOUND
    );
    let a_client = user.json("/api/reports").await.1[0]["client_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        other
            .get(&format!("/api/reports?client_id={a_client}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        other
            .post("/api/reports", json!({"name": "X", "client_id": a_client}))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );

    let (_, detail) = user.json(&format!("/api/reports/{id}")).await;
    assert_eq!(detail["report"]["name"], "Bank A report", "nothing changed");

    let anon = app.client().await;
    assert_eq!(
        anon.get("/api/reports").await.status(),
        StatusCode::UNAUTHORIZED
    );

    // Admins reach any client's reports.
    let admin = app.login(ADMIN).await;
    let (s, detail) = admin.json(&format!("/api/reports/{id}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(detail["can_edit"], true);
}

#[tokio::test]
async fn monthly_draft_limit() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    create(&user, "First").await;
    let (_, limit) = user.json("/api/reports/draft-limit").await;
    assert_eq!(limit["draft_count"], 1);
    assert_eq!(limit["limit"], 100);
    let month = limit["month_year"].as_str().unwrap().to_string();

    // Bring the counter to 99: one more draft is allowed, the next is refused.
    sqlx::query("UPDATE report_draft_counts SET draft_count = 99 WHERE month_year = $1")
        .bind(&month)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    create(&user, "Hundredth").await;
    let (s, b) = body(
        user.post("/api/reports", json!({"name": "One too many"}))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(b["code"], "draft_limit_reached");
    assert_eq!(
        b["message"],
        "Monthly draft limit reached (100 drafts per month)"
    );
    assert_eq!(
        count_reports(&app).await,
        2,
        "the refused report was not created"
    );
    let (_, limit) = user.json("/api/reports/draft-limit").await;
    assert_eq!(limit["draft_count"], 100);

    // Deleting a report does not give the slot back; another user of the company has their own.
    let id = user.json("/api/reports").await.1[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        user.delete(&format!("/api/reports/{id}")).await.status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        user.post("/api/reports", json!({"name": "Still limited"}))
            .await
            .status(),
        StatusCode::CONFLICT
    );
    let approver = app.login(APPROVER).await;
    create(&approver, "Approver draft").await;
}

#[tokio::test]
async fn folders() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let (s, b) = body(
        user.post("/api/reports/folders", json!({"name": "  "}))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(b["message"], "Folder name is required");
    let (s, folder) = body(
        user.post("/api/reports/folders", json!({"name": "Quarterly"}))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    let fid = folder["id"].as_str().unwrap().to_string();
    let (s, sub) = body(
        user.post(
            "/api/reports/folders",
            json!({"name": "Q3", "parent_folder_id": fid}),
        )
        .await,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(sub["parent_folder_id"], fid.as_str());
    let (_, list) = user.json("/api/reports/folders").await;
    assert_eq!(
        list.as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["Q3", "Quarterly"]
    );

    let (s, r) = body(
        user.post("/api/reports", json!({"name": "Filed", "folder_id": fid}))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(r["folder_id"], fid.as_str());
    let rid = r["id"].as_str().unwrap().to_string();

    // Another bank cannot see, use or delete the folder.
    let other = app.login(USER_B).await;
    assert_eq!(other.json("/api/reports/folders").await.1, json!([]));
    assert_eq!(
        other
            .post("/api/reports", json!({"name": "X", "folder_id": fid}))
            .await
            .status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        other
            .delete(&format!("/api/reports/folders/{fid}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );

    // Move out and back in; deleting the folder keeps the report, outside any folder.
    let (_, moved) = body(
        user.patch(&format!("/api/reports/{rid}"), json!({"folder_id": ""}))
            .await,
    )
    .await;
    assert!(moved["folder_id"].is_null());
    let (_, moved) = body(
        user.patch(&format!("/api/reports/{rid}"), json!({"folder_id": fid}))
            .await,
    )
    .await;
    assert_eq!(moved["folder_id"], fid.as_str());
    assert_eq!(
        user.delete(&format!("/api/reports/folders/{fid}"))
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        user.json("/api/reports/folders").await.1,
        json!([]),
        "sub-folders go with their parent"
    );
    let (_, detail) = user.json(&format!("/api/reports/{rid}")).await;
    assert!(detail["report"]["folder_id"].is_null());
}

/// A v1 update that adds a section to a report document.
fn add_section_update(stored: &collab::StoredDoc, id: &str, title: &str) -> Bytes {
    let doc = collab::doc_from_stored(stored).unwrap();
    let before = doc.transact().state_vector();
    let sections = doc.get_or_insert_map(collab::report::SECTIONS_MAP);
    {
        let mut txn = doc.transact_mut();
        let entry: yrs::MapPrelim = [
            ("title", yrs::In::Any(yrs::Any::from(title))),
            ("order", yrs::In::Any(yrs::Any::from("a5"))),
        ]
        .into_iter()
        .collect();
        sections.insert(&mut txn, id, entry);
    }
    Bytes::from(doc.transact().encode_state_as_update_v1(&before))
}

#[tokio::test]
async fn section_counts_follow_the_document() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let id = create(&user, "Counted").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let store = SqlDocStore::new(&app.state.db);
    let stored = store.load(&id).await.unwrap().unwrap();
    store
        .append(
            &id,
            &[add_section_update(&stored, "s2", "Capital Adequacy")],
        )
        .await
        .unwrap();
    let (_, list) = user.json("/api/reports").await;
    assert_eq!(list[0]["section_count"], 2);
    let (_, detail) = user.json(&format!("/api/reports/{id}")).await;
    assert_eq!(detail["report"]["section_count"], 2);
    // Reading wrote nothing: the cached count moves with the document's next snapshot.
    let cached = || async {
        let (n,): (i64,) = sqlx::query_as("SELECT section_count FROM reports WHERE id = $1")
            .bind(&id)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        n
    };
    assert_eq!(cached().await, 1);
    let stored = store.load(&id).await.unwrap().unwrap();
    let doc = collab::doc_from_stored(&stored).unwrap();
    let snapshot = doc
        .transact()
        .encode_state_as_update_v1(&yrs::StateVector::default());
    assert!(
        store
            .compact(&id, &snapshot, stored.last_seq())
            .await
            .unwrap()
    );
    assert_eq!(cached().await, 2);
}

fn all_bytes() -> Bytes {
    Bytes::from((0..=255u8).chain((0..=255u8).rev()).collect::<Vec<u8>>())
}

#[tokio::test]
async fn doc_store_round_trips_binary_and_keeps_its_contract() {
    let app = TestApp::spawn().await;
    let store = SqlDocStore::new(&app.state.db);
    let store: &dyn DocStore = &store;
    assert!(store.load("d").await.unwrap().is_none());
    assert!(matches!(
        store.append("d", &[Bytes::from_static(b"x")]).await,
        Err(collab::StoreError::NotFound)
    ));

    store.create("d", all_bytes()).await.unwrap();
    assert!(matches!(
        store.create("d", Bytes::from_static(b"other")).await,
        Err(collab::StoreError::AlreadyExists)
    ));
    let got = store.load("d").await.unwrap().unwrap();
    assert_eq!(
        got.updates,
        vec![(1, all_bytes())],
        "binary survives the round trip untouched"
    );

    let batch: Vec<Bytes> = (0..5u8).map(|i| Bytes::from(vec![i, 0, 255, i])).collect();
    assert_eq!(store.append("d", &batch).await.unwrap(), 6);
    assert_eq!(
        store
            .append("d", &[Bytes::from_static(b"\x00")])
            .await
            .unwrap(),
        7
    );
    let got = store.load("d").await.unwrap().unwrap();
    assert_eq!(
        got.updates.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        (1..=7).collect::<Vec<_>>()
    );
    assert_eq!(got.updates[3].1, batch[2]);

    // Compaction: atomic, never backwards, never beyond the log.
    assert!(
        !store
            .compact("d", Bytes::from_static(b"S"), 8)
            .await
            .unwrap(),
        "beyond the log"
    );
    assert!(store.compact("d", all_bytes(), 4).await.unwrap());
    assert!(
        !store
            .compact("d", Bytes::from_static(b"old"), 4)
            .await
            .unwrap()
    );
    assert!(
        !store
            .compact("d", Bytes::from_static(b"old"), 2)
            .await
            .unwrap()
    );
    let got = store.load("d").await.unwrap().unwrap();
    let snap = got.snapshot.as_ref().unwrap();
    assert_eq!((snap.upto_seq, &snap.update_v1), (4, &all_bytes()));
    assert_eq!(
        got.updates.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        vec![5, 6, 7],
        "entries inside a partly compacted batch are skipped"
    );
    assert_eq!(got.last_seq(), 7);
    assert!(
        store
            .compact("d", Bytes::from_static(b"S7"), 7)
            .await
            .unwrap()
    );
    let got = store.load("d").await.unwrap().unwrap();
    assert!(got.updates.is_empty());
    assert_eq!(got.snapshot.unwrap().upto_seq, 7);
    assert_eq!(
        store
            .append("d", &[Bytes::from_static(b"y")])
            .await
            .unwrap(),
        8
    );
    assert!(matches!(
        store.compact("nope", Bytes::new(), 1).await,
        Err(collab::StoreError::NotFound)
    ));
}

#[tokio::test]
async fn concurrent_appends_get_gap_free_ordered_sequence_numbers() {
    let app = TestApp::spawn().await;
    let store = SqlDocStore::new(&app.state.db);
    store.create("c", b"\x00\x00").await.unwrap();
    let mut tasks = Vec::new();
    for w in 0..6u8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut seqs = Vec::new();
            for i in 0..15u8 {
                let batch = vec![Bytes::from(vec![w, i, 0]), Bytes::from(vec![w, i, 1])];
                seqs.push(store.append("c", &batch).await.unwrap());
            }
            seqs
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        let seqs = t.await.unwrap();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "one writer's appends are ordered"
        );
        all.extend(seqs);
    }
    all.sort();
    assert_eq!(
        all,
        (1..=90).map(|k| 1 + 2 * k).collect::<Vec<u64>>(),
        "every batch got its own consecutive pair"
    );
    let got = store.load("c").await.unwrap().unwrap();
    assert_eq!(got.last_seq(), 181);
    assert!(
        got.updates.windows(2).all(|w| w[0].0 < w[1].0),
        "entries ascend"
    );
    let sizes = store.sizes("c").await.unwrap().unwrap();
    assert_eq!(
        (sizes.log_rows, sizes.log_entries, sizes.last_seq),
        (91, 181, 181)
    );
}

#[tokio::test]
async fn a_real_document_survives_compaction() {
    let app = TestApp::spawn().await;
    let store = SqlDocStore::new(&app.state.db);
    let initial = collab::report::initial_update(&[collab::report::SectionInit {
        nodes: Vec::new(),
        id: "a".into(),
        title: "Intro".into(),
        paragraphs: Vec::new(),
    }]);
    store.create("r", &initial).await.unwrap();
    let stored = store.load("r").await.unwrap().unwrap();
    store
        .append("r", &[add_section_update(&stored, "b", "Second")])
        .await
        .unwrap();
    let stored = store.load("r").await.unwrap().unwrap();
    let doc = collab::doc_from_stored(&stored).unwrap();
    let snapshot = doc
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    assert!(
        store
            .compact("r", &snapshot, stored.last_seq())
            .await
            .unwrap()
    );
    let after = store.load("r").await.unwrap().unwrap();
    assert!(after.updates.is_empty());
    let titles: Vec<String> = collab::report::read_sections(&after)
        .unwrap()
        .into_iter()
        .map(|s| s.title)
        .collect();
    assert_eq!(titles, ["Intro", "Second"]);
    // The reloaded document equals the one compacted.
    let reloaded = collab::doc_from_stored(&after).unwrap();
    let a = doc
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    let b = reloaded
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    let (da, db) = (Doc::new(), Doc::new());
    da.transact_mut()
        .apply_update(yrs::Update::decode_v1(&a).unwrap())
        .unwrap();
    db.transact_mut()
        .apply_update(yrs::Update::decode_v1(&b).unwrap())
        .unwrap();
    assert_eq!(da.transact().state_vector(), db.transact().state_vector());
}

/// A minimal y-websocket peer: a yrs document kept in sync over `/api/collab/{id}`.
mod ypeer {
    use std::collections::HashMap;
    use std::sync::Arc;

    use bytes::Bytes;
    use collab::protocol::{self, Inbound};
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::protocol::Message;
    use yrs::sync::AwarenessUpdate;
    use yrs::sync::awareness::AwarenessUpdateEntry;
    use yrs::updates::decoder::Decode;
    use yrs::{Doc, GetString, ReadTxn, Text, Transact};

    use crate::helpers::Session;

    pub(crate) type Ws = tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >;

    /// The session's cookies as a `Cookie` header value.
    pub(crate) fn cookie_header(s: &Session) -> String {
        use reqwest::cookie::CookieStore;
        let url: reqwest::Url = format!("{}/", s.base).parse().unwrap();
        s.jar
            .cookies(&url)
            .map(|h| h.to_str().unwrap().to_string())
            .unwrap_or_default()
    }

    /// Opens the document socket (optionally with a session's cookies and an Origin).
    pub(crate) async fn open(
        base: &str,
        report_id: &str,
        session: Option<&Session>,
        origin: Option<&str>,
    ) -> Result<Ws, tokio_tungstenite::tungstenite::Error> {
        let url = format!("{}/api/collab/{report_id}", base.replacen("http", "ws", 1));
        let mut req = url.into_client_request().unwrap();
        if let Some(s) = session {
            req.headers_mut()
                .insert("cookie", cookie_header(s).parse().unwrap());
        }
        if let Some(o) = origin {
            req.headers_mut().insert("origin", o.parse().unwrap());
        }
        tokio_tungstenite::connect_async(req)
            .await
            .map(|(ws, _)| ws)
    }

    /// Waits for the close frame and returns its code.
    pub(crate) async fn close_code(ws: &mut Ws) -> Option<u16> {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        while let Ok(Some(msg)) = tokio::time::timeout_at(deadline, ws.next()).await {
            match msg {
                Ok(Message::Close(Some(f))) => return Some(f.code.into()),
                Ok(Message::Close(None)) | Err(_) => return None,
                _ => {}
            }
        }
        None
    }

    /// A peer: its document, its socket, and what it saw.
    pub(crate) struct Peer {
        pub doc: Doc,
        pub ws: Ws,
        pub denied: usize,
        pub awareness: HashMap<yrs::ClientID, Arc<str>>,
    }

    impl Peer {
        /// Connects and sends SyncStep1.
        pub(crate) async fn connect(base: &str, report_id: &str, session: &Session) -> Peer {
            let mut ws = open(base, report_id, Some(session), None)
                .await
                .expect("socket opens");
            let doc = Doc::new();
            let sv = doc.transact().state_vector();
            ws.send(Message::Binary(protocol::sync_step1(&sv)))
                .await
                .unwrap();
            Peer {
                doc,
                ws,
                denied: 0,
                awareness: HashMap::new(),
            }
        }

        fn handle(&mut self, frame: &[u8]) -> Vec<Bytes> {
            let mut replies = Vec::new();
            if frame.first() == Some(&2) {
                self.denied += 1;
                return replies;
            }
            for msg in protocol::decode_frame(frame).expect("server frames decode") {
                match msg {
                    Inbound::SyncStep1(sv) => {
                        replies.push(protocol::sync_step2(
                            &self.doc.transact().encode_state_as_update_v1(&sv),
                        ));
                    }
                    Inbound::SyncStep2(u) | Inbound::Update(u) => {
                        self.doc
                            .transact_mut()
                            .apply_update(yrs::Update::decode_v1(&u).unwrap())
                            .unwrap();
                    }
                    Inbound::Awareness(a) => {
                        for (id, e) in a.clients {
                            self.awareness.insert(id, e.json.clone());
                        }
                    }
                    _ => {}
                }
            }
            replies
        }

        /// Reads frames until `done` holds (or panics after 10 s).
        pub(crate) async fn until(&mut self, what: &str, mut done: impl FnMut(&Peer) -> bool) {
            let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
            while !done(self) {
                let msg = tokio::time::timeout_at(deadline, self.ws.next())
                    .await
                    .unwrap_or_else(|_| panic!("timed out waiting for {what}"));
                match msg {
                    Some(Ok(Message::Binary(b))) => {
                        for r in self.handle(&b) {
                            self.ws.send(Message::Binary(r)).await.unwrap();
                        }
                    }
                    Some(Ok(Message::Close(f))) => panic!("closed while waiting for {what}: {f:?}"),
                    Some(Ok(_)) => {}
                    other => panic!("socket ended while waiting for {what}: {other:?}"),
                }
            }
        }

        /// Reads whatever arrives for `ms` milliseconds.
        pub(crate) async fn drain(&mut self, ms: u64) {
            let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(ms);
            while let Ok(Some(Ok(msg))) = tokio::time::timeout_at(deadline, self.ws.next()).await {
                if let Message::Binary(b) = msg {
                    for r in self.handle(&b) {
                        self.ws.send(Message::Binary(r)).await.unwrap();
                    }
                }
            }
        }

        /// Appends text to the root text `name` and sends the update.
        pub(crate) async fn type_text(&mut self, name: &str, s: &str) {
            let text = self.doc.get_or_insert_text(name);
            let before = self.doc.transact().state_vector();
            {
                let mut txn = self.doc.transact_mut();
                let len = text.len(&txn);
                text.insert(&mut txn, len, s);
            }
            let update = self.doc.transact().encode_state_as_update_v1(&before);
            self.ws
                .send(Message::Binary(protocol::update(&update)))
                .await
                .unwrap();
        }

        /// The content of root text `name`.
        pub(crate) fn text(&self, name: &str) -> String {
            let text = self.doc.get_or_insert_text(name);
            text.get_string(&self.doc.transact())
        }

        /// Sends an awareness state for this peer's client id.
        pub(crate) async fn announce(&mut self, json: &str) {
            let mut clients = HashMap::new();
            clients.insert(
                self.doc.client_id(),
                AwarenessUpdateEntry {
                    clock: 1,
                    json: json.into(),
                },
            );
            let frame = protocol::awareness(&AwarenessUpdate { clients });
            self.ws.send(Message::Binary(frame)).await.unwrap();
        }
    }
}

/// Text of root text `name` in the stored document, once the store has it.
async fn stored_text(store: &SqlDocStore, id: &str, name: &str, want: &str) -> String {
    use yrs::{GetString, Transact};
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let stored = store.load(id).await.unwrap().unwrap();
        let doc = collab::doc_from_stored(&stored).unwrap();
        let text = doc.get_or_insert_text(name);
        let got = text.get_string(&doc.transact());
        if got == want || std::time::Instant::now() > deadline {
            return got;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn collab_socket_refuses_strangers_with_close_codes() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let id = create(&user, "Private").await["id"]
        .as_str()
        .unwrap()
        .to_string();

    let mut ws = ypeer::open(&app.base, &id, None, None).await.unwrap();
    assert_eq!(
        ypeer::close_code(&mut ws).await,
        Some(collab::close::UNAUTHENTICATED)
    );

    let other = app.login(USER_B).await;
    let mut ws = ypeer::open(&app.base, &id, Some(&other), None)
        .await
        .unwrap();
    assert_eq!(
        ypeer::close_code(&mut ws).await,
        Some(collab::close::FORBIDDEN)
    );

    let mut ws = ypeer::open(&app.base, "no-such-report", Some(&user), None)
        .await
        .unwrap();
    assert_eq!(
        ypeer::close_code(&mut ws).await,
        Some(collab::close::NOT_FOUND)
    );

    // A cross-site page cannot open the socket with the user's cookies.
    let err = ypeer::open(&app.base, &id, Some(&user), Some("https://evil.example"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, tokio_tungstenite::tungstenite::Error::Http(ref r) if r.status() == 403),
        "{err:?}"
    );

    // A bad frame closes with the protocol's code.
    let mut ws = ypeer::open(&app.base, &id, Some(&user), None)
        .await
        .unwrap();
    use futures_util::SinkExt;
    ws.send(tokio_tungstenite::tungstenite::Message::Binary(
        Bytes::from_static(&[0, 9, 9, 9]),
    ))
    .await
    .unwrap();
    assert_eq!(
        ypeer::close_code(&mut ws).await,
        Some(collab::close::INVALID_MESSAGE)
    );
}

#[tokio::test]
async fn editors_converge_viewers_cannot_edit_and_edits_are_stored() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let id = create(&user, "Shared").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let admin = app.login(ADMIN).await;
    let viewer = app.login(VIEWER).await;

    let mut a = ypeer::Peer::connect(&app.base, &id, &user).await;
    let mut b = ypeer::Peer::connect(&app.base, &id, &admin).await;
    let mut v = ypeer::Peer::connect(&app.base, &id, &viewer).await;
    // Everyone receives the server-built initial content.
    for p in [&mut a, &mut b, &mut v] {
        p.until("initial sections", |p| {
            collab::report::sections_of(&p.doc).len() == 1
        })
        .await;
    }

    a.type_text("probe", "Hello ").await;
    b.type_text("probe", "world").await;
    a.until("b's text", |p| p.text("probe").len() == 11).await;
    b.until("a's text", |p| p.text("probe").len() == 11).await;
    v.until("both texts", |p| p.text("probe").len() == 11).await;
    assert_eq!(a.text("probe"), b.text("probe"));
    assert_eq!(a.text("probe"), v.text("probe"));
    let agreed = a.text("probe");

    // The viewer's edit is refused with permission denied and reaches nobody.
    v.type_text("probe", " HACKED").await;
    v.until("permission denied", |p| p.denied > 0).await;
    a.drain(300).await;
    assert_eq!(a.text("probe"), agreed);

    // Presence is relayed, the viewer's included.
    v.announce(r##"{"user":{"name":"Victor","color":"#123456"}}"##)
        .await;
    let vid = v.doc.client_id();
    a.until("viewer presence", |p| p.awareness.contains_key(&vid))
        .await;

    let store = SqlDocStore::new(&app.state.db);
    assert_eq!(
        stored_text(&store, &id, "probe", &agreed).await,
        agreed,
        "edits reach the store"
    );
}

/// One `capopt serve` process of the scale-out test.
struct Instance {
    child: std::process::Child,
    base: String,
    _dir: std::path::PathBuf,
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self._dir);
    }
}

impl Instance {
    async fn start(database_url: &str, redis_url: &str) -> Instance {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = std::env::temp_dir().join(format!("capopt-scale-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_capopt"))
            .arg("serve")
            .env("PORT", port.to_string())
            .env("DATA_DIR", &dir)
            .env("DATABASE_URL", database_url)
            .env("REDIS_URL", redis_url)
            .env("JWT_SECRET", "scale-test-secret-scale-test-secret")
            .env("SEED_DEMO", "1")
            .env("DEMO_PASSWORD", DEMO_PASSWORD)
            .env("WEB_DIST", dir.join("no-web"))
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("start capopt");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            if let Ok(r) = http.get(format!("{base}/api/health")).send().await
                && r.status().is_success()
            {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "instance on port {port} did not start"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        Instance {
            child,
            base,
            _dir: dir,
        }
    }

    async fn login(&self, email: &str) -> Session {
        let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
        let http = reqwest::Client::builder()
            .cookie_provider(jar.clone())
            .build()
            .unwrap();
        let s = Session {
            http,
            jar,
            base: self.base.clone(),
        };
        assert_eq!(s.get("/api/health").await.status(), StatusCode::OK);
        let r = s
            .post(
                "/api/auth/login",
                json!({"email": email, "password": DEMO_PASSWORD}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK, "login {email}");
        s
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL (TEST_DATABASE_URL) and Redis (TEST_REDIS_URL): run with `make test-scale`"]
async fn two_instances_relay_edits_and_presence_through_redis() {
    let redis_url =
        std::env::var("TEST_REDIS_URL").expect("TEST_REDIS_URL must point at Redis for this test");
    assert!(
        std::env::var("TEST_DATABASE_URL").is_ok(),
        "TEST_DATABASE_URL must point at PostgreSQL for this test"
    );
    let scratch = std::env::temp_dir();
    let db_url = fresh_database_url(&scratch).await.unwrap();

    // The first instance migrates and seeds; the second starts on the same database.
    let one = Instance::start(&db_url, &redis_url).await;
    let two = Instance::start(&db_url, &redis_url).await;

    let user = one.login(USER_A).await;
    let id = create(&user, "Across instances").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let admin = two.login(ADMIN).await;

    let mut x = ypeer::Peer::connect(&one.base, &id, &user).await;
    let mut y = ypeer::Peer::connect(&two.base, &id, &admin).await;
    x.until("initial sections on instance one", |p| {
        collab::report::sections_of(&p.doc).len() == 1
    })
    .await;
    y.until("initial sections on instance two", |p| {
        collab::report::sections_of(&p.doc).len() == 1
    })
    .await;

    x.type_text("probe", "one;").await;
    y.until("instance one's edit", |p| p.text("probe") == "one;")
        .await;
    y.type_text("probe", "two;").await;
    x.until("instance two's edit", |p| p.text("probe") == "one;two;")
        .await;

    // Presence crosses instances too.
    x.announce(r##"{"user":{"name":"Ana","color":"#ff0000"}}"##)
        .await;
    let xid = x.doc.client_id();
    y.until("presence from instance one", |p| {
        p.awareness.contains_key(&xid)
    })
    .await;

    // Interleaved bursts from both sides converge.
    for i in 0..40 {
        x.type_text("burst", &format!("x{i},")).await;
        y.type_text("burst", &format!("y{i},")).await;
    }
    let full = |p: &ypeer::Peer| p.text("burst").matches(',').count() == 80;
    x.until("every burst edit on instance one", full).await;
    y.until("every burst edit on instance two", full).await;
    assert_eq!(x.text("burst"), y.text("burst"));
    let agreed = x.text("burst");
    drop((x, y));

    let db = server::db::Db::connect(&db_url).await.unwrap();
    let store = SqlDocStore::new(&db);
    assert_eq!(
        stored_text(&store, &id, "burst", &agreed).await,
        agreed,
        "the converged text is stored"
    );
}

#[tokio::test]
async fn open_report_lists_hear_about_changes_after_commit() {
    use std::time::Duration;
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let client = crate::realtime::client_id(&app, "Bank A").await;
    let topic = format!("client:{client}:reports");
    let viewer = app.login(VIEWER).await;
    let mut ws = crate::realtime::Ws::connect(&viewer).await;
    assert_eq!(ws.subscribe(&[&topic]).await[0]["type"], "subscribed");
    let other = app.login(USER_B).await;
    let mut stranger = crate::realtime::Ws::connect(&other).await;
    assert_eq!(stranger.subscribe(&[&topic]).await[0]["type"], "denied");

    let id = create(&user, "Live").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let next = |v: &Value| {
        (
            v["type"].as_str().unwrap_or("").to_string(),
            v["data"]["id"].as_str().unwrap_or("").to_string(),
            v["seq"].as_i64().unwrap_or(0),
        )
    };
    let e1 = ws
        .next_json(Duration::from_secs(5))
        .await
        .expect("created event");
    assert_eq!(
        (next(&e1).0, next(&e1).1),
        ("report.created".to_string(), id.clone())
    );
    user.patch(&format!("/api/reports/{id}"), json!({"name": "Live 2"}))
        .await;
    let e2 = ws
        .next_json(Duration::from_secs(5))
        .await
        .expect("updated event");
    assert_eq!(next(&e2).0, "report.updated");
    assert_eq!(next(&e2).2, next(&e1).2 + 1, "one sequence per change");
    user.delete(&format!("/api/reports/{id}")).await;
    let e3 = ws
        .next_json(Duration::from_secs(5))
        .await
        .expect("deleted event");
    assert_eq!(next(&e3).0, "report.deleted");
    // A refused change publishes nothing.
    assert_eq!(
        viewer
            .post("/api/reports", json!({"name": "no"}))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    assert!(ws.next_json(Duration::from_millis(300)).await.is_none());
}

#[tokio::test]
async fn group_commits_are_merged_into_one_small_row() {
    use yrs::{GetString, Text};
    let app = TestApp::spawn().await;
    let store = SqlDocStore::new(&app.state.db);
    let initial = collab::report::initial_update(&[collab::report::SectionInit {
        nodes: Vec::new(),
        id: "a".into(),
        title: "Intro".into(),
        paragraphs: Vec::new(),
    }]);
    store.create("m", &initial).await.unwrap();
    // Two editors typing one character per update, as browsers send them.
    let (ann, bob) = (Doc::with_client_id(11), Doc::with_client_id(22));
    for d in [&ann, &bob] {
        d.transact_mut()
            .apply_update(yrs::Update::decode_v1(&initial).unwrap())
            .unwrap();
    }
    let mut batch = Vec::new();
    for (i, ch) in "Capital requirements".chars().enumerate() {
        let d = if i % 7 == 6 { &bob } else { &ann };
        let text = d.get_or_insert_text("t");
        let mut txn = d.transact_mut();
        let len = text.len(&txn);
        text.insert(&mut txn, len, &ch.to_string());
        batch.push(Bytes::from(txn.encode_update_v1()));
    }
    let raw: usize = batch.iter().map(|u| u.len()).sum();
    assert_eq!(store.append("m", &batch).await.unwrap(), 21);
    let sizes = store.sizes("m").await.unwrap().unwrap();
    assert_eq!((sizes.log_rows, sizes.log_entries), (2, 21));
    let initial_row = server::docs::store::encode_batch(&[Bytes::from(initial.clone())]).len();
    let merged = sizes.log_bytes as usize - initial_row;
    assert!(merged * 2 < raw, "merged {merged} bytes vs {raw} raw");

    let expected = |stored: &collab::StoredDoc| {
        let doc = collab::doc_from_stored(stored).unwrap();
        let text = doc.get_or_insert_text("t");
        text.get_string(&doc.transact())
    };
    let reference = Doc::new();
    for d in [&ann, &bob] {
        let u = d
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        reference
            .transact_mut()
            .apply_update(yrs::Update::decode_v1(&u).unwrap())
            .unwrap();
    }
    let want = reference
        .get_or_insert_text("t")
        .get_string(&reference.transact());
    let stored = store.load("m").await.unwrap().unwrap();
    assert_eq!(stored.last_seq(), 21);
    assert_eq!(expected(&stored), want);

    // A snapshot ending inside a merged chunk keeps the chunk whole: nothing is lost.
    let partial = collab::doc_from_stored(&collab::StoredDoc {
        snapshot: None,
        updates: stored.updates[..1].to_vec(),
    })
    .unwrap();
    let snap = partial
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    assert!(store.compact("m", &snap, 10).await.unwrap());
    let after = store.load("m").await.unwrap().unwrap();
    assert_eq!(after.last_seq(), 21);
    assert_eq!(expected(&after), want);
    store
        .append("m", &[Bytes::from_static(b"\x00\x00")])
        .await
        .unwrap();
    assert_eq!(store.load("m").await.unwrap().unwrap().last_seq(), 22);
}

#[tokio::test]
async fn open_document_sockets_follow_sign_out_and_role_changes() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let approver = app.login(APPROVER).await;
    let admin = app.login(ADMIN).await;
    let id = create(&user, "Followed").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, me) = approver.json("/api/auth/me").await;
    let approver_id = me["id"].as_str().unwrap().to_string();

    let mut writer = ypeer::Peer::connect(&app.base, &id, &user).await;
    let mut demoted = ypeer::Peer::connect(&app.base, &id, &approver).await;
    for p in [&mut writer, &mut demoted] {
        p.until("initial sections", |p| {
            collab::report::sections_of(&p.doc).len() == 1
        })
        .await;
    }
    demoted.type_text("t", "before ").await;
    writer
        .until("the approver's edit", |p| p.text("t") == "before ")
        .await;

    // The approver becomes a viewer while the socket is open: the next edit is refused.
    let r = admin
        .http
        .put(app.url(&format!("/api/admin/users/{approver_id}/role")))
        .header("x-csrf-token", admin.cookie("capopt_csrf").unwrap())
        .json(&json!({"role": "viewer"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    demoted.type_text("t", "after").await;
    demoted.until("permission denied", |p| p.denied >= 1).await;
    writer.drain(300).await;
    assert_eq!(writer.text("t"), "before ", "never relayed");
    let store = SqlDocStore::new(&app.state.db);
    assert_eq!(stored_text(&store, &id, "t", "before ").await, "before ");
    // It still reads what others write.
    writer.type_text("t", "more").await;
    demoted
        .until("the writer's edit", |p| p.text("t").contains("more"))
        .await;

    // Signing out closes the session's document socket with the shared code.
    assert_eq!(
        user.post_empty("/api/auth/logout").await.status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        ypeer::close_code(&mut writer.ws).await,
        Some(collab::close::UNAUTHENTICATED)
    );
}

/// Appends a paragraph holding `text` to section `section_id` of the peer's document and sends
/// the edit.
async fn append_paragraph(peer: &mut ypeer::Peer, section_id: &str, text: &str) {
    use futures_util::SinkExt;
    use yrs::{XmlElementPrelim, XmlFragment, XmlTextPrelim};
    let fragment = peer
        .doc
        .get_or_insert_xml_fragment(collab::report::fragment_name(section_id));
    let before = peer.doc.transact().state_vector();
    {
        let mut txn = peer.doc.transact_mut();
        let p = fragment.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
        p.push_back(&mut txn, XmlTextPrelim::new(text));
    }
    let update = peer.doc.transact().encode_state_as_update_v1(&before);
    peer.ws
        .send(tokio_tungstenite::tungstenite::protocol::Message::Binary(
            collab::protocol::update(&update),
        ))
        .await
        .unwrap();
}

/// The rich text of section `section_id` of a peer's document.
fn section_text(peer: &ypeer::Peer, section_id: &str) -> String {
    use yrs::GetString;
    let fragment = peer
        .doc
        .get_or_insert_xml_fragment(collab::report::fragment_name(section_id));
    fragment.get_string(&peer.doc.transact())
}

#[tokio::test]
async fn versions_are_taken_viewed_and_restored_live_for_every_co_editor() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let admin = app.login(ADMIN).await;
    let viewer = app.login(VIEWER).await;
    let stranger = app.login(USER_B).await;
    let id = create(&user, "Versioned").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut a = ypeer::Peer::connect(&app.base, &id, &user).await;
    let mut b = ypeer::Peer::connect(&app.base, &id, &admin).await;
    for p in [&mut a, &mut b] {
        p.until("initial sections", |p| {
            collab::report::sections_of(&p.doc).len() == 1
        })
        .await;
    }
    let section = collab::report::sections_of(&a.doc)[0].id.clone();
    append_paragraph(&mut a, &section, "First draft: 12.5 bps of CET1.").await;
    b.until("a's first draft", |p| {
        section_text(p, &section).contains("First draft")
    })
    .await;

    // A version of the document as it is now (the server reads the live state).
    let path = format!("/api/reports/{id}/versions");
    let (s, v1) = body(user.post(&path, json!({"name": "  Draft 1 "})).await).await;
    assert_eq!(s, StatusCode::CREATED, "{v1}");
    assert_eq!(v1["name"], "Draft 1");
    assert_eq!(v1["kind"], "manual");
    assert_eq!(v1["section_count"], 1);
    assert!(
        v1["created_by_name"]
            .as_str()
            .is_some_and(|n| !n.is_empty()),
        "{v1}"
    );
    let v1_id = v1["id"].as_str().unwrap().to_string();

    // Bad input changes nothing.
    let (s, e) = body(user.post(&path, json!({"name": "   "})).await).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(e["message"], "Version name is required", "{e}");
    let (s, e) = body(user.post(&path, json!({"name": "x".repeat(121)})).await).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    let (s, e) = body(
        user.post_empty(&format!("{path}/no-such-version/restore"))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(e["message"], "Version not found", "{e}");

    // Viewers list and read versions; they neither take nor restore one. Another client's
    // user does not see the report at all.
    let (s, list) = viewer.json(&path).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list.as_array().unwrap().len(), 1);
    let (s, _) = body(viewer.post(&path, json!({"name": "Mine"})).await).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = body(viewer.post_empty(&format!("{path}/{v1_id}/restore")).await).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    for p in [path.clone(), format!("{path}/{v1_id}")] {
        assert_eq!(
            stranger.get(&p).await.status(),
            StatusCode::NOT_FOUND,
            "{p}"
        );
    }
    let (s, _) = body(
        stranger
            .post_empty(&format!("{path}/{v1_id}/restore"))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // Later edits.
    append_paragraph(&mut b, &section, "Second thoughts").await;
    a.until("b's second thoughts", |p| {
        section_text(p, &section).contains("Second thoughts")
    })
    .await;

    // The version's content, read back from its state: the first draft, not what came after.
    let (s, detail) = viewer.json(&format!("{path}/{v1_id}")).await;
    assert_eq!(s, StatusCode::OK);
    use base64::Engine as _;
    let state = base64::engine::general_purpose::STANDARD
        .decode(detail["state"].as_str().unwrap())
        .unwrap();
    let content = collab::versions::content_of_v1(&state).unwrap();
    assert!(
        content.contains("First draft: 12.5 bps of CET1."),
        "{content}"
    );
    assert!(!content.contains("Second thoughts"), "{content}");

    // Restore: the current state is kept first, then both co-editors receive the restored
    // content live.
    let (s, before) = body(user.post_empty(&format!("{path}/{v1_id}/restore")).await).await;
    assert_eq!(s, StatusCode::OK, "{before}");
    assert_eq!(before["kind"], "before_restore");
    assert_eq!(before["name"], "Before restoring “Draft 1”");
    for p in [&mut a, &mut b] {
        p.until("the restored content", |p| {
            !section_text(p, &section).contains("Second thoughts")
        })
        .await;
        assert!(section_text(p, &section).contains("First draft"));
    }
    let (_, list) = user.json(&path).await;
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["Before restoring “Draft 1”", "Draft 1"]);

    // Restoring the automatic version undoes the restore.
    let before_id = before["id"].as_str().unwrap();
    let (s, _) = body(
        user.post_empty(&format!("{path}/{before_id}/restore"))
            .await,
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    a.until("the undone restore", |p| {
        section_text(p, &section).contains("Second thoughts")
    })
    .await;

    // Editors delete versions they no longer need (viewers cannot); the content stays.
    let v1_path = format!("{path}/{v1_id}");
    assert_eq!(
        viewer.delete(&v1_path).await.status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        stranger.delete(&v1_path).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(user.delete(&v1_path).await.status(), StatusCode::NO_CONTENT);
    assert_eq!(user.delete(&v1_path).await.status(), StatusCode::NOT_FOUND);
    let (_, list) = user.json(&path).await;
    assert_eq!(list.as_array().unwrap().len(), 2, "{list}");
    assert!(section_text(&a, &section).contains("Second thoughts"));

    // The versions go with the report.
    assert_eq!(
        user.delete(&format!("/api/reports/{id}")).await.status(),
        StatusCode::NO_CONTENT
    );
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM report_versions WHERE report_id = $1")
        .bind(&id)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(n, 0);
}

#[tokio::test]
async fn a_report_keeps_at_most_200_versions_until_one_is_deleted() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let id = create(&user, "Many versions").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/api/reports/{id}/versions");
    let mut first = String::new();
    for i in 0..200 {
        let (s, v) = body(user.post(&path, json!({"name": format!("V{i}")})).await).await;
        assert_eq!(s, StatusCode::CREATED, "{i}: {v}");
        if i == 0 {
            first = v["id"].as_str().unwrap().to_string();
        }
    }
    let (s, e) = body(user.post(&path, json!({"name": "One too many"})).await).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(
        e["message"],
        "A report keeps at most 200 versions. Delete one to save another."
    );
    // A restore needs room for the version it keeps first: refused the same way, and nothing
    // changes.
    let (s, _) = body(user.post_empty(&format!("{path}/{first}/restore")).await).await;
    assert_eq!(s, StatusCode::CONFLICT);
    let (_, list) = user.json(&path).await;
    assert_eq!(list.as_array().unwrap().len(), 200);
    assert_eq!(
        user.delete(&format!("{path}/{first}")).await.status(),
        StatusCode::NO_CONTENT
    );
    let (s, _) = body(user.post(&path, json!({"name": "Room again"})).await).await;
    assert_eq!(s, StatusCode::CREATED);
}
