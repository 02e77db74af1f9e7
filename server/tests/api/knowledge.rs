//! The knowledge base: TXT and DOCX documents uploaded, read in the background, cut into chunks
//! and found by full-text search with their heading, article and page; DOC refused with its
//! message; invalid UTF-8 failing clearly; a document left by a crash claimed again (or failed
//! once its claims are used up); deletion of the document, its chunks and its original; the
//! Settings tab's chunk size and re-index; administrators only.

use std::io::Write;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;

/// Two pages (a form feed between them): the first long enough that the second page's text
/// starts a chunk of its own.
pub(crate) fn txt() -> String {
    let filler: String = (0..195).map(|i| format!("filler{i} ")).collect();
    format!(
        "Capital Requirements Regulation\n\nPart Three sets the own funds requirements.\n\n{filler}\n\x0cExposures to public sector entities are risk weighted under Article 116(2), as regional governments are under Art. 115.\n"
    )
}

fn docx() -> Vec<u8> {
    let styles = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
  <w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
  <w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
</w:styles>"#;
    let document = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>
  <w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Credit risk mitigation</w:t></w:r></w:p>
  <w:p><w:r><w:t>General principles of eligibility.</w:t></w:r></w:p>
  <w:p><w:r><w:br w:type="page"/></w:r></w:p>
  <w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Article 197 Eligibility of collateral</w:t></w:r></w:p>
  <w:p><w:r><w:t>Debt securities issued by central governments are eligible as collateral.</w:t></w:r></w:p>
</w:body></w:document>"#;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    zip.start_file("word/styles.xml", opts).unwrap();
    zip.write_all(styles.as_bytes()).unwrap();
    zip.start_file("word/document.xml", opts).unwrap();
    zip.write_all(document.as_bytes()).unwrap();
    zip.finish().unwrap().into_inner()
}

pub(crate) async fn upload(
    s: &Session,
    files: &[(&str, Vec<u8>)],
    fields: &[(&str, &str)],
) -> (StatusCode, Value) {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let mut form = reqwest::multipart::Form::new();
    for (k, v) in fields {
        form = form.text(k.to_string(), v.to_string());
    }
    for (name, bytes) in files {
        form = form.part(
            "files",
            reqwest::multipart::Part::bytes(bytes.clone()).file_name(name.to_string()),
        );
    }
    let r = s
        .http
        .post(format!("{}/api/admin/knowledge/documents", s.base))
        .header("x-csrf-token", csrf)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    body(r).await
}

/// Waits (up to 30 s) until the document is no longer processing; returns it.
pub(crate) async fn settled(s: &Session, id: &str) -> Value {
    for _ in 0..300 {
        let (st, v) = s
            .json(&format!("/api/admin/knowledge/documents/{id}"))
            .await;
        assert_eq!(st, StatusCode::OK, "{v}");
        if v["status"] != "processing" {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("document {id} still processing");
}

async fn search(s: &Session, q: &str) -> Vec<Value> {
    let (st, v) = s
        .json(&format!("/api/admin/knowledge/search?q={}", url_encode(q)))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    v.as_array().expect("hits").clone()
}

fn url_encode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn txt_and_docx_are_read_chunked_and_found_with_article_and_page() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;

    let (st, v) = upload(
        &admin,
        &[("crr.txt", txt().into_bytes()), ("crm.docx", docx())],
        &[("category", "assets")],
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let docs = v.as_array().unwrap();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0]["status"], "processing");
    assert_eq!(docs[0]["category"], "Assets");
    let txt = settled(&admin, docs[0]["id"].as_str().unwrap()).await;
    let docx = settled(&admin, docs[1]["id"].as_str().unwrap()).await;
    for d in [&txt, &docx] {
        assert_eq!(d["status"], "completed", "{d}");
        assert_eq!(d["progress"], 100);
        assert_eq!(d["pages"], 2);
        assert!(d["chunkCount"].as_i64().unwrap() >= 1, "{d}");
        assert!(d["error"].is_null());
    }
    assert_eq!(txt["fileType"], "txt");
    assert_eq!(docx["fileType"], "docx");

    // The TXT's second page (after the form feed) carries the article.
    let hits = search(&admin, "public sector entities").await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    let h = &hits[0];
    assert_eq!(h["documentId"], txt["id"]);
    assert_eq!(h["documentName"], "crr.txt");
    assert_eq!(h["pageFrom"], 2);
    assert_eq!(h["pageTo"], 2);
    assert_eq!(h["article"], "Article 116(2), Article 115");
    assert!(h["snippet"].as_str().unwrap().contains("<mark>"), "{h}");

    // The DOCX: heading path from its styles, article from the heading, page from the break.
    let hits = search(&admin, "collateral central governments").await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    let h = &hits[0];
    assert_eq!(h["documentId"], docx["id"]);
    assert_eq!(
        h["heading"],
        "Credit risk mitigation > Article 197 Eligibility of collateral"
    );
    assert_eq!(h["article"], "Article 197");
    assert_eq!(h["pageFrom"], 2);

    // Stemming, several words, punctuation in the query; nothing for punctuation alone.
    assert_eq!(search(&admin, "Article 116(2)").await.len(), 1);
    assert_eq!(search(&admin, "weighting").await.len(), 1);
    assert!(search(&admin, "\"*():^-").await.is_empty());
    assert!(search(&admin, "").await.is_empty());
    assert!(search(&admin, "NEAR OR AND").await.is_empty());

    let (st, stats) = admin.json("/api/admin/knowledge/stats").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(stats["totalDocuments"], 2);
    assert_eq!(stats["totalUploads"], 2);
    assert_eq!(stats["categories"], 4);
    assert_eq!(
        stats["totalChunks"].as_i64().unwrap(),
        txt["chunkCount"].as_i64().unwrap() + docx["chunkCount"].as_i64().unwrap()
    );
    assert_eq!(stats["byCategory"][0]["category"], "Assets");
    assert_eq!(stats["byCategory"][0]["documents"], 2);

    let (st, list) = admin.json("/api/admin/knowledge/documents").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(list.as_array().unwrap().len(), 2);
}

/// The best chunks by BM25 over every chunk holding all the query's words, as an exhaustive
/// ranking computed here in SQL finds them: FTS5's `bm25` over the whole index on SQLite (where
/// an index of 2,000 rows or more is ranked in parts on several connections), the same formula
/// over each chunk's `to_tsvector` on PostgreSQL (where the search ranks posting lists).
#[tokio::test]
async fn search_ranks_every_matching_chunk_by_bm25() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let (st, v) = send(
        &admin,
        Method::PUT,
        "/api/admin/knowledge/settings",
        Some(json!({"chunkWords": 50})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    // Three documents of skewed text (word i of ten drawn with weight 10 - i), paragraphs of 40
    // to 159 words, cut into chunks of about 50 words: over 2,000 chunks in all.
    const WORDS: [&str; 10] = [
        "exposure",
        "risk",
        "weight",
        "institution",
        "rating",
        "collateral",
        "guarantee",
        "maturity",
        "sovereign",
        "mortgage",
    ];
    let mut state: u64 = 7;
    let mut word = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mut r = (state >> 33) % 55;
        let mut i = 0;
        while r >= 10 - i {
            r -= 10 - i;
            i += 1;
        }
        WORDS[i as usize]
    };
    let mut files = Vec::new();
    for d in 0..3 {
        let text: Vec<String> = (0..380)
            .map(|p| {
                let n = 40 + (p * 37 + d * 11) % 120;
                (0..n).map(|_| word()).collect::<Vec<_>>().join(" ") + "."
            })
            .collect();
        files.push((format!("ranked{d}.txt"), text.join("\n\n").into_bytes()));
    }
    let files: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let (st, v) = upload(&admin, &files, &[("category", "assets")]).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let mut chunks = 0;
    for d in v.as_array().unwrap() {
        let d = settled(&admin, d["id"].as_str().unwrap()).await;
        assert_eq!(d["status"], "completed", "{d}");
        chunks += d["chunkCount"].as_i64().unwrap();
    }
    assert!(chunks >= 2_000, "{chunks} chunks");
    let pool = &app.state.db.pool;
    let postgres = app.state.db.backend == server::db::Backend::Postgres;
    for q in [
        "mortgage",
        "sovereign collateral",
        "exposure risk weight",
        "rating maturity",
    ] {
        let quoted: String = q.split(' ').map(|t| format!("\"{t}\" ")).collect();
        let reference: Vec<(String, f64)> = if postgres {
            sqlx::query_as(
                "WITH v AS (SELECT c.id, c.ord, c.document_id, d.created_at,
                          to_tsvector('english', COALESCE(c.heading, '') || ' ' || c.text) AS v
                        FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id),
                      l AS (SELECT v.*, (SELECT SUM(cardinality(positions)) FROM unnest(v.v)) AS len
                        FROM v),
                      n AS (SELECT CAST(COUNT(*) AS DOUBLE PRECISION) AS n,
                          CAST(AVG(len) AS DOUBLE PRECISION) AS avg FROM l),
                      q AS (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $1))),
                      tf AS (SELECT l.id, l.ord, l.document_id, l.created_at, l.len, q.lexeme,
                          cardinality(u.positions) AS tf
                        FROM l CROSS JOIN LATERAL unnest(l.v) u JOIN q ON q.lexeme = u.lexeme),
                      idf AS (SELECT tf.lexeme, GREATEST(LN((n.n - COUNT(*) + 0.5) / (COUNT(*) + 0.5)),
                          0.000001) AS idf FROM tf CROSS JOIN n GROUP BY tf.lexeme, n.n)
                 SELECT tf.id, SUM(idf.idf * tf.tf * 2.2
                     / (tf.tf + 1.2 * (0.25 + 0.75 * tf.len / n.avg))) AS score
                 FROM tf JOIN idf ON idf.lexeme = tf.lexeme CROSS JOIN n
                 GROUP BY tf.id, tf.ord, tf.document_id, tf.created_at
                 HAVING COUNT(*) = (SELECT COUNT(*) FROM q)
                 ORDER BY score DESC",
            )
            .bind(q)
            .fetch_all(pool)
            .await
            .unwrap()
        } else {
            sqlx::query_as(
                "SELECT chunk_id, -bm25(knowledge_fts) FROM knowledge_fts
                 WHERE knowledge_fts MATCH $1 ORDER BY bm25(knowledge_fts)",
            )
            .bind(quoted.trim())
            .fetch_all(pool)
            .await
            .unwrap()
        };
        assert!(reference.len() > 10, "{q:?} matches many chunks");
        // The ten best scores, each hit with its own chunk's score (equal scores in any order).
        let hits = search(&admin, q).await;
        assert_eq!(hits.len(), 10, "{q:?}");
        let scores: std::collections::HashMap<&str, f64> =
            reference.iter().map(|(c, s)| (c.as_str(), *s)).collect();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-6);
        for (h, (_, best)) in hits.iter().zip(&reference) {
            let rank = h["rank"].as_f64().unwrap();
            let own = scores[h["chunkId"].as_str().unwrap()];
            assert!(close(rank, own), "{q:?}: {rank} against its chunk's {own}");
            assert!(
                close(rank, *best),
                "{q:?}: {rank} where the best are {best}"
            );
            assert!(h["snippet"].as_str().unwrap().contains("<mark>"), "{h}");
        }
    }
    // An index created after the chunks (an upgrade from a version without it) indexes them.
    let before = search(&admin, "sovereign collateral").await;
    let drop: &[&'static str] = if postgres {
        &[
            "DROP TABLE knowledge_postings",
            "DROP TABLE knowledge_search_sizes",
        ]
    } else {
        &[
            "DROP TRIGGER knowledge_chunks_fts",
            "DROP TABLE knowledge_fts",
        ]
    };
    for &statement in drop {
        sqlx::query(statement).execute(pool).await.unwrap();
    }
    server::db::knowledge::set_up_search(pool, app.state.db.backend)
        .await
        .unwrap();
    assert_eq!(search(&admin, "sovereign collateral").await, before);
}

#[tokio::test]
async fn doc_and_other_types_are_refused_and_only_admins_may_call() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;

    let ole2 = [0xD0u8, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0];
    let (st, v) = upload(
        &admin,
        &[("old.doc", ole2.to_vec())],
        &[("category", "CRMT")],
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["code"], "unsupported_file_type");
    assert_eq!(
        v["message"],
        "Unsupported file type: Word 97-2003 documents (.doc) cannot be read. Save the document as .docx (Word 2007 or later) or PDF and upload it again."
    );
    // A .doc renamed .docx is recognised by its content.
    let (st, v) = upload(
        &admin,
        &[("renamed.docx", ole2.to_vec())],
        &[("category", "CRMT")],
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(v["message"].as_str().unwrap().contains(".doc"), "{v}");
    let (st, v) = upload(
        &admin,
        &[("sheet.xlsx", b"PK\x03\x04".to_vec())],
        &[("category", "CRMT")],
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("Unsupported file type"),
        "{v}"
    );
    let (st, v) = upload(
        &admin,
        &[("fake.pdf", b"hello".to_vec())],
        &[("category", "CRMT")],
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    // Files and a lever category are both required.
    let (st, v) = upload(&admin, &[("a.txt", b"text".to_vec())], &[]).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["message"], "Please select files and a lever category");
    let (st, v) = upload(&admin, &[], &[("category", "Assets")]).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["message"], "Please select files and a lever category");
    let (st, v) = upload(
        &admin,
        &[("a.txt", b"text".to_vec())],
        &[("category", "Bonds")],
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (_, list) = admin.json("/api/admin/knowledge/documents").await;
    assert!(
        list.as_array().unwrap().is_empty(),
        "nothing refused was kept: {list}"
    );
    assert!(
        app.state
            .storage
            .list_keys_under("knowledge")
            .await
            .unwrap()
            .is_empty()
    );

    for who in [USER_A, VIEWER, APPROVER] {
        let s = app.login(who).await;
        let (st, _) = upload(
            &s,
            &[("a.txt", b"text".to_vec())],
            &[("category", "Assets")],
        )
        .await;
        assert_eq!(st, StatusCode::FORBIDDEN, "{who}");
        for path in [
            "/api/admin/knowledge/documents",
            "/api/admin/knowledge/search?q=capital",
            "/api/admin/knowledge/stats",
        ] {
            let (st, _) = s.json(path).await;
            assert_eq!(st, StatusCode::FORBIDDEN, "{who} {path}");
        }
    }
}

#[tokio::test]
async fn invalid_utf8_fails_with_a_clear_message_and_delete_removes_everything() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;

    let (st, v) = upload(
        &admin,
        &[("latin1.txt", b"Art\xedculo 116".to_vec())],
        &[("category", "CRMT")],
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let bad = settled(&admin, v[0]["id"].as_str().unwrap()).await;
    assert_eq!(bad["status"], "failed");
    assert_eq!(
        bad["error"],
        "Text file extraction failed: the file is not valid UTF-8 text (invalid byte at offset 3). Save it as UTF-8 and upload it again."
    );

    let (st, v) = upload(
        &admin,
        &[("crr.txt", txt().into_bytes())],
        &[("category", "Assets")],
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let id = v[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(settled(&admin, &id).await["status"], "completed");
    assert_eq!(search(&admin, "regional governments").await.len(), 1);
    assert_eq!(
        app.state
            .storage
            .list_keys_under("knowledge")
            .await
            .unwrap()
            .len(),
        2
    );

    let (st, _) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/knowledge/documents/{id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, _) = admin
        .json(&format!("/api/admin/knowledge/documents/{id}"))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert!(search(&admin, "regional governments").await.is_empty());
    let (n,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM knowledge_chunks WHERE document_id = $1")
            .bind(&id)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    assert_eq!(n, 0);
    if app.state.db.backend == server::db::Backend::Sqlite {
        let (n,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM knowledge_fts WHERE document_id = $1")
                .bind(&id)
                .fetch_one(&app.state.db.pool)
                .await
                .unwrap();
        assert_eq!(n, 0, "the index rows go with the chunks");
    }
    assert_eq!(
        app.state
            .storage
            .list_keys_under("knowledge")
            .await
            .unwrap()
            .len(),
        1
    );
    let (st, _) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/knowledge/documents/{id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
}

/// A document left `processing` by a worker that died (its lease expired) is claimed again and
/// completed; one whose claims are used up is failed with the specification's message.
#[tokio::test]
async fn documents_left_processing_by_a_crash_are_claimed_again_or_failed() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let past = server::db::ts(chrono::Utc::now() - chrono::Duration::minutes(5));
    let mut ids = Vec::new();
    for attempts in [1, server::service::knowledge::MAX_ATTEMPTS] {
        let key = server::storage::Storage::knowledge_key("x.txt");
        let path = app.state.storage.temp_file().await.unwrap().1;
        std::fs::write(&path, txt()).unwrap();
        app.state
            .storage
            .put_file(&key, &path, "text/plain")
            .await
            .unwrap();
        let id = uuid::Uuid::new_v4().to_string();
        let now = server::db::now();
        let mut conn = app.state.db.pool.acquire().await.unwrap();
        server::db::knowledge::insert_document(
            &mut conn,
            &server::db::knowledge::DocumentRow {
                id: id.clone(),
                name: format!("crashed-{attempts}.txt"),
                file_type: "txt".into(),
                content_type: "text/plain".into(),
                size_bytes: txt().len() as i64,
                storage_key: key.as_str().to_owned(),
                category: None,
                lever_id: None,
                status: "processing".into(),
                stage: "extracting".into(),
                progress: 30,
                error: None,
                pages: None,
                chunk_count: 0,
                attempts,
                lease_until: Some(past.clone()),
                uploaded_by: None,
                created_at: now.clone(),
                updated_at: now,
                completed_at: None,
                chunk_words: None,
            },
        )
        .await
        .unwrap();
        ids.push(id);
    }
    let requeued = settled(&admin, &ids[0]).await;
    assert_eq!(requeued["status"], "completed", "{requeued}");
    let (attempts,): (i64,) =
        sqlx::query_as("SELECT attempts FROM knowledge_documents WHERE id = $1")
            .bind(&ids[0])
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    assert_eq!(attempts, 2);
    let exhausted = settled(&admin, &ids[1]).await;
    assert_eq!(exhausted["status"], "failed", "{exhausted}");
    assert!(
        exhausted["error"]
            .as_str()
            .unwrap()
            .starts_with("Upload processing failed"),
        "{exhausted}"
    );
    assert_eq!(search(&admin, "public sector").await.len(), 1);
}

/// A two-page PDF with an outline: `Part Three` (page 1) and `Article 116 Exposures to PSEs`
/// under it (page 2).
fn pdf() -> Vec<u8> {
    use pdf_oxide::writer::{DocumentBuilder, OutlineItem};
    let mut b = DocumentBuilder::new();
    b.a4_page()
        .at(72.0, 770.0)
        .heading(1, "Part Three")
        .font("Helvetica", 11.0)
        .paragraph("Capital requirements for credit risk apply to every exposure class.")
        .done();
    b.a4_page()
        .at(72.0, 770.0)
        .heading(2, "Article 116 Exposures to PSEs")
        .font("Helvetica", 11.0)
        .paragraph("Exposures to public sector entities shall be risk weighted as set out here.")
        .done();
    b.bookmark_tree(|o| {
        o.add_item(OutlineItem::new("Part Three", 0));
        o.add_child(OutlineItem::new("Article 116 Exposures to PSEs", 1));
        o.pop();
    })
    .build()
    .unwrap()
}

#[tokio::test]
async fn a_pdf_is_found_under_its_outline_heading_with_its_page() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let (st, v) = upload(&admin, &[("crr.pdf", pdf())], &[("category", "Assets")]).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let d = settled(&admin, v[0]["id"].as_str().unwrap()).await;
    assert_eq!(d["status"], "completed", "{d}");
    assert_eq!(d["fileType"], "pdf");
    assert_eq!(d["pages"], 2);
    let hits = search(&admin, "public sector entities").await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(
        hits[0]["heading"],
        "Part Three > Article 116 Exposures to PSEs"
    );
    assert_eq!(hits[0]["article"], "Article 116");
    assert_eq!(hits[0]["pageFrom"], 2);
    assert_eq!(hits[0]["pageTo"], 2);
}

#[tokio::test]
async fn the_chunk_size_is_validated_saved_and_applied_by_a_reindex_that_keeps_search_working() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    const SETTINGS: &str = "/api/admin/knowledge/settings";

    let (st, v) = admin.json(SETTINGS).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["chunkWords"], 200);
    assert_eq!(v["minChunkWords"], 50);
    assert_eq!(v["maxChunkWords"], 1000);
    assert_eq!(v["searchLanguage"], "English");
    assert_eq!(v["staleDocuments"], 0);
    assert!(v["updatedBy"].is_null(), "{v}");

    let (_, v) = upload(
        &admin,
        &[("crr.txt", txt().into_bytes())],
        &[("category", "assets")],
    )
    .await;
    let id = v[0]["id"].as_str().unwrap().to_owned();
    let before = settled(&admin, &id).await;
    assert_eq!(before["status"], "completed", "{before}");
    assert_eq!(before["chunkWords"], 200);
    let chunks_before = before["chunkCount"].as_i64().unwrap();

    // Out of bounds, not a number, missing: refused, nothing changed.
    for bad in [
        json!({"chunkWords": 49}),
        json!({"chunkWords": 1001}),
        json!({"chunkWords": -5}),
    ] {
        let (st, v) = send(&admin, Method::PUT, SETTINGS, Some(bad)).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert_eq!(
            v["message"],
            "Chunk size must be a whole number of words from 50 to 1000."
        );
    }
    for bad in [
        json!({"chunkWords": "many"}),
        json!({}),
        json!({"chunkWords": 60.5}),
    ] {
        let (st, v) = send(&admin, Method::PUT, SETTINGS, Some(bad)).await;
        assert!(st.is_client_error(), "{st} {v}");
    }
    assert_eq!(admin.json(SETTINGS).await.1["chunkWords"], 200);

    // Saved: the document indexed before is now stale.
    let (st, v) = send(
        &admin,
        Method::PUT,
        SETTINGS,
        Some(json!({"chunkWords": 50})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["chunkWords"], 50);
    assert_eq!(v["staleDocuments"], 1);
    assert_eq!(v["updatedBy"], "Alicia Admin");
    assert!(v["updatedAt"].is_string());

    // Re-index: queued, then indexed again at 50 words; the same passage is found.
    let (st, v) = send(&admin, Method::POST, "/api/admin/knowledge/reindex", None).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["queued"], 1);
    let after = settled(&admin, &id).await;
    assert_eq!(after["status"], "completed", "{after}");
    assert_eq!(after["chunkWords"], 50);
    let chunks_after = after["chunkCount"].as_i64().unwrap();
    assert!(
        chunks_after > chunks_before,
        "{chunks_before} -> {chunks_after}"
    );
    let hits = search(&admin, "public sector entities").await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["pageFrom"], 2);
    assert_eq!(hits[0]["article"], "Article 116(2), Article 115");
    // The old chunks are gone (each chunk of the new cut is found once).
    let (_, stats) = admin.json("/api/admin/knowledge/stats").await;
    assert_eq!(stats["totalChunks"].as_i64().unwrap(), chunks_after);
    assert_eq!(search(&admin, "filler3").await.len(), 1);
    assert_eq!(admin.json(SETTINGS).await.1["staleDocuments"], 0);

    // Nothing to re-index twice in a row is still an answer.
    let (st, v) = send(&admin, Method::POST, "/api/admin/knowledge/reindex", None).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    settled(&admin, &id).await;

    // Viewers and client users may neither read nor change the settings.
    for who in [VIEWER, USER_A] {
        let s = app.login(who).await;
        assert_eq!(s.json(SETTINGS).await.0, StatusCode::FORBIDDEN);
        let (st, _) = send(&s, Method::PUT, SETTINGS, Some(json!({"chunkWords": 100}))).await;
        assert_eq!(st, StatusCode::FORBIDDEN);
        let (st, _) = send(&s, Method::POST, "/api/admin/knowledge/reindex", None).await;
        assert_eq!(st, StatusCode::FORBIDDEN);
    }
    assert_eq!(admin.json(SETTINGS).await.1["chunkWords"], 50);
}

/// The CRR's standardised-approach articles (114 to 122, as amended by CRR2), as plain text.
pub(crate) const CRR: &str = include_str!("../fixtures/crr_standardised_articles.txt");

async fn rules(s: &Session, all: bool) -> Vec<Value> {
    let (st, v) = s
        .json(&format!(
            "/api/admin/knowledge/rules{}",
            if all { "?all=true" } else { "" }
        ))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    v.as_array().expect("rules").clone()
}

#[tokio::test]
async fn levers_and_rules_are_extracted_from_the_crr_reviewed_and_saved_with_versions() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let (st, v) = upload(
        &admin,
        &[("crr-articles.txt", CRR.as_bytes().to_vec())],
        &[("category", "Assets")],
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let id = v[0]["id"].as_str().unwrap().to_string();
    assert_eq!(settled(&admin, &id).await["status"], "completed");

    let (st, x) = send(
        &admin,
        Method::POST,
        &format!("/api/admin/knowledge/documents/{id}/extract"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{x}");
    assert_eq!(x["engine"], "builtin");
    assert_eq!(x["documentName"], "crr-articles.txt");
    let levers = x["levers"].as_array().unwrap().clone();
    let names: Vec<&str> = levers
        .iter()
        .map(|l| l["leverName"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    assert!(
        x["existingLevers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["name"] == "Public Sector Entities (PSE)")
    );
    let pse = levers
        .iter()
        .find(|l| l["leverName"] == "Public Sector Entities (PSE)")
        .unwrap()
        .clone();
    let table2 = pse["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["conditions"]["basis"] == "sovereign_cqs")
        .unwrap()
        .clone();
    assert_eq!(
        table2["actions"]["riskWeightByCqs"],
        json!({"1": 20, "2": 50, "3": 100, "4": 100, "5": 100, "6": 150, "sovereign_unrated": 100})
    );
    let corporates = levers
        .iter()
        .find(|l| l["leverName"] == "Corporates")
        .unwrap()
        .clone();

    // Nothing to save, and a lever with errors: refused with the specification's messages, nothing written.
    let (st, v) = send(
        &admin,
        Method::POST,
        "/api/admin/knowledge/levers",
        Some(json!({"levers": []})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(v["message"].as_str().unwrap().starts_with("No Data"), "{v}");
    let mut broken = pse.clone();
    broken["description"] = json!("");
    broken["rules"][0]["conditions"] = json!({});
    let (st, v) = send(
        &admin,
        Method::POST,
        "/api/admin/knowledge/levers",
        Some(json!({"documentId": id, "levers": [corporates, broken]})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(
        v["message"],
        "Validation Failed: Please fix all validation errors before saving. Public Sector Entities (PSE): Description is required; Public Sector Entities (PSE): Rule 1: Conditions are required"
    );
    assert!(rules(&admin, true).await.is_empty());
    let (_, levers_before) = admin.json("/api/admin/levers").await;
    assert!(
        !levers_before
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["name"] == "Corporates"),
        "{levers_before}"
    );

    // Saved: PSE onto the product's lever (similar name), Corporates as a new lever.
    let (st, saved) = send(
        &admin,
        Method::POST,
        "/api/admin/knowledge/levers",
        Some(json!({"documentId": id, "levers": [pse, corporates]})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{saved}");
    assert_eq!(saved["levers"][0]["leverId"], "lever-pse");
    assert_eq!(saved["levers"][0]["created"], false);
    assert_eq!(
        saved["levers"][0]["message"],
        "A lever with a similar name already exists. Selecting it."
    );
    assert_eq!(saved["levers"][1]["created"], true);
    let n = pse["rules"].as_array().unwrap().len() + corporates["rules"].as_array().unwrap().len();
    assert_eq!(saved["rules"], json!(n));
    let (_, levers_after) = admin.json("/api/admin/levers").await;
    assert!(
        levers_after
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["name"] == "Corporates"),
        "{levers_after}"
    );

    let listed = rules(&admin, false).await;
    assert_eq!(listed.len(), n);
    let priorities: Vec<i64> = listed
        .iter()
        .map(|r| r["priority"].as_i64().unwrap())
        .collect();
    assert!(
        priorities.windows(2).all(|w| w[0] >= w[1]),
        "{priorities:?}"
    );
    let t2 = listed
        .iter()
        .find(|r| r["ruleName"] == table2["ruleName"])
        .unwrap();
    assert_eq!(t2["version"], 1);
    assert_eq!(t2["isActive"], true);
    assert_eq!(t2["leverName"], "Public Sector Entities (PSE)");
    assert_eq!(t2["actions"], table2["actions"]);
    assert_eq!(t2["articleReference"], table2["articleReference"]);
    assert_eq!(t2["sourceDocumentName"], "crr-articles.txt");
    assert_eq!(t2["engine"], "builtin");
    let (_, stats) = admin.json("/api/admin/knowledge/stats").await;
    assert_eq!(stats["totalRules"], json!(n));

    // Saved again (a typed lever name that only differs in case and punctuation): new versions,
    // the earlier ones kept out of force.
    let mut again = pse.clone();
    again["leverName"] = json!("public sector entities - PSE");
    let (st, v) = send(
        &admin,
        Method::POST,
        "/api/admin/knowledge/levers",
        Some(json!({"levers": [again]})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let pse_rules = pse["rules"].as_array().unwrap().len();
    assert_eq!(v["levers"][0]["leverId"], "lever-pse");
    assert_eq!(v["levers"][0]["newVersions"], json!(pse_rules));
    assert_eq!(rules(&admin, false).await.len(), n);
    let all = rules(&admin, true).await;
    assert_eq!(all.len(), n + pse_rules);
    let versions: Vec<(i64, bool)> = all
        .iter()
        .filter(|r| r["ruleName"] == table2["ruleName"])
        .map(|r| {
            (
                r["version"].as_i64().unwrap(),
                r["isActive"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(versions.len(), 2);
    assert!(
        versions.contains(&(2, true)) && versions.contains(&(1, false)),
        "{versions:?}"
    );

    // Administrators only.
    for who in [USER_A, VIEWER, APPROVER] {
        let s = app.login(who).await;
        let (st, _) = send(
            &s,
            Method::POST,
            &format!("/api/admin/knowledge/documents/{id}/extract"),
            None,
        )
        .await;
        assert_eq!(st, StatusCode::FORBIDDEN, "{who}");
        let (st, _) = send(
            &s,
            Method::POST,
            "/api/admin/knowledge/levers",
            Some(json!({"levers": []})),
        )
        .await;
        assert_eq!(st, StatusCode::FORBIDDEN, "{who}");
        let (st, _) = s.json("/api/admin/knowledge/rules").await;
        assert_eq!(st, StatusCode::FORBIDDEN, "{who}");
    }
    // An unknown document.
    let (st, _) = send(
        &admin,
        Method::POST,
        "/api/admin/knowledge/documents/nope/extract",
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
}
