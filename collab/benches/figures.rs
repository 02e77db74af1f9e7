//! Figures for the README, printed (not asserted): cold load of a 260,000-edit document from
//! snapshot + short tail, stored bytes per edit in the log and after compaction, heap per
//! small loaded document, and update ingest throughput.
//!
//! Run: `cargo bench -p collab --bench figures` (release profile). `FIGURES_EDITS` changes the
//! history length (default 260,000).
#![allow(unsafe_code)] // the counting global allocator below

use std::alloc::{GlobalAlloc, Layout, System};
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use collab::report::{SectionInit, initial_update};
use collab::{Access, Hub, HubConfig, MemoryStore, Snapshot, StoredDoc, protocol};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::mpsc;
use yrs::{
    Doc, GetString, ReadTxn, StateVector, Text, Transact, XmlElementPrelim, XmlFragment,
    XmlTextPrelim,
};

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

/// A typing-like history: one transaction per single-character edit (85% inserts, 15%
/// backspaces), the caret moving 1% of the time: within 300 characters, or anywhere one time in
/// twenty. Returns each edit's v1
/// update and the final document.
fn synthesize(edits: usize, seed: u64) -> (Vec<Bytes>, Doc) {
    // Yjs clients pick 32-bit client ids (5-byte varints); yrs's default is 53 bits.
    let doc = Doc::with_client_id(u64::from(
        StdRng::seed_from_u64(seed ^ 0xC11E).random::<u32>(),
    ));
    let text = doc.get_or_insert_text("t");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut updates = Vec::with_capacity(edits);
    let mut cursor = 0u32;
    let mut len = 0u32;
    for _ in 0..edits {
        if rng.random_range(0..100) < 1 {
            // move the caret within the surrounding text (a few lines up or down), like
            // revising a passage; now and then jump anywhere
            cursor = if rng.random_range(0..20) == 0 {
                rng.random_range(0..=len)
            } else {
                let lo = cursor.saturating_sub(300);
                rng.random_range(lo..=(cursor + 300).min(len))
            };
        }
        let mut txn = doc.transact_mut();
        if cursor > 0 && rng.random_range(0..100) < 15 {
            text.remove_range(&mut txn, cursor - 1, 1);
            cursor -= 1;
            len -= 1;
        } else {
            let ch = char::from(b'a' + rng.random_range(0..26u8));
            text.insert(&mut txn, cursor, ch.encode_utf8(&mut [0; 4]));
            cursor += 1;
            len += 1;
        }
        updates.push(Bytes::from(txn.encode_update_v1()));
    }
    (updates, doc)
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

fn small_report(seed: u64) -> Vec<u8> {
    // 6 sections, 20 paragraphs of 100 characters in all: the shape of a short report.
    let sections: Vec<SectionInit> = (0..6)
        .map(|i| SectionInit {
            id: format!("sec-{i}"),
            title: format!("Section {i}"),
        })
        .collect();
    let init = initial_update(&sections);
    let doc = Doc::new();
    {
        use yrs::updates::decoder::Decode;
        doc.transact_mut()
            .apply_update(yrs::Update::decode_v1(&init).unwrap())
            .unwrap();
    }
    let mut rng = StdRng::seed_from_u64(seed);
    for p in 0..20 {
        let f = doc.get_or_insert_xml_fragment(format!("section:sec-{}", p % 6));
        let mut txn = doc.transact_mut();
        let para = f.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
        let words: String = (0..100)
            .map(|_| char::from(b'a' + rng.random_range(0..26u8)))
            .collect();
        para.push_back(&mut txn, XmlTextPrelim::new(words));
    }
    doc.transact()
        .encode_state_as_update_v1(&StateVector::default())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let edits: usize = std::env::var("FIGURES_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(260_000);

    // ---- history, log bytes, compaction ----
    let t = Instant::now();
    let (updates, doc) = synthesize(edits, 7);
    let synth = t.elapsed();
    let log_bytes: usize = updates.iter().map(Bytes::len).sum();
    let final_len = doc
        .get_or_insert_text("t")
        .get_string(&doc.transact())
        .len();
    let t = Instant::now();
    let replay = Doc::new();
    collab::apply_in_order(&replay, updates.iter().map(|u| &u[..])).unwrap();
    let replay_time = t.elapsed();
    let t = Instant::now();
    let snapshot = replay
        .transact()
        .encode_state_as_update_v1(&StateVector::default());
    let encode_time = t.elapsed();
    let snapshot_v2 = replay
        .transact()
        .encode_state_as_update_v2(&StateVector::default());
    println!(
        "history: {edits} single-character edits (one transaction each), final text {final_len} chars, synthesized in {synth:.2?}"
    );
    println!(
        "log: {log_bytes} B of v1 updates = {:.2} B per edit (payload only; the SQL row overhead is the server store's)",
        log_bytes as f64 / edits as f64
    );
    println!(
        "replay of the whole log through a Doc (one transaction per update): {replay_time:.2?}"
    );
    println!(
        "compacted: v1 snapshot {} B = {:.3} B per edit (encode {encode_time:.2?}); v2 would be {} B = {:.3} B per edit",
        snapshot.len(),
        snapshot.len() as f64 / edits as f64,
        snapshot_v2.len(),
        snapshot_v2.len() as f64 / edits as f64
    );

    // ---- compaction through the hub and MemoryStore ----
    let store = Arc::new(MemoryStore::new());
    let tail = 200usize;
    let (head, rest) = updates.split_at(updates.len() - tail);
    let head_doc = Doc::new();
    collab::apply_in_order(&head_doc, head.iter().map(|u| &u[..])).unwrap();
    let head_snapshot = Bytes::from(
        head_doc
            .transact()
            .encode_state_as_update_v1(&StateVector::default()),
    );
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

    // ---- cold load: snapshot + 200-update tail ----
    let mut pure = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        let d = collab::doc_from_stored(&stored).unwrap();
        pure.push(t.elapsed());
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
    println!(
        "cold load, snapshot + {tail}-update tail: doc_from_stored median {:.2?} (min {:.2?}); connect to first frame through the hub median {:.2?}",
        median(pure.clone()),
        pure.iter().min().unwrap(),
        median(via_hub)
    );
    let heap_before = live();
    let loaded = collab::doc_from_stored(&stored).unwrap();
    println!(
        "heap of the loaded 260k-edit document: {:.2} MB",
        (live() - heap_before) as f64 / 1e6
    );
    drop(loaded);

    // compaction by the hub: the full log appended, then compacted by the document task
    let hub = Hub::new(
        store.clone(),
        HubConfig {
            compact_after_updates: 500,
            ..HubConfig::default()
        },
    );
    {
        let seeded = StoredDoc {
            snapshot: None,
            updates: updates
                .iter()
                .take(20_000)
                .enumerate()
                .map(|(i, u)| ((i + 1) as u64, u.clone()))
                .collect(),
        };
        store.put("log", seeded);
        let before = store.size("log").unwrap();
        let t = Instant::now();
        // a server-side no-op edit wakes the task; it sees the long tail and compacts
        let state = hub.document_state_v1("log").await.unwrap();
        let d = Doc::new();
        let text = d.get_or_insert_text("t");
        {
            use yrs::updates::decoder::Decode;
            d.transact_mut()
                .apply_update(yrs::Update::decode_v1(&state).unwrap())
                .unwrap();
        }
        let sv = d.transact().state_vector();
        text.insert(&mut d.transact_mut(), 0, "!");
        hub.apply_update("log", d.transact().encode_diff_v1(&sv))
            .await
            .unwrap();
        while store.stats().compactions == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let after = store.size("log").unwrap();
        println!(
            "hub compaction of a 20,000-update log: {} entries / {} B -> snapshot {} B + {} entries, in {:.2?}",
            before.log_entries,
            before.log_bytes,
            after.snapshot_bytes,
            after.log_entries,
            t.elapsed()
        );
    }
    hub.shutdown().await;

    // ---- heap per small loaded document ----
    let store = Arc::new(MemoryStore::new());
    let n = 1000;
    for i in 0..n {
        store.put(
            &format!("small-{i}"),
            StoredDoc {
                snapshot: None,
                updates: vec![(1, Bytes::from(small_report(i as u64)))],
            },
        );
    }
    let before_doc = live();
    let sample = collab::doc_from_stored(&store.get("small-0").unwrap()).unwrap();
    let doc_alone = live() - before_doc;
    let snapshot_small = sample
        .transact()
        .encode_state_as_update_v1(&StateVector::default())
        .len();
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
        "heap per small loaded document (6 sections, 20 paragraphs of 100 chars; snapshot {snapshot_small} B): {:.1} KB (Doc, awareness, task, queues, registry entry; {} loaded); the Doc alone {:.1} KB",
        per_doc / 1024.0,
        hub.loaded_documents(),
        doc_alone as f64 / 1024.0
    );
    hub.shutdown().await;

    // ---- ingest: updates applied, relayed and durably logged ----
    let store = Arc::new(MemoryStore::new());
    store.put(
        "ingest",
        StoredDoc {
            snapshot: None,
            updates: vec![(1, Bytes::from(initial_update(&[])))],
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
    let count = 100_000.min(updates.len());
    let frames: Vec<Bytes> = updates[..count]
        .iter()
        .map(|u| protocol::update(u))
        .collect();
    let before = store.stats().appended_updates;
    let t = Instant::now();
    for f in frames {
        to_server.send(Ok(f)).await.unwrap();
    }
    while store.stats().appended_updates - before < count as u64 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let elapsed = t.elapsed();
    let s = store.stats();
    println!(
        "ingest: {count} single-edit updates from one connection applied and appended in {elapsed:.2?} = {:.0} updates/s ({} appends, {:.0} updates per batch)",
        count as f64 / elapsed.as_secs_f64(),
        s.appends,
        s.appended_updates as f64 / s.appends as f64
    );
    hub.shutdown().await;
}
