//! The object storage, the same suite over a local directory and a real S3-compatible server
//! (`make test-storage-s3` starts moto's server and sets `S3_TEST_ENDPOINT`): put and get,
//! streamed reads, write-once (a second write of a key refused), a 12 MiB multipart write read
//! back byte for byte, delete, and the orphan sweeper.

use std::collections::HashSet;
use std::time::Duration;

use server::ids::ClientId;
use server::storage::{ObjectKey, S3Settings, Storage, StorageError};

fn temp_dir() -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("capopt-storage-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// Deterministic pseudo-random bytes (incompressible, so a multipart write really has parts).
fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

async fn put(storage: &Storage, key: &ObjectKey, data: &[u8]) -> Result<u64, StorageError> {
    let tmp = storage.temp_file().await.unwrap().1;
    std::fs::write(&tmp, data).unwrap();
    storage.put_file(key, &tmp, "text/csv").await
}

async fn suite(storage: Storage) {
    let client: ClientId = uuid::Uuid::new_v4().to_string().into();

    // Put, get whole, get streamed, exists.
    let key = Storage::input_key(&client, "book.csv");
    assert!(
        key.as_str()
            .starts_with(&format!("clients/{client}/input/"))
    );
    assert!(key.as_str().ends_with(".csv"));
    let small = b"NIF,Exposure_Amount\nQ2826000H,1000\n".to_vec();
    assert_eq!(
        put(&storage, &key, &small).await.unwrap(),
        small.len() as u64
    );
    assert_eq!(storage.get_bytes(&key).await.unwrap().as_ref(), &small[..]);
    let (size, mut stream) = storage.get_stream(&key).await.unwrap();
    assert_eq!(size, small.len() as u64);
    let mut streamed = Vec::new();
    while let Some(chunk) = futures_util::StreamExt::next(&mut stream).await {
        streamed.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(streamed, small);
    assert!(storage.exists(&key).await.unwrap());

    // Write-once: the second write of the same key is refused and the object is unchanged.
    let again = put(&storage, &key, b"something else").await;
    assert!(
        matches!(again, Err(StorageError::AlreadyExists(_))),
        "{again:?}"
    );
    assert_eq!(storage.get_bytes(&key).await.unwrap().as_ref(), &small[..]);

    // 12 MiB: a multipart write of three parts, read back through a temporary file.
    let big_key = Storage::output_key(&client, "optimized_book.xlsx");
    assert!(big_key.as_str().contains("/output/"));
    let big = bytes(12 * 1024 * 1024, 7);
    assert_eq!(
        put(&storage, &big_key, &big).await.unwrap(),
        big.len() as u64
    );
    let copy = storage.input_to_temp(&big_key).await.unwrap();
    assert!(
        std::fs::read(&copy).unwrap() == big,
        "the 12 MiB object reads back as written"
    );
    drop(copy);
    let twice = put(&storage, &big_key, &big[..6 * 1024 * 1024]).await;
    assert!(
        matches!(twice, Err(StorageError::AlreadyExists(_))),
        "{twice:?}"
    );

    let keys = storage.list_keys().await.unwrap();
    assert!(keys.contains(&key.as_str().to_string()), "{keys:?}");
    assert!(keys.contains(&big_key.as_str().to_string()), "{keys:?}");

    // Delete (twice is fine); a read of a missing object is NotFound.
    storage.delete(&big_key).await.unwrap();
    storage.delete(&big_key).await.unwrap();
    assert!(!storage.exists(&big_key).await.unwrap());
    assert!(matches!(
        storage.get_stream(&big_key).await,
        Err(StorageError::NotFound(_))
    ));

    // The sweeper removes old objects no row names, and only those.
    let orphan = Storage::input_key(&client, "orphan.csv");
    put(&storage, &orphan, b"a\n1\n").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let kept = key.as_str().to_string();
    let removed = storage
        .sweep_orphans(Duration::from_secs(3600), |_| async { Ok(HashSet::new()) })
        .await
        .unwrap();
    assert_eq!(removed, 0, "objects younger than the age are kept");
    let removed = storage
        .sweep_orphans(Duration::ZERO, move |batch| {
            let kept = kept.clone();
            async move { Ok(batch.into_iter().filter(|k| *k == kept).collect()) }
        })
        .await
        .unwrap();
    assert!(removed >= 1);
    assert!(
        storage.exists(&key).await.unwrap(),
        "a referenced object stays"
    );
    assert!(
        !storage.exists(&orphan).await.unwrap(),
        "the orphan is gone"
    );
    storage.delete(&key).await.unwrap();

    // Keys read back from rows must be ones the storage generates.
    for bad in [
        "../etc/passwd",
        "clients/x/input/../../y",
        "clients/x/other/a.csv",
        "/abs",
    ] {
        assert!(ObjectKey::parse(bad).is_err(), "{bad}");
    }
    assert!(ObjectKey::parse(key.as_str()).is_ok());
}

/// A temporary file's path removes the file when dropped (on the blocking pool inside a runtime),
/// and the sweeper removes temporary files left over from a stopped process, not recent ones.
#[tokio::test]
async fn temporary_files_are_removed_on_drop_and_stale_ones_swept() {
    let root = temp_dir();
    let storage = Storage::local(&root.join("objects"), root.join("tmp")).unwrap();
    let (_, path) = storage.temp_file().await.unwrap();
    let p = path.to_path_buf();
    assert!(p.is_file());
    drop(path);
    let gone = tokio::time::timeout(Duration::from_secs(10), async {
        while p.exists() {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(gone.is_ok(), "the dropped temporary file is still there");

    let stale = root.join("tmp").join("capopt-left-over");
    std::fs::write(&stale, b"partial").unwrap();
    let day_ago = std::time::SystemTime::now() - Duration::from_secs(25 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(day_ago)
        .unwrap();
    let (_, fresh) = storage.temp_file().await.unwrap();
    assert_eq!(
        storage
            .sweep_temp(server::storage::TEMP_MAX_AGE)
            .await
            .unwrap(),
        1
    );
    assert!(!stale.exists());
    assert!(fresh.is_file(), "a file in use is kept");
}

#[tokio::test]
async fn local_storage() {
    let dir = temp_dir();
    let storage = Storage::local(&dir.join("objects"), dir.join("tmp")).unwrap();
    suite(storage).await;
    let _ = std::fs::remove_dir_all(dir);
}

/// Against a real S3-compatible server at `S3_TEST_ENDPOINT` (`make test-storage-s3`); skipped
/// without it.
#[tokio::test]
#[ignore = "needs an S3-compatible server: make test-storage-s3"]
async fn s3_storage() {
    let Ok(endpoint) = std::env::var("S3_TEST_ENDPOINT") else {
        eprintln!("S3_TEST_ENDPOINT is not set: the S3 suite did not run");
        return;
    };
    let bucket = format!("capopt-test-{}", uuid::Uuid::new_v4().simple());
    // moto creates buckets on an unsigned PUT.
    let r = reqwest::Client::new()
        .put(format!("{}/{bucket}", endpoint.trim_end_matches('/')))
        .send()
        .await
        .expect("the S3 test server answers");
    assert!(r.status().is_success(), "create bucket: {}", r.status());
    let dir = temp_dir();
    let storage = Storage::s3(
        &S3Settings {
            bucket,
            endpoint: Some(endpoint),
            region: Some("us-east-1".into()),
            access_key_id: Some("testing".into()),
            secret_access_key: Some("testing".into()),
        },
        dir.join("tmp"),
    )
    .unwrap();
    suite(storage).await;
    let _ = std::fs::remove_dir_all(dir);
}

/// A server whose files live in a fresh bucket of the S3-compatible server at `S3_TEST_ENDPOINT`;
/// `None` (the test is skipped) without it.
async fn s3_app(what: &str) -> Option<crate::helpers::TestApp> {
    let Ok(endpoint) = std::env::var("S3_TEST_ENDPOINT") else {
        eprintln!("S3_TEST_ENDPOINT is not set: the S3 {what} test did not run");
        return None;
    };
    let bucket = format!("capopt-api-{}", uuid::Uuid::new_v4().simple());
    let r = reqwest::Client::new()
        .put(format!("{}/{bucket}", endpoint.trim_end_matches('/')))
        .send()
        .await
        .expect("the S3 test server answers");
    assert!(r.status().is_success());
    let app = crate::helpers::TestApp::spawn_with(|c| {
        c.s3_bucket = Some(bucket.clone());
        c.s3_endpoint = Some(endpoint.clone());
        c.s3_region = Some("us-east-1".into());
        c.s3_access_key_id = Some("testing".into());
        c.s3_secret_access_key = Some("testing".into());
    })
    .await;
    assert!(matches!(
        app.state.storage.backend(),
        server::storage::Backend::S3 { .. }
    ));
    Some(app)
}

/// Uploads, downloads and deletes through the API with the server's files in S3 (`make
/// test-storage-s3`); skipped without `S3_TEST_ENDPOINT`.
#[tokio::test]
#[ignore = "needs an S3-compatible server: make test-storage-s3"]
async fn s3_upload_download_and_delete_through_the_api() {
    use crate::helpers::*;
    let Some(app) = s3_app("API").await else {
        return;
    };
    let s = app.login(USER_A).await;
    let csv = "NIF,Exposure_Amount\nQ2826000H,1000\n";
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(csv.as_bytes().to_vec()).file_name("s3.csv"),
    );
    let r = s
        .http
        .post(format!("{}/api/files", s.base))
        .header("x-csrf-token", &csrf)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let (st, v) = body(r).await;
    assert_eq!(st, reqwest::StatusCode::CREATED, "{v}");
    let id = v["file"]["id"].as_str().unwrap();
    assert_eq!(app.state.storage.list_keys().await.unwrap().len(), 1);
    let r = s.get(&format!("/api/files/{id}/original")).await;
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "text/csv; charset=utf-8");
    assert_eq!(r.text().await.unwrap(), csv);
    let r = s
        .http
        .delete(format!("{}/api/files/{id}", s.base))
        .header("x-csrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::NO_CONTENT);
    assert!(app.state.storage.list_keys().await.unwrap().is_empty());
}

/// A processing run with the server's files in S3 (`make test-storage-s3`): it reads the original
/// from the bucket, writes the processed output there, and both match the command line on the
/// same file; the processed download through the API is that output. Skipped without
/// `S3_TEST_ENDPOINT`.
#[tokio::test]
#[ignore = "needs an S3-compatible server: make test-storage-s3"]
async fn s3_a_run_reads_its_original_and_writes_its_output_in_the_bucket() {
    use crate::helpers::*;
    use crate::runs::*;
    let Some(app) = s3_app("run").await else {
        return;
    };
    let s = app.login(USER_A).await;
    let client = crate::realtime::client_id(&app, "Bank A").await;
    let bytes = generated_csv(analysis::model::Lever::Pse, 4000, 23);
    let file = stored_file(&app, &client, "pse.csv", &bytes).await;
    assert_eq!(app.state.storage.list_keys().await.unwrap().len(), 1);
    let run = queue(
        &app,
        &client,
        &file,
        server::service::runs::RunMode::EnhancedAi,
        None,
    )
    .await;
    let done = wait_final(&s, &run, 120).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["rowsDone"], 4000);

    let (summary, cli_out) = cli(
        &bytes,
        "pse.csv",
        "auto",
        Some(figures(&app, &client).await),
    );
    assert!(summary.total_rwa_saving > 0.0);
    assert_eq!(
        done["result"]["savingsRwas"].as_f64().unwrap(),
        summary.total_rwa_saving
    );
    let (processed, f_rwas, _, status, _, out_key) = file_row(&app, &file).await;
    assert_eq!((processed, status.as_str()), (1, "processed"));
    assert_eq!(f_rwas, summary.total_rwa_saving);
    assert_eq!(
        client_totals(&app, &client).await.0,
        summary.total_rwa_saving
    );
    let keys = app.state.storage.list_keys().await.unwrap();
    assert_eq!(keys.len(), 2, "the original and the output: {keys:?}");
    assert!(keys.iter().any(|k| Some(k.as_str()) == out_key.as_deref()));
    let r = s.get(&format!("/api/files/{file}/processed")).await;
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    let got = r.bytes().await.unwrap();
    assert!(
        got.as_ref() == cli_out.as_slice(),
        "the processed download is the command line's output"
    );
}
