//! Figures for the README, printed (not asserted): heap per small loaded document, and for two
//! 260,000-edit histories (a B4-like typing trace and a harsh random one) the stored bytes per
//! edit in the log and after compaction, cold load from snapshot + short tail, hub compaction
//! and update ingest throughput.
//!
//! Run: `cargo bench -p collab --bench figures` (release profile). `FIGURES_EDITS` changes the
//! history length (default 260,000); `FIGURES_SKIP_HARSH=1` leaves out the harsh trace, whose
//! synthesis takes minutes the first time (it is cached under the target directory).
#![allow(unsafe_code)] // the counting global allocator below

use std::alloc::{GlobalAlloc, Layout, System};
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use collab::report::{SectionInit, initial_update};
use collab::{
    Access, DocStore, Hub, HubConfig, MemoryStore, Snapshot, StoreError, StoredDoc, protocol,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::mpsc;
use yrs::{Doc, Map, ReadTxn, StateVector, Transact, XmlElementPrelim, XmlFragment, XmlTextPrelim};

/// Counts live heap bytes.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// `make()`'s updates, read from a cache file under the target directory when present (the
/// harsh trace takes minutes to synthesise: local edits by index are superlinear in yrs on a
/// fragmented text).
fn cached(name: &str, make: impl FnOnce() -> Vec<Bytes>) -> (Vec<Bytes>, bool) {
    use yrs::encoding::read::{Cursor, Read};
    use yrs::encoding::write::Write;
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if let Ok(data) = std::fs::read(&path) {
        let mut c = Cursor::new(&data);
        let mut out = Vec::new();
        while c.has_content() {
            match c.read_buf() {
                Ok(b) => out.push(Bytes::copy_from_slice(b)),
                Err(_) => break,
            }
        }
        if !c.has_content() && !out.is_empty() {
            return (out, true);
        }
    }
    let out = make();
    let mut buf = Vec::new();
    for u in &out {
        buf.write_buf(u);
    }
    let _ = std::fs::write(&path, buf);
    (out, false)
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// Connects a silent client and returns the time until the server's first frame (the
/// document was loaded by then).
async fn time_to_first_frame(hub: &Hub, doc: &str) -> Duration {
    let (_to_server, rx) = mpsc::unbounded_channel::<Result<Bytes, Infallible>>();
    let (tx, mut from_server) = mpsc::unbounded_channel::<Bytes>();
    let stream = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|m| (m, rx))
    }));
    let sink = Box::pin(futures_util::sink::unfold(
        tx,
        |tx, frame: Bytes| async move {
            tx.send(frame).map_err(|_| ())?;
            Ok::<_, ()>(tx)
        },
    ));
    let start = Instant::now();
    let hub2 = hub.clone();
    let doc = doc.to_owned();
    let task = tokio::spawn(async move {
        hub2.serve_connection(&doc, Access::ReadWrite, stream, sink)
            .await
    });
    let first = from_server.recv().await.expect("first frame");
    let elapsed = start.elapsed();
    assert_eq!(&first[..2], &[0, 0]);
    task.abort();
    elapsed
}

/// A small report: 6 sections, 20 paragraphs of 100 characters in all, the first of each section
/// being the empty one the server creates (the product's shape),
/// or (`sections == 0`) 20 paragraphs of 100 characters in one XmlFragment (the shape of the
/// design notes' measurement).
fn small_report(seed: u64, sections: usize) -> Vec<u8> {
    let doc = Doc::new();
    if sections > 0 {
        let ids: Vec<SectionInit> = (0..sections)
            .map(|i| SectionInit {
                nodes: Vec::new(),
                id: format!("sec-{i}"),
                title: format!("Section {i}"),
                paragraphs: Vec::new(),
            })
            .collect();
        let init = initial_update(&ids);
        use yrs::updates::decoder::Decode;
        doc.transact_mut()
            .apply_update(yrs::Update::decode_v1(&init).unwrap())
            .unwrap();
    }
    let mut rng = StdRng::seed_from_u64(seed);
    for p in 0..20 {
        let f = doc.get_or_insert_xml_fragment(format!("section:sec-{}", p % sections.max(1)));
        let mut txn = doc.transact_mut();
        let words: String = (0..100)
            .map(|_| char::from(b'a' + rng.random_range(0..26u8)))
            .collect();
        // As a writer fills a new report: the first text of a section goes into the empty
        // paragraph the server created, the rest into new paragraphs.
        let seeded = match f.get(&txn, 0) {
            Some(yrs::XmlOut::Element(e)) if p < sections && e.len(&txn) == 0 => Some(e),
            _ => None,
        };
        let para = match seeded {
            Some(e) => e,
            None => f.push_back(&mut txn, XmlElementPrelim::empty("paragraph")),
        };
        para.push_back(&mut txn, XmlTextPrelim::new(words));
    }
    doc.transact()
        .encode_state_as_update_v1(&StateVector::default())
}

/// A [`MemoryStore`] that counts the bytes the hub hands to `append`.
struct CountingStore {
    inner: MemoryStore,
    appended_bytes: AtomicUsize,
}

#[async_trait::async_trait]
impl DocStore for CountingStore {
    async fn load(&self, doc_id: &str) -> Result<Option<StoredDoc>, StoreError> {
        self.inner.load(doc_id).await
    }
    async fn create(&self, doc_id: &str, initial: Bytes) -> Result<(), StoreError> {
        self.inner.create(doc_id, initial).await
    }
    async fn append(&self, doc_id: &str, updates: &[Bytes]) -> Result<u64, StoreError> {
        let n: usize = updates.iter().map(Bytes::len).sum();
        let r = self.inner.append(doc_id, updates).await;
        if r.is_ok() {
            self.appended_bytes.fetch_add(n, Ordering::Relaxed);
        }
        r
    }
    async fn compact(&self, doc_id: &str, snapshot: Bytes, upto: u64) -> Result<bool, StoreError> {
        self.inner.compact(doc_id, snapshot, upto).await
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "n/a".into())
}

/// Log, compaction, cold load, hub compaction and ingest figures for one history. `log[..base]`
/// is the document's initial content (not an edit).
async fn trace_figures(label: &str, log: &[Bytes], base: usize) {
    let edits = log.len() - base;
    let per_edit = |bytes: usize| bytes as f64 / edits as f64;
    println!("== {label} ==");
    // ---- log bytes ----
    let raw: usize = log[base..].iter().map(Bytes::len).sum();
    let sizes = {
        let mut v: Vec<usize> = log[base..].iter().map(Bytes::len).collect();
        v.sort_unstable();
        v
    };
    // a v1 update without structs (first byte: zero clients) only deletes
    let deleting = log[base..].iter().filter(|u| u.first() == Some(&0)).count();
    println!(
        "edits: {} insertions, {deleting} deletions ({:.1}%)",
        edits - deleting,
        100.0 * deleting as f64 / edits as f64
    );
    println!(
        "log: {raw} B of v1 updates for {edits} edits = {:.2} B per edit (median {} B, 90th percentile {} B); one stored entry per edit",
        per_edit(raw),
        sizes[sizes.len() / 2],
        sizes[sizes.len() * 9 / 10]
    );
    for k in [8usize, 64] {
        let t = Instant::now();
        let merged: usize = log[base..]
            .chunks(k)
            .map(|c| {
                yrs::merge_updates_v1(c.iter().map(|u| &u[..]))
                    .unwrap()
                    .len()
            })
            .sum();
        println!(
            "  if {k} consecutive updates were stored as one merged entry: {:.2} B per edit (merging took {:.2?})",
            per_edit(merged),
            t.elapsed()
        );
    }
    // ---- replay and compaction ----
    let t = Instant::now();
    let replay = Doc::new();
    collab::apply_in_order(&replay, log.iter().map(|u| &u[..])).unwrap();
    let replay_time = t.elapsed();
    let t = Instant::now();
    let (snapshot, encoding) = collab::encode_snapshot(&replay);
    let encode_time = t.elapsed();
    let v1 = replay
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    println!(
        "final document: {} visible characters; replay of the whole log (one transaction per update) {replay_time:.2?}",
        collab::traces::visible_chars(&replay)
    );
    println!(
        "compacted: snapshot {} B in {encoding:?} = {:.3} B per edit (encode + round-trip check {encode_time:.2?}); v1 would be {} B = {:.3} B per edit",
        snapshot.len(),
        per_edit(snapshot.len()),
        v1.len(),
        per_edit(v1.len())
    );
    drop(replay);

    // ---- cold load: snapshot + 200-update tail ----
    let tail = 200usize;
    let (head, rest) = log.split_at(log.len() - tail);
    let head_doc = Doc::new();
    collab::apply_in_order(&head_doc, head.iter().map(|u| &u[..])).unwrap();
    let (head_snapshot, _) = collab::encode_snapshot(&head_doc);
    let head_v1 = Bytes::from(
        head_doc
            .transact()
            .encode_state_as_update_v1(&StateVector::default()),
    );
    drop(head_doc);
    let stored = StoredDoc {
        snapshot: Some(Snapshot {
            update_v1: head_snapshot,
            upto_seq: head.len() as u64,
        }),
        updates: rest
            .iter()
            .enumerate()
            .map(|(i, u)| ((head.len() + i + 1) as u64, u.clone()))
            .collect(),
    };
    let mut stored_v1 = stored.clone();
    if let Some(s) = stored_v1.snapshot.as_mut() {
        s.update_v1 = head_v1;
    }
    let (mut pure, mut pure_v1) = (Vec::new(), Vec::new());
    for _ in 0..9 {
        let t = Instant::now();
        let d = collab::doc_from_stored(&stored).unwrap();
        pure.push(t.elapsed());
        drop(d);
        let t = Instant::now();
        let d = collab::doc_from_stored(&stored_v1).unwrap();
        pure_v1.push(t.elapsed());
        drop(d);
    }
    let mut via_hub = Vec::new();
    for i in 0..7 {
        let store = Arc::new(MemoryStore::new());
        store.put("big", stored.clone());
        let hub = Hub::new(
            store,
            HubConfig {
                instance_id: i,
                ..HubConfig::default()
            },
        );
        via_hub.push(time_to_first_frame(&hub, "big").await);
        hub.shutdown().await;
    }
    let heap_before = live();
    let loaded = collab::doc_from_stored(&stored).unwrap();
    let heap = live() - heap_before;
    drop(loaded);
    println!(
        "cold load, snapshot ({:?}) + {tail}-update tail: doc_from_stored median {:.2?} (min {:.2?}, max {:.2?}); connect to first frame through the hub median {:.2?}; {:.2} MB heap once loaded",
        stored.snapshot.as_ref().unwrap().encoding(),
        median(pure.clone()),
        pure.iter().min().unwrap(),
        pure.iter().max().unwrap(),
        median(via_hub),
        heap as f64 / 1e6
    );
    println!(
        "  the same from a v1 snapshot: doc_from_stored median {:.2?} (min {:.2?}, max {:.2?})",
        median(pure_v1.clone()),
        pure_v1.iter().min().unwrap(),
        pure_v1.iter().max().unwrap()
    );

    // ---- compaction by the hub: a 20,000-update log compacted by the document task ----
    let store = Arc::new(MemoryStore::new());
    let hub = Hub::new(
        store.clone(),
        HubConfig {
            compact_after_updates: 500,
            ..HubConfig::default()
        },
    );
    {
        let n = 20_000.min(log.len());
        store.put(
            "log",
            StoredDoc {
                snapshot: None,
                updates: log
                    .iter()
                    .take(n)
                    .enumerate()
                    .map(|(i, u)| ((i + 1) as u64, u.clone()))
                    .collect(),
            },
        );
        let before = store.size("log").unwrap();
        let t = Instant::now();
        // a server-side edit wakes the task; it sees the long tail and compacts
        let state = hub.document_state_v1("log").await.unwrap();
        let d = Doc::new();
        {
            use yrs::updates::decoder::Decode;
            d.transact_mut()
                .apply_update(yrs::Update::decode_v1(&state).unwrap())
                .unwrap();
        }
        let sv = d.transact().state_vector();
        d.get_or_insert_map("wake")
            .insert(&mut d.transact_mut(), "k", 1);
        hub.apply_update("log", d.transact().encode_diff_v1(&sv))
            .await
            .unwrap();
        while store.stats().compactions == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let after = store.size("log").unwrap();
        let enc = store.get("log").unwrap().snapshot.unwrap().encoding();
        println!(
            "hub compaction of a {n}-update log: {} entries / {} B -> {enc:?} snapshot {} B + {} entries, in {:.2?}",
            before.log_entries,
            before.log_bytes,
            after.snapshot_bytes,
            after.log_entries,
            t.elapsed()
        );
    }
    hub.shutdown().await;

    // ---- ingest: updates applied, relayed and handed to the store ----
    let store = Arc::new(CountingStore {
        inner: MemoryStore::new(),
        appended_bytes: AtomicUsize::new(0),
    });
    let initial = if base > 0 {
        log[..base].to_vec()
    } else {
        vec![Bytes::from(initial_update(&[]))]
    };
    store.inner.put(
        "ingest",
        StoredDoc {
            snapshot: None,
            updates: initial
                .into_iter()
                .enumerate()
                .map(|(i, u)| ((i + 1) as u64, u))
                .collect(),
        },
    );
    let hub = Hub::new(store.clone(), HubConfig::default());
    let (to_server, rx) = mpsc::channel::<Result<Bytes, Infallible>>(1024);
    let (tx, mut from_server) = mpsc::unbounded_channel::<Bytes>();
    let stream = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|m| (m, rx))
    }));
    let sink = Box::pin(futures_util::sink::unfold(
        tx,
        |tx, frame: Bytes| async move {
            tx.send(frame).map_err(|_| ())?;
            Ok::<_, ()>(tx)
        },
    ));
    let hub2 = hub.clone();
    tokio::spawn(async move {
        hub2.serve_connection("ingest", Access::ReadWrite, stream, sink)
            .await
    });
    let _ = from_server.recv().await;
    let count = 100_000.min(edits);
    let frames: Vec<Bytes> = log[base..base + count]
        .iter()
        .map(|u| protocol::update(u))
        .collect();
    let before = store.inner.stats().appended_updates;
    let t = Instant::now();
    for f in frames {
        to_server.send(Ok(f)).await.unwrap();
    }
    while store.inner.stats().appended_updates - before < count as u64 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let elapsed = t.elapsed();
    let s = store.inner.stats();
    println!(
        "ingest: {count} single-edit updates from one connection applied and appended in {elapsed:.2?} = {:.0} updates/s ({} appends, {:.0} updates per append); handed to append: {:.2} B per edit",
        count as f64 / elapsed.as_secs_f64(),
        s.appends,
        s.appended_updates as f64 / s.appends as f64,
        store.appended_bytes.load(Ordering::Relaxed) as f64 / count as f64
    );
    hub.shutdown().await;
}

/// Heap of one small document alone and per document loaded in the hub.
async fn small_doc_heap(label: &str, sections: usize) {
    let store = Arc::new(MemoryStore::new());
    let n = 1000;
    for i in 0..n {
        store.put(
            &format!("small-{i}"),
            StoredDoc {
                snapshot: None,
                updates: vec![(1, Bytes::from(small_report(i as u64, sections)))],
            },
        );
    }
    let before_doc = live();
    let sample = collab::doc_from_stored(&store.get("small-0").unwrap()).unwrap();
    let doc_alone = live() - before_doc;
    let (snapshot_small, enc) = collab::encode_snapshot(&sample);
    drop(sample);
    let hub = Hub::new(
        store.clone(),
        HubConfig {
            idle_unload_after: Duration::from_secs(600),
            ..HubConfig::default()
        },
    );
    // warm the runtime and the registry
    hub.document_state_v1("small-0").await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let before = live();
    for i in 1..n {
        hub.document_state_v1(&format!("small-{i}")).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let per_doc = (live() - before) as f64 / (n - 1) as f64;
    println!(
        "heap per small loaded document, {label} ({enc:?} snapshot {} B): {:.2} KB per document in the hub ({} loaded): the Doc alone {:.2} KB, the hub's share {:.2} KB",
        snapshot_small.len(),
        per_doc / 1024.0,
        hub.loaded_documents(),
        doc_alone as f64 / 1024.0,
        (per_doc - doc_alone as f64) / 1024.0
    );
    hub.shutdown().await;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let edits: usize = std::env::var("FIGURES_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(260_000);
    println!("load average at start: {}", load_average());
    small_doc_heap("report shape: 6 sections, 20 paragraphs of 100 chars", 6).await;
    small_doc_heap(
        "design-note shape: one XmlFragment, 20 paragraphs of 100 chars",
        0,
    )
    .await;

    let t = Instant::now();
    let typing = collab::traces::typing_trace(edits, 7);
    println!(
        "typing trace: {edits} edits generated in {:.2?}",
        t.elapsed()
    );
    trace_figures(
        "B4-like typing trace (report schema, paragraphs in XmlFragments, 32-bit client ids, a new session every 3-12k edits)",
        &typing,
        1,
    )
    .await;
    drop(typing);

    if std::env::var("FIGURES_SKIP_HARSH").is_ok_and(|v| v == "1") {
        return;
    }
    let t = Instant::now();
    let (harsh, was_cached) = cached(&format!("collab-figures-harsh-{edits}-7.bin"), || {
        collab::traces::harsh_trace(edits, 7)
    });
    println!(
        "harsh trace: {edits} edits {} in {:.2?}",
        if was_cached {
            "read from the cache"
        } else {
            "synthesised"
        },
        t.elapsed()
    );
    trace_figures(
        "harsh random trace (one Y.Text, 15% backspaces anywhere in typed runs, 32-bit client id)",
        &harsh,
        0,
    )
    .await;
    drop(harsh);

    println!("load average at end: {}", load_average());
}
