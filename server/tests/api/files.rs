//! Files: upload bounds and recognition (nothing stored on a refusal), inspection, the list's
//! filters, downloads with their names and types, deletion of both objects, mapping templates,
//! universal suggestions, levers, and the walls between clients and roles.

use std::io::Write;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::*;

const CSV: &str = "Exposure_ID,NIF,Legal_Name,Exposure_Amount,Current_Risk_Weight,Maturity (days)\n\
E1,Q2826000H,Ayuntamiento de Madrid,1000000,1,30\n\
E2,Q2816003D,Consorcio de Transportes,2000000,0.5,400\n";

/// Objects kept under the test server's local storage.
fn stored_objects(app: &TestApp) -> Vec<String> {
    let root = app.state.config.data_dir.join("objects");
    let mut out = Vec::new();
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// Files in the test server's temporary folder (uploads in transit).
fn temp_files(app: &TestApp) -> usize {
    std::fs::read_dir(app.state.config.data_dir.join("tmp"))
        .map(|rd| rd.count())
        .unwrap_or(0)
}

/// The temporary files left once their removal, which runs on the blocking pool after the request
/// ended, has had up to 10 s to happen.
async fn temp_files_left(app: &TestApp) -> usize {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let n = temp_files(app);
        if n == 0 || std::time::Instant::now() > deadline {
            return n;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

async fn upload_to(
    s: &Session,
    path: &str,
    name: &str,
    bytes: Vec<u8>,
    options: Option<Value>,
) -> (StatusCode, Value) {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    // Names as browsers send them (UTF-8, not percent-encoded).
    let mut form = reqwest::multipart::Form::new().percent_encode_noop().part(
        "file",
        reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()),
    );
    if let Some(o) = options {
        form = form.text("options", o.to_string());
    }
    let r = s
        .http
        .post(format!("{}{}", s.base, path))
        .header("x-csrf-token", csrf)
        .multipart(form)
        .send()
        .await;
    match r {
        Ok(r) => body(r).await,
        // The server may close the connection after refusing a body it will not read.
        Err(e) => panic!("upload failed: {e}"),
    }
}

async fn upload(s: &Session, name: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
    upload_to(s, "/api/files", name, bytes, None).await
}

async fn delete(s: &Session, path: &str) -> StatusCode {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    s.http
        .delete(format!("{}{}", s.base, path))
        .header("x-csrf-token", csrf)
        .send()
        .await
        .unwrap()
        .status()
}

fn xlsx_bytes() -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let o = zip::write::SimpleFileOptions::default();
        z.start_file("[Content_Types].xml", o).unwrap();
        z.write_all(br#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#).unwrap();
        z.start_file("_rels/.rels", o).unwrap();
        z.write_all(br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#).unwrap();
        z.start_file("xl/workbook.xml", o).unwrap();
        z.write_all(br#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#).unwrap();
        z.start_file("xl/_rels/workbook.xml.rels", o).unwrap();
        z.write_all(br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#).unwrap();
        z.start_file("xl/worksheets/sheet1.xml", o).unwrap();
        z.write_all(br#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>NIF</t></is></c><c r="B1" t="inlineStr"><is><t>Exposure_Amount</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>Q2826000H</t></is></c><c r="B2"><v>1000</v></c></row></sheetData></worksheet>"#).unwrap();
        z.finish().unwrap();
    }
    buf.into_inner()
}

/// A zip archive that is not a workbook (a word-processing document renamed `.xlsx`).
fn docx_like_zip() -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let o = zip::write::SimpleFileOptions::default();
        z.start_file("[Content_Types].xml", o).unwrap();
        z.write_all(b"<Types/>").unwrap();
        z.start_file("word/document.xml", o).unwrap();
        z.write_all(b"<w:document/>").unwrap();
        z.finish().unwrap();
    }
    buf.into_inner()
}

/// A zip bomb dressed as a workbook: a sheet that expands to far more than the upload limits
/// allow.
fn zip_bomb_xlsx() -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let o = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        z.start_file("[Content_Types].xml", o).unwrap();
        z.write_all(b"<Types/>").unwrap();
        z.start_file("xl/workbook.xml", o).unwrap();
        z.write_all(b"<workbook/>").unwrap();
        z.start_file("xl/worksheets/sheet1.xml", o).unwrap();
        let zeros = vec![b' '; 1024 * 1024];
        for _ in 0..600 {
            z.write_all(&zeros).unwrap();
        }
        z.finish().unwrap();
    }
    buf.into_inner()
}

#[tokio::test]
async fn upload_refusals_store_nothing() {
    let app = TestApp::spawn_with(|c| c.max_upload_mb = 1).await;
    let s = app.login(USER_A).await;
    let cases: Vec<(&str, Vec<u8>, StatusCode, &str)> = vec![
        (
            "empty.csv",
            vec![],
            StatusCode::UNPROCESSABLE_ENTITY,
            "The uploaded file appears to be empty or invalid.",
        ),
        (
            "program.csv",
            b"MZ\x90\x00\x03\x00\x00\x00\x04\x00".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload only PDF, Excel, or CSV files.",
        ),
        (
            "elf.xlsx",
            b"\x7fELF\x02\x01\x01\x00\x00".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload only PDF, Excel, or CSV files.",
        ),
        (
            "text.xlsx",
            CSV.as_bytes().to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload only PDF, Excel, or CSV files.",
        ),
        (
            "doc.pdf",
            CSV.as_bytes().to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload only PDF, Excel, or CSV files.",
        ),
        (
            "tool.exe",
            CSV.as_bytes().to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload only PDF, Excel, or CSV files.",
        ),
        (
            "big.csv",
            format!("a,b\n{}", "1,2\n".repeat(300_000)).into_bytes(),
            StatusCode::PAYLOAD_TOO_LARGE,
            "File too large",
        ),
        (
            "bomb.xlsx",
            zip_bomb_xlsx(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "",
        ),
        (
            "not-a-workbook.xlsx",
            docx_like_zip(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload only PDF, Excel, or CSV files.",
        ),
        (
            "broken.xls",
            [
                &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1][..],
                &[0u8; 600][..],
            ]
            .concat(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "",
        ),
        (
            "headers-only.csv",
            b"a,b\n".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "No data found in CSV file",
        ),
    ];
    for (name, bytes, status, message) in cases {
        let (st, v) = upload(&s, name, bytes).await;
        assert_eq!(st, status, "{name}: {v}");
        if !message.is_empty() {
            assert_eq!(v["message"], message, "{name}");
        } else {
            let m = v["message"].as_str().unwrap();
            assert!(
                m.starts_with("Failed to parse Excel file") || m == "Failed to read Excel file",
                "{name}: {v}"
            );
        }
    }
    assert!(
        stored_objects(&app).is_empty(),
        "{:?}",
        stored_objects(&app)
    );
    assert_eq!(
        temp_files_left(&app).await,
        0,
        "temporary files are removed"
    );
    let (_, list) = s.json("/api/files").await;
    assert_eq!(list.as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn upload_list_get_download_and_delete() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let (st, v) = upload(&s, "C:\\fakepath\\Q3   año.csv", CSV.as_bytes().to_vec()).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let file = &v["file"];
    assert_eq!(file["name"], "Q3 año.csv");
    assert_eq!(file["fileType"], "csv");
    assert_eq!(file["sizeBytes"], CSV.len());
    assert_eq!(file["status"], "uploaded");
    assert_eq!(file["processed"], false);
    assert_eq!(file["hasProcessed"], false);
    assert!(v["run"].is_null());
    let id = file["id"].as_str().unwrap().to_string();
    let objects = stored_objects(&app);
    assert_eq!(objects.len(), 1);
    assert!(
        objects[0].starts_with("clients/")
            && objects[0].contains("/input/")
            && objects[0].ends_with(".csv"),
        "{objects:?}"
    );

    let (st, got) = s.json(&format!("/api/files/{id}")).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(got["name"], "Q3 año.csv");

    let r = s.get(&format!("/api/files/{id}/original")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "text/csv; charset=utf-8");
    assert_eq!(
        r.headers()["content-disposition"],
        "attachment; filename=\"Q3 a_o.csv\"; filename*=UTF-8''Q3%20a%C3%B1o.csv"
    );
    assert_eq!(r.text().await.unwrap(), CSV);

    // A processed output (written as a run writes it) is served under its own name and type.
    let out_key = server::storage::Storage::output_key(&"x".into(), "out.xlsx");
    let key = out_key.as_str().replace(
        "clients/x/",
        &format!("clients/{}/", got["clientId"].as_str().unwrap()),
    );
    let out_key = server::storage::ObjectKey::parse(&key).unwrap();
    let tmp = app.state.storage.temp_file().await.unwrap().1;
    std::fs::write(&tmp, b"PK\x03\x04 processed").unwrap();
    app.state
        .storage
        .put_file(
            &out_key,
            &tmp,
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )
        .await
        .unwrap();
    sqlx::query("UPDATE client_files SET processed_object_key = $1, processed = 1, processing_status = 'processed', savings_rwas = 1000 WHERE id = $2")
        .bind(out_key.as_str())
        .bind(&id)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let r = s.get(&format!("/api/files/{id}/processed")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        r.headers()["content-type"],
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    );
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("filename*=UTF-8''optimized_Q3%20a%C3%B1o.xlsx")
    );
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"PK\x03\x04 processed");
    assert_eq!(stored_objects(&app).len(), 2);

    // Bank B sees nothing of it; the viewer reads but cannot delete.
    let b = app.login(USER_B).await;
    assert_eq!(
        b.get(&format!("/api/files/{id}")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        b.get(&format!("/api/files/{id}/original")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        b.get(&format!("/api/files/{id}/processed")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        delete(&b, &format!("/api/files/{id}")).await,
        StatusCode::NOT_FOUND
    );
    let (_, blist) = b.json("/api/files").await;
    assert_eq!(blist.as_array().unwrap().len(), 0);
    let viewer = app.login(VIEWER).await;
    assert_eq!(
        viewer.get(&format!("/api/files/{id}")).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        delete(&viewer, &format!("/api/files/{id}")).await,
        StatusCode::FORBIDDEN
    );
    let (st, _) = upload(&viewer, "v.csv", CSV.as_bytes().to_vec()).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    assert_eq!(stored_objects(&app).len(), 2);

    // Deleting removes the row and both objects.
    assert_eq!(
        delete(&s, &format!("/api/files/{id}")).await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        s.get(&format!("/api/files/{id}")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert!(
        stored_objects(&app).is_empty(),
        "{:?}",
        stored_objects(&app)
    );
}

#[tokio::test]
async fn list_filters() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let (_, levers) = s.json("/api/levers").await;
    let pse = levers
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["code"] == "pse")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, _) = upload(&s, "alpha.csv", CSV.as_bytes().to_vec()).await;
    assert_eq!(st, StatusCode::CREATED);
    let (st, _) = upload_to(
        &s,
        "/api/files",
        "beta_PSE.csv",
        CSV.as_bytes().to_vec(),
        Some(json!({"mode": "manual", "leverId": pse, "process": false})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED);
    let (st, _) = upload(&s, "gamma.xlsx", xlsx_bytes()).await;
    assert_eq!(st, StatusCode::CREATED);
    let (st, v) = upload(&s, "report.pdf", b"%PDF-1.7\n1 0 obj\n".to_vec()).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["file"]["fileType"], "pdf");
    assert_eq!(v["file"]["status"], "uploaded");

    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, all) = s.json("/api/files").await;
    assert_eq!(
        names(&all),
        ["report.pdf", "gamma.xlsx", "beta_PSE.csv", "alpha.csv"]
    );
    let (_, v) = s.json("/api/files?q=A_p").await;
    assert_eq!(
        names(&v),
        ["beta_PSE.csv"],
        "LIKE wildcards are matched literally"
    );
    let (_, v) = s.json("/api/files?q=ALPHA").await;
    assert_eq!(names(&v), ["alpha.csv"]);
    let (_, v) = s.json(&format!("/api/files?lever={pse}")).await;
    assert_eq!(names(&v), ["beta_PSE.csv"]);
    assert_eq!(v[0]["leverName"], "Public Sector Entities (PSE)");
    let (_, v) = s.json("/api/files?lever=pse").await;
    assert_eq!(names(&v), ["beta_PSE.csv"], "by the lever's code");
    let (_, v) = s.json("/api/files?lever=none").await;
    assert_eq!(names(&v).len(), 3);
    let (_, v) = s.json("/api/files?type=xlsx").await;
    assert_eq!(names(&v), ["gamma.xlsx"]);
    let (_, v) = s.json("/api/files?processed=true").await;
    assert_eq!(names(&v).len(), 0);
    let (_, v) = s.json("/api/files?processed=false&type=csv").await;
    assert_eq!(names(&v), ["beta_PSE.csv", "alpha.csv"]);
    let today = chrono::Utc::now().date_naive();
    let (_, v) = s.json(&format!("/api/files?from={today}&to={today}")).await;
    assert_eq!(names(&v).len(), 4, "the day 'to' names is included");
    let tomorrow = today.succ_opt().unwrap();
    let (_, v) = s.json(&format!("/api/files?from={tomorrow}")).await;
    assert_eq!(names(&v).len(), 0);
    let (st, v) = s.json("/api/files?from=yesterday").await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (st, _) = s.json("/api/files?type=exe").await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    // `client` names the client as `client_id` does; another client's is refused.
    let (_, me) = s.json("/api/auth/me").await;
    let client = me["client"]["id"].as_str().unwrap();
    let (st, v) = s.json(&format!("/api/files?client={client}")).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(names(&v).len(), 4);
    let b = app.login(USER_B).await;
    let (st, _) = b.json(&format!("/api/files?client={client}")).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn inspection_stores_nothing_and_suggests_a_mapping() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let (st, v) = upload_to(
        &s,
        "/api/files/inspect",
        "pse.csv",
        CSV.as_bytes().to_vec(),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["fileName"], "pse.csv");
    assert_eq!(v["columns"].as_array().unwrap().len(), 6);
    assert_eq!(v["columns"][3]["name"], "Exposure_Amount");
    assert_eq!(v["columns"][3]["dataType"], "numeric");
    assert_eq!(v["columns"][3]["samples"], json!(["1000000", "2000000"]));
    assert_eq!(v["preview"].as_array().unwrap().len(), 2);
    assert_eq!(v["suggestedMapping"]["NIF"], "NIF");
    assert_eq!(v["suggestionScores"]["NIF"], 1.0);
    assert_eq!(v["suggestedMapping"]["Maturity"], "Maturity (days)");
    assert_eq!(v["riskWeightFormat"], "decimal");
    assert_eq!(v["maturityUnit"], "days");
    let c = &v["classification"];
    assert!(c["lever"].is_string(), "{v}");
    assert!(c["leverId"].is_string(), "{v}");
    assert!(!c["competitors"].as_array().unwrap().is_empty());
    assert!(stored_objects(&app).is_empty());
    assert_eq!(temp_files_left(&app).await, 0);
    let (_, list) = s.json("/api/files").await;
    assert_eq!(list.as_array().unwrap().len(), 0);
    // The same refusals as an upload.
    let (st, v) = upload_to(
        &s,
        "/api/files/inspect",
        "x.csv",
        b"MZ\x90\x00".to_vec(),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], "Please upload only PDF, Excel, or CSV files.");
    let viewer = app.login(VIEWER).await;
    let (st, _) = upload_to(
        &viewer,
        "/api/files/inspect",
        "pse.csv",
        CSV.as_bytes().to_vec(),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn processing_uploads_queue_a_run_and_learn_the_mapping() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let (_, levers) = s.json("/api/levers").await;
    let pse = levers
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["code"] == "pse")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Manual processing needs a lever and a mapping; refused, nothing is stored.
    let (st, v) = upload_to(
        &s,
        "/api/files",
        "a.csv",
        CSV.as_bytes().to_vec(),
        Some(json!({"mode": "manual", "leverId": null, "process": true})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], "Please select a lever before uploading.");
    let (st, v) = upload_to(
        &s,
        "/api/files",
        "a.csv",
        CSV.as_bytes().to_vec(),
        Some(json!({"mode": "manual", "leverId": pse, "process": true})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        v["message"],
        "Column mapping is required for manual processing mode."
    );
    let (st, v) = upload_to(&s, "/api/files", "a.csv", CSV.as_bytes().to_vec(),
        Some(json!({"mode": "manual", "leverId": pse, "process": true, "mapping": {"NIF": "NIF"}, "riskWeightFormat": "fraction"}))).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (st, _) = upload_to(
        &s,
        "/api/files",
        "a.csv",
        CSV.as_bytes().to_vec(),
        Some(json!({"mode": "manual", "bogus": 1})),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert!(stored_objects(&app).is_empty());

    let mapping =
        json!({"NIF": "NIF", "Exposure_Amount": "Exposure_Amount", "Maturity": "Plazo Dias"});
    let (st, v) = upload_to(&s, "/api/files", "a.csv", CSV.as_bytes().to_vec(),
        Some(json!({"mode": "manual", "leverId": pse, "process": true, "mapping": mapping, "maturityUnit": "days"}))).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["file"]["status"], "queued");
    assert_eq!(v["run"]["state"], "queued");
    assert_eq!(v["run"]["fileId"], v["file"]["id"]);
    assert_eq!(v["file"]["latestRun"]["id"], v["run"]["id"]);
    let (_, list) = s.json("/api/files").await;
    assert_eq!(list[0]["latestRun"]["id"], v["run"]["id"]);
    // The confirmed mapping was counted: a later file with a "Plazo Dias" column gets it.
    let (st, v) = upload_to(
        &s,
        "/api/files",
        "b.csv",
        CSV.as_bytes().to_vec(),
        Some(json!({"mode": "manual", "leverId": pse, "process": true, "mapping": mapping})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let (n,): (i64,) = sqlx::query_as("SELECT usage_count FROM universal_column_suggestions WHERE source_column_name = 'plazo dias' AND target_column_name = 'Maturity'")
        .fetch_one(&app.state.db.pool).await.unwrap();
    assert_eq!(n, 2);
    let other = "Cliente,Plazo Dias\nX,30\n";
    let (st, v) = upload_to(
        &s,
        "/api/files/inspect",
        "c.csv",
        other.as_bytes().to_vec(),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["suggestedMapping"]["Maturity"], "Plazo Dias", "{v}");

    // Enhanced AI: the run classifies; a PDF is stored and says plainly it cannot be processed.
    let (st, v) = upload_to(
        &s,
        "/api/files",
        "c.csv",
        CSV.as_bytes().to_vec(),
        Some(json!({"mode": "enhanced-ai", "process": true})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["run"]["mode"], "enhanced-ai");
    let (st, v) = upload_to(
        &s,
        "/api/files",
        "c2.csv",
        CSV.as_bytes().to_vec(),
        Some(json!({"mode": "enhanced-ai", "leverId": pse, "process": true})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert!(v["file"]["leverId"].is_null(), "the run classifies: {v}");
    let (st, v) = upload_to(
        &s,
        "/api/files",
        "d.pdf",
        b"%PDF-1.4\n".to_vec(),
        Some(json!({"mode": "enhanced-ai", "process": true})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert!(v["run"].is_null());
    assert_eq!(v["file"]["status"], "failed");
    assert!(
        v["file"]["processingError"]
            .as_str()
            .unwrap()
            .contains("CSV or Excel")
    );
    let inputs = stored_objects(&app)
        .into_iter()
        .filter(|k| k.contains("/input/"))
        .count();
    assert_eq!(inputs, 5);
}

#[tokio::test]
async fn templates_are_shared_by_the_team_and_walled_between_clients() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let approver = app.login(APPROVER).await;
    let r = s
        .post(
            "/api/mapping-templates",
            json!({"name": "  ", "sourceColumns": ["A"], "mapping": {"NIF": "A"}}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["message"], "Please enter a name for the template.");
    let r = s
        .post(
            "/api/mapping-templates",
            json!({"name": " Core banking export ", "sourceColumns": ["NIF", "Importe"], "mapping": {"NIF": "NIF", "Exposure_Amount": "Importe"}}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let t: Value = r.json().await.unwrap();
    assert_eq!(t["name"], "Core banking export");
    let id = t["id"].as_str().unwrap();
    let (_, list) = approver.json("/api/mapping-templates").await;
    assert_eq!(list.as_array().unwrap().len(), 1, "shared with the team");
    assert_eq!(list[0]["mapping"]["Exposure_Amount"], "Importe");
    let b = app.login(USER_B).await;
    let (_, blist) = b.json("/api/mapping-templates").await;
    assert_eq!(blist.as_array().unwrap().len(), 0);
    assert_eq!(
        delete(&b, &format!("/api/mapping-templates/{id}")).await,
        StatusCode::NOT_FOUND
    );
    let viewer = app.login(VIEWER).await;
    assert_eq!(
        delete(&viewer, &format!("/api/mapping-templates/{id}")).await,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        delete(&approver, &format!("/api/mapping-templates/{id}")).await,
        StatusCode::NO_CONTENT
    );
    let (_, list) = s.json("/api/mapping-templates").await;
    assert_eq!(list.as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn levers_and_their_columns() {
    let app = TestApp::spawn().await;
    let s = app.login(VIEWER).await;
    let (st, levers) = s.json("/api/levers").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(levers.as_array().unwrap().len(), 6);
    let by_code = |c: &str| {
        levers
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["code"] == c)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (st, cols) = s
        .json(&format!("/api/levers/{}/columns", by_code("pse")))
        .await;
    assert_eq!(st, StatusCode::OK);
    let required: Vec<&str> = cols
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["isRequired"] == true)
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(required.len(), 4, "{required:?}");
    for n in ["NIF", "Maturity", "Exposure_Amount", "Current_Risk_Weight"] {
        assert!(required.contains(&n), "{n}");
    }
    assert!(
        cols[0]["description"]
            .as_str()
            .is_some_and(|d| !d.is_empty())
    );
    // Defined columns win over the fallbacks (the lever's seeded definitions removed first).
    let mdb = by_code("mdb");
    sqlx::query("DELETE FROM lever_column_definitions WHERE lever_id = $1")
        .bind(&mdb)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO lever_column_definitions (id, lever_id, column_name, column_type, description, is_required, category, display_order, created_at, updated_at) VALUES ('d1', $1, 'LEI', 'text', 'Legal entity identifier', 1, 'core', 1, '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')")
        .bind(&mdb)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let (_, cols) = s.json(&format!("/api/levers/{mdb}/columns")).await;
    assert_eq!(
        cols,
        json!([{"name": "LEI", "description": "Legal entity identifier", "category": "core", "isRequired": true, "dataType": "text"}])
    );
    let (st, _) = s.json("/api/levers/no-such-lever/columns").await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, _) = app.client().await.json("/api/levers").await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_sweeper_removes_only_old_unreferenced_objects() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let (st, _) = upload(&s, "kept.csv", CSV.as_bytes().to_vec()).await;
    assert_eq!(st, StatusCode::CREATED);
    // An orphan (a put whose row never came), young and then old.
    let (_, me) = s.json("/api/auth/me").await;
    let client: server::ids::ClientId = me["client"]["id"].as_str().unwrap().into();
    let key = server::storage::Storage::input_key(&client, "orphan.csv");
    let tmp = app.state.storage.temp_file().await.unwrap().1;
    std::fs::write(&tmp, b"a,b\n1,2\n").unwrap();
    app.state
        .storage
        .put_file(&key, &tmp, "text/csv")
        .await
        .unwrap();
    assert_eq!(stored_objects(&app).len(), 2);
    assert_eq!(
        server::service::files::sweep_orphans(&app.state)
            .await
            .unwrap(),
        0,
        "young objects stay"
    );
    let path = app.state.config.data_dir.join("objects").join(key.as_str());
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    for p in stored_objects(&app) {
        let f = app.state.config.data_dir.join("objects").join(p);
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    assert_eq!(
        server::service::files::sweep_orphans(&app.state)
            .await
            .unwrap(),
        1
    );
    let left = stored_objects(&app);
    assert_eq!(left.len(), 1);
    assert_ne!(left[0], key.as_str());
}

#[tokio::test]
async fn a_large_upload_is_streamed_in_parts_and_read_back_whole() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    // About 7 MiB: more than one 5 MiB part on its way to storage.
    let mut csv = String::from("Exposure_ID,NIF,Exposure_Amount\n");
    let mut i = 0;
    while csv.len() < 7 * 1024 * 1024 {
        csv.push_str(&format!("E{i:08},Q2826000H,{}\n", 1000 + i));
        i += 1;
    }
    let (st, v) = upload(&s, "large.csv", csv.clone().into_bytes()).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["file"]["sizeBytes"], csv.len());
    let id = v["file"]["id"].as_str().unwrap();
    let r = s.get(&format!("/api/files/{id}/original")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        r.headers()["content-length"].to_str().unwrap(),
        csv.len().to_string()
    );
    assert!(r.bytes().await.unwrap() == csv.as_bytes());
    assert_eq!(temp_files_left(&app).await, 0);
}

#[tokio::test]
async fn administrators_manage_lever_column_definitions() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    let (_, levers) = admin.json("/api/levers").await;
    let rgla = levers
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["code"] == "rgla")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // A lever without definitions (its seeded ones removed).
    sqlx::query("DELETE FROM lever_column_definitions WHERE lever_id = $1")
        .bind(&rgla)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let path = format!("/api/levers/{rgla}/column-definitions");
    let body = json!({"name": " NIF ", "dataType": "text", "category": "core", "isRequired": true, "description": "Tax id", "displayOrder": 1});
    let r = user.post(&path, body.clone()).await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let (_, v) = crate::helpers::body(r).await;
    assert_eq!(
        v["message"],
        "Access denied: Only administrators can create/update/delete lever column definitions"
    );
    let r = admin.post(&path, body.clone()).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let (_, d) = crate::helpers::body(r).await;
    assert_eq!(d["name"], "NIF");
    let r = admin.post(&path, body).await;
    assert_eq!(r.status(), StatusCode::CONFLICT, "one NIF per lever");
    let r = admin
        .post(
            &path,
            json!({"name": "X", "dataType": "money", "category": "core"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let r = admin
        .post(&path, json!({"name": "Maturity", "dataType": "numeric", "category": "analysis", "displayOrder": 2}))
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    // Every signed-in user now reads the lever's own columns, in order.
    let (_, cols) = user.json(&format!("/api/levers/{rgla}/columns")).await;
    let names: Vec<&str> = cols
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["NIF", "Maturity"]);
    assert_eq!(cols[1]["isRequired"], false);
    // Update and delete.
    let id = d["id"].as_str().unwrap();
    let csrf = admin.cookie("capopt_csrf").unwrap_or_default();
    let r = admin
        .http
        .put(format!("{}/api/lever-column-definitions/{id}", admin.base))
        .header("x-csrf-token", &csrf)
        .json(&json!({"name": "NIF", "dataType": "text", "category": "core", "isRequired": false, "displayOrder": 5}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let (_, cols) = user.json(&format!("/api/levers/{rgla}/columns")).await;
    assert_eq!(cols[1]["name"], "NIF");
    // No required definition left: the engine requires the specification's RGLA set, NIF
    // among them, and the dialog says so.
    assert_eq!(cols[1]["isRequired"], true);
    assert_eq!(cols[0]["isRequired"], false);
    assert_eq!(
        delete(&admin, &format!("/api/lever-column-definitions/{id}")).await,
        StatusCode::NO_CONTENT
    );
    let (_, defs) = admin.json(&path).await;
    assert_eq!(defs.as_array().unwrap().len(), 1);
    // Every signed-in user reads them.
    assert_eq!(user.get(&path).await.status(), StatusCode::OK);
}

/// The six levers come with the migrations: a database without the demo data has them, and the
/// demo data then reuses them rather than writing a second set.
#[tokio::test]
async fn the_six_levers_exist_without_demo_data_and_the_demo_reuses_them() {
    let dir = crate::helpers::tempdir::TempDir::new();
    let url = crate::helpers::fresh_database_url(&dir.0).await;
    let state = server::build_state(server::config::Config::for_tests(dir.0.clone(), url))
        .await
        .expect("state");
    let codes = |rows: &[server::db::clients::LeverRow]| {
        let mut c: Vec<String> = rows.iter().filter_map(|l| l.code.clone()).collect();
        c.sort();
        c
    };
    let before = server::db::clients::levers(&state.db.pool).await.unwrap();
    assert_eq!(
        codes(&before),
        [
            "corporates",
            "institutions",
            "mdb",
            "pse",
            "rgla",
            "sovereigns"
        ]
    );
    server::seed::seed_demo(&state, "Demo-Password-1")
        .await
        .unwrap();
    let after = server::db::clients::levers(&state.db.pool).await.unwrap();
    assert_eq!(after.len(), 6, "no second set");
    assert_eq!(
        before.iter().map(|l| &l.id).collect::<Vec<_>>(),
        after.iter().map(|l| &l.id).collect::<Vec<_>>()
    );
}
