//! A report's data and media: uploads of each type (CSV, XLSX, XLS, PNG, JPG) measured, listed
//! for every co-editor and announced live, tables served as columns and rows a page at a time,
//! images served to the report's readers only; hostile uploads refused with nothing stored;
//! viewers and other clients' users refused; deletion of an item and of its report removing the
//! objects; and the client's own processing results as data sources, against hand-computed
//! figures (the demo's savings history, and the PSE hand file of the insights tests).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;
use crate::insights::HAND_PSE;
use crate::realtime::Ws;

async fn client_of(s: &Session) -> String {
    let (_, me) = s.json("/api/auth/me").await;
    me["client"]["id"].as_str().expect("a client").to_string()
}

async fn new_report(s: &Session, client: &str, name: &str) -> String {
    let (st, v) = send(
        s,
        Method::POST,
        "/api/reports",
        Some(json!({"name": name, "client_id": client})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    v["id"].as_str().unwrap().to_string()
}

pub(crate) async fn upload(
    s: &Session,
    report: &str,
    name: &str,
    bytes: Vec<u8>,
) -> (StatusCode, Value) {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()),
    );
    body(
        s.http
            .post(format!("{}/api/reports/{report}/media", s.base))
            .header("x-csrf-token", csrf)
            .multipart(form)
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// Keys stored under `reports/` in the test server's local storage.
fn media_objects(app: &TestApp) -> Vec<String> {
    let root = app.state.config.data_dir.join("objects").join("reports");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            out.push(f.path().to_string_lossy().into_owned());
        }
    }
    out
}

async fn media_rows_in_db(app: &TestApp) -> i64 {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM report_media")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    n
}

/// A PNG's signature and header chunk (enough to be recognised).
pub(crate) fn png() -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0".to_vec();
    v.extend([0x1f, 0x15, 0xc4, 0x89]);
    v
}

fn jpg() -> Vec<u8> {
    [
        &[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10][..],
        b"JFIF\0",
        &[0u8; 64],
    ]
    .concat()
}

/// A workbook with a sheet named "Savings": Lever, Q1, Q2 and 30 data rows.
fn xlsx_bytes() -> Vec<u8> {
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet();
    ws.set_name("Savings").unwrap();
    ws.write_string(0, 0, "Lever").unwrap();
    ws.write_string(0, 1, "Q1").unwrap();
    ws.write_string(0, 2, "Q2").unwrap();
    for i in 1..=30u32 {
        ws.write_string(i, 0, format!("Lever {i}")).unwrap();
        ws.write_number(i, 1, f64::from(i) * 1000.0).unwrap();
        ws.write_number(i, 2, f64::from(i) * 1500.5).unwrap();
    }
    wb.save_to_buffer().unwrap()
}

/// A one-sheet Excel 97-2003 workbook: `Month`, `RWA` and two rows (a BIFF8 stream in a
/// compound file, as `analysis/tests/hostile_xlsx.rs` builds them).
fn xls_bytes() -> Vec<u8> {
    fn rec(typ: u16, data: &[u8]) -> Vec<u8> {
        let mut v = typ.to_le_bytes().to_vec();
        v.extend((data.len() as u16).to_le_bytes());
        v.extend(data);
        v
    }
    fn cell(row: u16, col: u16) -> Vec<u8> {
        [row.to_le_bytes(), col.to_le_bytes(), 0u16.to_le_bytes()].concat()
    }
    let label = |row: u16, col: u16, s: &str| {
        let mut d = cell(row, col);
        d.extend((s.len() as u16).to_le_bytes());
        d.push(0);
        d.extend(s.as_bytes());
        rec(0x0204, &d)
    };
    let number = |row: u16, col: u16, v: f64| {
        let mut d = cell(row, col);
        d.extend(v.to_le_bytes());
        rec(0x0203, &d)
    };
    let bof = |dt: u16| {
        let mut d = vec![0u8; 16];
        d[0..2].copy_from_slice(&0x0600u16.to_le_bytes());
        d[2..4].copy_from_slice(&dt.to_le_bytes());
        rec(0x0809, &d)
    };
    let mut stream = bof(0x0005);
    let sheet_rec_at = stream.len();
    stream.extend(rec(0x0085, &[0, 0, 0, 0, 0, 0, 1, 0, b'S']));
    stream.extend(rec(0x000A, &[]));
    let pos = stream.len() as u32;
    stream[sheet_rec_at + 4..sheet_rec_at + 8].copy_from_slice(&pos.to_le_bytes());
    stream.extend(bof(0x0010));
    for c in [
        label(0, 0, "Month"),
        label(0, 1, "RWA"),
        label(1, 0, "Jan"),
        number(1, 1, 10.5),
        label(2, 0, "Feb"),
        number(2, 1, 20.0),
    ] {
        stream.extend(c);
    }
    stream.extend(rec(0x000A, &[]));
    stream.resize(8192, 0);
    let n = stream.len().div_ceil(512) as u32;
    let mut h = vec![0u8; 512];
    h[..8].copy_from_slice(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1");
    h[24..26].copy_from_slice(&0x003Eu16.to_le_bytes());
    h[26..28].copy_from_slice(&3u16.to_le_bytes());
    h[28..30].copy_from_slice(&0xFFFEu16.to_le_bytes());
    h[30..32].copy_from_slice(&9u16.to_le_bytes());
    h[32..34].copy_from_slice(&6u16.to_le_bytes());
    h[44..48].copy_from_slice(&1u32.to_le_bytes());
    h[48..52].copy_from_slice(&1u32.to_le_bytes());
    h[56..60].copy_from_slice(&4096u32.to_le_bytes());
    h[60..64].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
    h[68..72].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
    for i in 1..109 {
        h[76 + 4 * i..80 + 4 * i].copy_from_slice(&0xFFFF_FFFFu32.to_le_bytes());
    }
    let mut fat = vec![0xFFFF_FFFDu32, 0xFFFF_FFFE];
    for i in 0..n {
        fat.push(if i + 1 == n { 0xFFFF_FFFE } else { 3 + i });
    }
    fat.resize(128, 0xFFFF_FFFF);
    let mut out = h;
    out.extend(fat.iter().flat_map(|v| v.to_le_bytes()));
    let entry = |name: &str, typ: u8, start: u32, size: u32| {
        let mut e = vec![0u8; 128];
        let units: Vec<u16> = name.encode_utf16().collect();
        for (i, u) in units.iter().enumerate() {
            e[2 * i..2 * i + 2].copy_from_slice(&u.to_le_bytes());
        }
        e[64..66].copy_from_slice(&((units.len() as u16 + 1) * 2).to_le_bytes());
        e[66] = typ;
        e[68..80].copy_from_slice(&[0xFF; 12]);
        e[116..120].copy_from_slice(&start.to_le_bytes());
        e[120..124].copy_from_slice(&size.to_le_bytes());
        e
    };
    out.extend(entry("Root Entry", 5, 0xFFFF_FFFE, 0));
    out.extend(entry("Workbook", 2, 2, stream.len() as u32));
    out.extend(vec![0u8; 256]);
    out.extend(&stream);
    out.resize(512 + 512 * (2 + n as usize), 0);
    out
}

/// A zip bomb dressed as a workbook (a sheet of 600 MiB of spaces).
fn zip_bomb_xlsx() -> Vec<u8> {
    use std::io::Write;
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
        let spaces = vec![b' '; 1024 * 1024];
        for _ in 0..600 {
            z.write_all(&spaces).unwrap();
        }
        z.finish().unwrap();
    }
    buf.into_inner()
}

#[tokio::test]
async fn uploads_of_each_type_are_measured_listed_served_and_announced() {
    let app = TestApp::spawn().await;
    let alice = app.login(USER_A).await;
    let client = client_of(&alice).await;
    let report = new_report(&alice, &client, "Media report").await;
    // A colleague's editor listens on the client's reports topic.
    let colleague = app.login(APPROVER).await;
    let mut ws = Ws::connect(&colleague).await;
    ws.subscribe(&[&format!("client:{client}:reports")]).await;

    let csv = "Month;Savings (EUR);Note\nJan;1.234,50;first\nFeb;2.000;\nMar;n/a;third\n";
    let (st, c) = upload(&alice, &report, "Q1 savings.csv", csv.as_bytes().to_vec()).await;
    assert_eq!(st, StatusCode::CREATED, "{c}");
    assert_eq!(
        (
            c["kind"].as_str(),
            c["rowCount"].as_i64(),
            c["columnCount"].as_i64()
        ),
        (Some("csv"), Some(3), Some(3))
    );
    assert_eq!(c["headers"], json!(["Month", "Savings (EUR)", "Note"]));
    assert_eq!(c["name"], "Q1 savings.csv");
    let csv_id = c["id"].as_str().unwrap().to_string();
    let event = ws
        .next_json(Duration::from_secs(5))
        .await
        .expect("an event");
    assert_eq!(event["type"], "report.media.created");
    assert_eq!(
        event["data"],
        json!({"reportId": report, "mediaId": csv_id})
    );

    let (st, x) = upload(&alice, &report, "book.xlsx", xlsx_bytes()).await;
    assert_eq!(st, StatusCode::CREATED, "{x}");
    assert_eq!(
        (
            x["kind"].as_str(),
            x["sheet"].as_str(),
            x["rowCount"].as_i64(),
            x["columnCount"].as_i64()
        ),
        (Some("excel"), Some("Savings"), Some(30), Some(3))
    );
    let (st, l) = upload(&alice, &report, "old.xls", xls_bytes()).await;
    assert_eq!(st, StatusCode::CREATED, "{l}");
    assert_eq!(
        (l["fileType"].as_str(), l["rowCount"].as_i64()),
        (Some("xls"), Some(2))
    );
    let (st, p) = upload(&alice, &report, "logo.png", png()).await;
    assert_eq!(st, StatusCode::CREATED, "{p}");
    assert_eq!(
        (p["kind"].as_str(), p["rowCount"].as_i64()),
        (Some("image"), Some(0))
    );
    let png_id = p["id"].as_str().unwrap().to_string();
    assert_eq!(p["url"], format!("/api/reports/{report}/media/{png_id}"));
    let (st, j) = upload(&alice, &report, "photo.JPEG", jpg()).await;
    assert_eq!(st, StatusCode::CREATED, "{j}");
    assert_eq!(
        (j["fileType"].as_str(), j["contentType"].as_str()),
        (Some("jpg"), Some("image/jpeg"))
    );

    // Every co-editor lists the same items, oldest first.
    let (st, list) = colleague
        .json(&format!("/api/reports/{report}/media"))
        .await;
    assert_eq!(st, StatusCode::OK);
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Q1 savings.csv",
            "book.xlsx",
            "old.xls",
            "logo.png",
            "photo.JPEG"
        ]
    );
    // Keys are the server's, never the user's name.
    let keys = media_objects(&app);
    assert_eq!(keys.len(), 5);
    assert!(
        keys.iter()
            .all(|k| !k.contains("savings") && !k.contains("logo")),
        "{keys:?}"
    );

    // Rows: numbers as numbers (the column's decimal comma), text as text, blanks as null.
    let (st, rows) = colleague
        .json(&format!("/api/reports/{report}/media/{csv_id}/rows"))
        .await;
    assert_eq!(st, StatusCode::OK, "{rows}");
    assert_eq!(rows["columns"], json!(["Month", "Savings (EUR)", "Note"]));
    assert_eq!(
        rows["rows"],
        json!([
            ["Jan", 1234.5, "first"],
            ["Feb", 2000.0, null],
            ["Mar", "n/a", "third"]
        ])
    );
    assert_eq!(rows["totalRows"], 3);
    // Paged.
    let xlsx_id = x["id"].as_str().unwrap();
    let (_, page) = alice
        .json(&format!(
            "/api/reports/{report}/media/{xlsx_id}/rows?offset=25&limit=10"
        ))
        .await;
    assert_eq!(page["offset"], 25);
    assert_eq!(page["rows"].as_array().unwrap().len(), 5);
    assert_eq!(page["rows"][0], json!(["Lever 26", 26000.0, 26.0 * 1500.5]));
    let (_, first) = alice
        .json(&format!(
            "/api/reports/{report}/media/{xlsx_id}/rows?limit=5000"
        ))
        .await;
    assert_eq!(first["rows"].as_array().unwrap().len(), 30);
    let xls_id = l["id"].as_str().unwrap();
    let (_, xls_rows) = alice
        .json(&format!("/api/reports/{report}/media/{xls_id}/rows"))
        .await;
    assert_eq!(xls_rows["rows"], json!([["Jan", 10.5], ["Feb", 20.0]]));

    // The image is served inline with its type to the report's readers.
    let r = colleague
        .get(&format!("/api/reports/{report}/media/{png_id}"))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(r.headers()["x-content-type-options"], "nosniff");
    assert!(r.headers().get("content-disposition").is_none());
    assert_eq!(r.bytes().await.unwrap().to_vec(), png());
    // A data file downloads as an attachment under its name.
    let r = colleague
        .get(&format!("/api/reports/{report}/media/{csv_id}"))
        .await;
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment;")
    );
    // An image has no rows.
    let (st, _) = colleague
        .json(&format!("/api/reports/{report}/media/{png_id}/rows"))
        .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);

    // Delete: the row, the object, the event.
    let (st, _) = send(
        &alice,
        Method::DELETE,
        &format!("/api/reports/{report}/media/{png_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    loop {
        let e = ws
            .next_json(Duration::from_secs(5))
            .await
            .expect("an event");
        if e["type"] == "report.media.deleted" {
            assert_eq!(e["data"]["mediaId"], png_id.as_str());
            break;
        }
    }
    assert_eq!(media_objects(&app).len(), 4);
    let (st, _) = colleague
        .json(&format!("/api/reports/{report}/media/{png_id}"))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);

    // Deleting the report removes its media and their objects.
    let (st, _) = send(
        &alice,
        Method::DELETE,
        &format!("/api/reports/{report}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    assert_eq!(media_rows_in_db(&app).await, 0);
    assert!(media_objects(&app).is_empty());
}

#[tokio::test]
async fn hostile_uploads_are_refused_cleanly_and_store_nothing() {
    let app = TestApp::spawn_with(|c| c.max_upload_mb = 1).await;
    let alice = app.login(USER_A).await;
    let client = client_of(&alice).await;
    let report = new_report(&alice, &client, "Hostile").await;
    let too_many = "Images must be smaller than 10MB";
    let cases: Vec<(&str, Vec<u8>, StatusCode, &str)> = vec![
        // An image that is not one.
        (
            "chart.png",
            b"<svg xmlns='http://www.w3.org/2000/svg'><script/></svg>".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload an Excel (.xlsx, .xls) or CSV file, or a PNG, JPG, GIF or WebP image.",
        ),
        (
            "photo.jpg",
            png(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload an Excel (.xlsx, .xls) or CSV file, or a PNG, JPG, GIF or WebP image.",
        ),
        (
            "program.png",
            b"MZ\x90\x00\x03\x00\x00\x00".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload an Excel (.xlsx, .xls) or CSV file, or a PNG, JPG, GIF or WebP image.",
        ),
        (
            "drawing.svg",
            b"<svg/>".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload an Excel (.xlsx, .xls) or CSV file, or a PNG, JPG, GIF or WebP image.",
        ),
        (
            "report.pdf",
            b"%PDF-1.7\n".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload an Excel (.xlsx, .xls) or CSV file, or a PNG, JPG, GIF or WebP image.",
        ),
        (
            "text.xlsx",
            b"a,b\n1,2\n".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload an Excel (.xlsx, .xls) or CSV file, or a PNG, JPG, GIF or WebP image.",
        ),
        // Oversized: an image over 10 MB (refused while received: the bound is the larger of the
        // two, so this one is read and refused by its type's bound) and a table over MAX_UPLOAD_MB.
        (
            "huge.png",
            [png(), vec![0u8; 10 * 1024 * 1024]].concat(),
            StatusCode::PAYLOAD_TOO_LARGE,
            too_many,
        ),
        (
            "big.csv",
            format!("a,b\n{}", "1,2\n".repeat(300_000)).into_bytes(),
            StatusCode::PAYLOAD_TOO_LARGE,
            "File too large",
        ),
        // A spreadsheet bomb.
        (
            "bomb.xlsx",
            zip_bomb_xlsx(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "",
        ),
        // Empty tables and broken CSV, with the panel's messages.
        (
            "empty.csv",
            Vec::new(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "No data found in CSV file",
        ),
        (
            "headers.csv",
            b"a,b\n".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "No data found in CSV file",
        ),
        (
            "empty.xlsx",
            Vec::new(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "No data found in Excel file",
        ),
        (
            "broken.csv",
            b"a,b\n\"1,2\n".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "CSV parsing error: ",
        ),
    ];
    for (name, bytes, status, message) in cases {
        let (st, v) = upload(&alice, &report, name, bytes).await;
        assert_eq!(st, status, "{name}: {v}");
        assert!(v["code"].is_string(), "{name}: {v}");
        assert!(
            v["message"]
                .as_str()
                .unwrap_or_default()
                .starts_with(message),
            "{name}: {v}"
        );
    }
    // Not two files, not another field.
    let csrf = alice.cookie("capopt_csrf").unwrap_or_default();
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"a\n1\n".to_vec()).file_name("a.csv"),
        )
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"a\n1\n".to_vec()).file_name("b.csv"),
        );
    let r = alice
        .http
        .post(format!("{}/api/reports/{report}/media", alice.base))
        .header("x-csrf-token", csrf)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(media_rows_in_db(&app).await, 0);
    assert!(media_objects(&app).is_empty());
}

#[tokio::test]
async fn viewers_read_only_and_other_clients_see_nothing() {
    let app = TestApp::spawn().await;
    let alice = app.login(USER_A).await;
    let client = client_of(&alice).await;
    let report = new_report(&alice, &client, "Walls").await;
    let (_, m) = upload(&alice, &report, "a.csv", b"x,y\nA,1\n".to_vec()).await;
    let media = m["id"].as_str().unwrap().to_string();
    let viewer = app.login(VIEWER).await;
    let (st, list) = viewer.json(&format!("/api/reports/{report}/media")).await;
    assert_eq!(
        (st, list.as_array().map(Vec::len)),
        (StatusCode::OK, Some(1))
    );
    let (st, _) = upload(&viewer, &report, "b.csv", b"x,y\nB,2\n".to_vec()).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = send(
        &viewer,
        Method::DELETE,
        &format!("/api/reports/{report}/media/{media}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);

    let bob = app.login(USER_B).await;
    for path in [
        format!("/api/reports/{report}/media"),
        format!("/api/reports/{report}/media/{media}"),
        format!("/api/reports/{report}/media/{media}/rows"),
        format!("/api/reports/{report}/datasets"),
        format!("/api/reports/{report}/datasets/savings_by_lever"),
    ] {
        let (st, v) = bob.json(&path).await;
        assert_eq!(st, StatusCode::NOT_FOUND, "{path}: {v}");
        assert!(!v.to_string().contains(&client), "{path}: {v}");
    }
    let (st, _) = upload(&bob, &report, "c.csv", b"x,y\nC,3\n".to_vec()).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, _) = send(
        &bob,
        Method::DELETE,
        &format!("/api/reports/{report}/media/{media}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    // Bob's own report does not reach Alice's item either.
    let bob_client = client_of(&bob).await;
    let bob_report = new_report(&bob, &bob_client, "Bob's").await;
    let (st, _) = bob
        .json(&format!("/api/reports/{bob_report}/media/{media}"))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, _) = send(
        &bob,
        Method::DELETE,
        &format!("/api/reports/{bob_report}/media/{media}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    // Anonymous.
    let anon = app.client().await;
    assert_eq!(
        anon.get(&format!("/api/reports/{report}/media/{media}"))
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(media_rows_in_db(&app).await, 1);
}

fn column<'v>(table: &'v Value, row_key: &str) -> &'v Value {
    table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == row_key)
        .unwrap_or_else(|| panic!("no row {row_key} in {table}"))
}

#[tokio::test]
async fn client_datasets_are_the_clients_own_figures() {
    let app = TestApp::spawn().await;
    let alice = app.login(USER_A).await;
    let client = client_of(&alice).await;
    let report = new_report(&alice, &client, "Figures").await;
    let (st, list) = alice.json(&format!("/api/reports/{report}/datasets")).await;
    assert_eq!(st, StatusCode::OK);
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["savings_by_lever", "savings_by_month"],
        "no run yet"
    );

    // The demo's Bank A: lever i (PSE 9.5M, RGLA 6.2M, MDB 2.1M, corporates 4.8M a month)
    // starts in month 2i of twelve; the current month is the twelfth.
    let (_, levers) = alice
        .json(&format!("/api/reports/{report}/datasets/savings_by_lever"))
        .await;
    assert_eq!(
        levers["columns"],
        json!([
            "Lever",
            "Category",
            "RWA savings",
            "Previous month RWA savings"
        ])
    );
    assert_eq!(
        column(&levers, "Public Sector Entities (PSE)"),
        &json!([
            "Public Sector Entities (PSE)",
            "Assets",
            114_000_000.0,
            104_500_000.0
        ])
    );
    assert_eq!(
        column(&levers, "Multilateral Development Banks (MDB)")[2],
        16_800_000.0
    );
    assert_eq!(
        column(&levers, "Corporates with Eligible Collateral")[3],
        24_000_000.0
    );
    assert_eq!(column(&levers, "Sovereigns")[2], 0.0);
    let (_, months) = alice
        .json(&format!("/api/reports/{report}/datasets/savings_by_month"))
        .await;
    let rows = months["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    assert_eq!(rows[0][1], 9_500_000.0);
    assert_eq!(rows[11][1], 221_600_000.0);
    // Growth of the second month: (9.5M x 2 + 0) / 9.5M - 1 = 100 %.
    assert_eq!(rows[1][3], 100.0);

    // A processed file adds its run's breakdowns; the figures are the hand file's.
    let file = crate::runs::stored_file(&app, &client, "hand-pse.csv", HAND_PSE.as_bytes()).await;
    let run = crate::runs::queue(
        &app,
        &client,
        &file,
        server::service::runs::RunMode::Manual,
        Some("lever-pse"),
    )
    .await;
    let done = crate::runs::wait_final(&alice, &run, 60).await;
    assert_eq!(done["state"], "completed", "{done}");
    let (_, list) = alice.json(&format!("/api/reports/{report}/datasets")).await;
    let maturity = format!("run:{run}:maturity");
    let entry = list
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == maturity.as_str())
        .unwrap_or_else(|| panic!("{maturity} in {list}"));
    assert_eq!(entry["label"], "hand-pse.csv: savings by maturity");
    let (st, m) = alice
        .json(&format!(
            "/api/reports/{report}/datasets/{}",
            maturity.replace(':', "%3A")
        ))
        .await;
    assert_eq!(st, StatusCode::OK, "{m}");
    assert_eq!(
        m["columns"],
        json!([
            "Group",
            "Rows",
            "Exposure",
            "RWA before",
            "RWA after",
            "RWA saving"
        ])
    );
    // ADIF 1,000,000 at 100 % -> 50 % and the bad NIF's 250,000 (not matched) are 1-5 years;
    // AEAT 500,000 at 100 % -> 20 % is <= 3 months.
    assert_eq!(
        column(&m, "1-5 years"),
        &json!([
            "1-5 years",
            2.0,
            1_250_000.0,
            1_250_000.0,
            750_000.0,
            500_000.0
        ])
    );
    assert_eq!(
        column(&m, "<= 3 months"),
        &json!([
            "<= 3 months",
            1.0,
            500_000.0,
            500_000.0,
            100_000.0,
            400_000.0
        ])
    );
    // The savings follow the run: the current month is now the file's 900,000 of PSE.
    let (_, levers) = alice
        .json(&format!("/api/reports/{report}/datasets/savings_by_lever"))
        .await;
    assert_eq!(
        column(&levers, "Public Sector Entities (PSE)")[2],
        900_000.0
    );
    // Unknown names.
    for bad in ["nope", "run:nope:maturity", &format!("run:{run}:nope")] {
        let (st, v) = alice
            .json(&format!(
                "/api/reports/{report}/datasets/{}",
                bad.replace(':', "%3A")
            ))
            .await;
        assert_eq!(st, StatusCode::NOT_FOUND, "{bad}: {v}");
    }
    // Another client's report does not see this client's run.
    let bob = app.login(USER_B).await;
    let bob_client = client_of(&bob).await;
    let bob_report = new_report(&bob, &bob_client, "Bob's").await;
    let (st, _) = bob
        .json(&format!(
            "/api/reports/{bob_report}/datasets/{}",
            maturity.replace(':', "%3A")
        ))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (_, bob_list) = bob
        .json(&format!("/api/reports/{bob_report}/datasets"))
        .await;
    assert!(!bob_list.to_string().contains(&run));
}
