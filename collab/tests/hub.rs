//! Behaviour of the hub: protocol, read-only access, awareness, unloading, failures,
//! slow consumers, compaction, group commit.

mod common;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use collab::report::{SectionInit, initial_update};
use collab::{Access, CloseReason, Hub, HubConfig, MemoryStore, close, protocol};
use common::*;
use yrs::{Text, Transact};

fn config() -> HubConfig {
    HubConfig {
        idle_unload_after: Duration::from_secs(2),
        ..HubConfig::default()
    }
}

async fn hub_with_doc(cfg: HubConfig) -> (Hub, Arc<MemoryStore>) {
    let store = Arc::new(MemoryStore::new());
    let hub = Hub::new(store.clone(), cfg);
    let sections = vec![
        SectionInit {
            nodes: Vec::new(),
            id: "s0".into(),
            title: "Executive Summary".into(),
            paragraphs: Vec::new(),
        },
        SectionInit {
            nodes: Vec::new(),
            id: "s1".into(),
            title: "Purpose".into(),
            paragraphs: Vec::new(),
        },
    ];
    hub.create_document("r1", initial_update(&sections))
        .await
        .unwrap();
    (hub, store)
}

fn insert(text: &str, at: u32) -> impl FnOnce(&yrs::Doc) + '_ {
    move |d| {
        let t = d.get_or_insert_text("t");
        let len = t.len(&d.transact());
        t.insert(&mut d.transact_mut(), at.min(len), text);
    }
}

#[tokio::test(start_paused = true)]
async fn editors_sync_and_a_late_joiner_gets_the_state() {
    let (hub, _store) = hub_with_doc(config()).await;
    let mut a = Client::new("a", Access::ReadWrite);
    let mut b = Client::new("b", Access::ReadWrite);
    a.connect(&hub, "r1");
    b.connect(&hub, "r1");
    let mut clients = [a, b];
    pump_until_quiet(&mut clients).await;
    let [mut a, mut b] = clients;
    // the initial report content reached both clients
    assert_eq!(collab::report::sections_of(&a.doc).len(), 2);
    assert_eq!(frag_len(&b.doc, "section:s1"), 1);

    a.edit(insert("hello", 0));
    b.edit(insert("world ", 0));
    let mut clients = [a, b];
    pump_until_quiet(&mut clients).await;
    let [a, b] = clients;
    assert_eq!(view(&a.doc), view(&b.doc));
    assert_eq!(a.text().len(), 11);

    let mut c = Client::new("c", Access::ReadWrite);
    c.connect(&hub, "r1");
    let mut clients = [c];
    pump_until_quiet(&mut clients).await;
    assert_eq!(view(&clients[0].doc), view(&a.doc));
    let server = doc_of(&hub.document_state_v1("r1").await.unwrap());
    assert_eq!(view(&server), view(&a.doc));
}

#[tokio::test(start_paused = true)]
async fn first_frames_are_sync_step1_then_awareness_each_alone() {
    let (hub, _store) = hub_with_doc(config()).await;
    let mut a = Client::new("a", Access::ReadWrite);
    a.connect(&hub, "r1");
    a.set_awareness(r#"{"user":"a"}"#);
    settle(200).await;
    let mut link = connect_raw(&hub, "r1", Access::ReadWrite);
    settle(50).await;
    let first = link.from_server.try_recv().unwrap();
    assert_eq!(&first[..2], &[0, 0], "SyncStep1 first");
    assert_eq!(protocol::decode_frame(&first).unwrap().len(), 1);
    let second = link.from_server.try_recv().unwrap();
    assert_eq!(
        second[0], 1,
        "then the awareness states, in their own frame"
    );
    assert_eq!(protocol::decode_frame(&second).unwrap().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn read_only_edits_are_dropped_and_answered_with_permission_denied() {
    let (hub, store) = hub_with_doc(config()).await;
    let mut editor = Client::new("editor", Access::ReadWrite);
    let mut viewer = Client::new("viewer", Access::ReadOnly);
    editor.connect(&hub, "r1");
    viewer.connect(&hub, "r1");
    let mut clients = [editor, viewer];
    pump_until_quiet(&mut clients).await;
    let [editor, mut viewer] = clients;
    assert_eq!(
        viewer.denied, 0,
        "a viewer's empty SyncStep2 is not an edit"
    );
    let before = store.get("r1").unwrap();

    viewer.edit(insert("sneaky", 0));
    viewer.set_awareness(r#"{"user":"viewer"}"#);
    let mut clients = [editor, viewer];
    pump_until_quiet(&mut clients).await;
    let [mut editor, viewer] = clients;
    assert_eq!(viewer.denied, 1, "permission denied sent");
    assert_eq!(editor.text(), "", "never relayed");
    assert_eq!(store.get("r1").unwrap(), before, "never stored");
    let server = doc_of(&hub.document_state_v1("r1").await.unwrap());
    assert_eq!(view(&server), view(&editor.doc), "never applied");
    assert_eq!(
        editor.awareness_of(viewer.client_id()).as_deref(),
        Some(r#"{"user":"viewer"}"#),
        "a viewer's presence is relayed"
    );

    // the viewer still receives edits
    editor.edit(insert("from editor", 0));
    let mut clients = [editor, viewer];
    pump_until_quiet(&mut clients).await;
    assert!(clients[1].text().contains("from editor"));
    assert_eq!(clients[1].denied, 1);
}

#[tokio::test(start_paused = true)]
async fn rights_changed_while_connected_apply_from_the_next_message() {
    let (hub, store) = hub_with_doc(config()).await;
    let mut editor = Client::new("editor", Access::ReadWrite);
    let mut watcher = Client::new("watcher", Access::ReadWrite);
    let rights = editor.connect_with_rights(&hub, "r1");
    watcher.connect(&hub, "r1");
    let mut clients = [editor, watcher];
    pump_until_quiet(&mut clients).await;
    let [mut editor, watcher] = clients;
    editor.edit(insert("kept", 0));
    let mut clients = [editor, watcher];
    pump_until_quiet(&mut clients).await;
    let [mut editor, watcher] = clients;
    assert_eq!(watcher.text(), "kept");

    // Demoted to viewer (a role change): its next edit is refused, never relayed or stored.
    rights.send(Ok(Access::ReadOnly)).unwrap();
    settle(10).await;
    let before = store.get("r1").unwrap();
    editor.edit(insert("after the demotion ", 0));
    let mut clients = [editor, watcher];
    pump_until_quiet(&mut clients).await;
    let [mut editor, watcher] = clients;
    assert_eq!(editor.denied, 1, "permission denied sent");
    assert_eq!(watcher.text(), "kept", "never relayed");
    settle(100).await;
    assert_eq!(store.get("r1").unwrap(), before, "never stored");
    assert!(editor.connected(), "a demoted editor keeps reading");

    // The session ended: the connection closes with the reason the server gave.
    rights.send(Err(CloseReason::UNAUTHENTICATED)).unwrap();
    let link = editor.link.take().unwrap();
    let why = tokio::time::timeout(Duration::from_secs(1), link.handle)
        .await
        .expect("closed at once")
        .unwrap();
    assert_eq!(why, CloseReason::UNAUTHENTICATED);
    drop(watcher);
}

#[tokio::test(start_paused = true)]
async fn a_connection_refused_from_the_start_never_joins() {
    let (hub, _store) = hub_with_doc(config()).await;
    let (rights_tx, rights) = tokio::sync::watch::channel(Err(CloseReason::FORBIDDEN));
    let stream = futures_util::stream::pending::<Result<Bytes, std::convert::Infallible>>();
    let sink = futures_util::sink::drain::<Bytes>();
    let why = hub.serve_connection_with("r1", rights, stream, sink).await;
    assert_eq!(why, CloseReason::FORBIDDEN);
    assert!(!hub.is_loaded("r1"), "the document was never loaded for it");
    drop(rights_tx);
}

#[tokio::test(start_paused = true)]
async fn awareness_is_removed_when_its_connection_closes() {
    let (hub, _store) = hub_with_doc(config()).await;
    let mut a = Client::new("a", Access::ReadWrite);
    let mut b = Client::new("b", Access::ReadWrite);
    a.connect(&hub, "r1");
    b.connect(&hub, "r1");
    a.set_awareness(r#"{"cursor":1}"#);
    let mut clients = [a, b];
    pump_until_quiet(&mut clients).await;
    let [mut a, b] = clients;
    assert_eq!(
        b.awareness_of(a.client_id()).as_deref(),
        Some(r#"{"cursor":1}"#)
    );
    a.disconnect();
    let mut clients = [b];
    pump_until_quiet(&mut clients).await;
    assert_eq!(
        clients[0].awareness_of(a.client_id()).as_deref(),
        Some("null"),
        "removal broadcast"
    );

    // a newcomer gets no state for the departed client
    let mut c = Client::new("c", Access::ReadWrite);
    c.connect(&hub, "r1");
    let mut cs = [c];
    pump_until_quiet(&mut cs).await;
    assert_eq!(cs[0].awareness_of(a.client_id()), None);
}

/// An awareness update from `from` for the client id `id` (as a hostile client would forge it).
fn forged_awareness(from: &Client, id: u64, clock: u32, json: &str) {
    let mut clients = std::collections::HashMap::new();
    clients.insert(
        yrs::block::ClientID::new(id),
        yrs::sync::awareness::AwarenessUpdateEntry {
            clock,
            json: json.into(),
        },
    );
    from.send(protocol::awareness(&yrs::sync::AwarenessUpdate { clients }));
}

#[tokio::test(start_paused = true)]
async fn awareness_client_ids_belong_to_the_connection_that_first_used_them() {
    let (hub, _store) = hub_with_doc(config()).await;
    let mut ana = Client::new("ana", Access::ReadWrite);
    let mut mallory = Client::new("mallory", Access::ReadWrite);
    let mut bob = Client::new("bob", Access::ReadWrite);
    ana.connect(&hub, "r1");
    mallory.connect(&hub, "r1");
    bob.connect(&hub, "r1");
    ana.set_awareness(r#"{"user":{"name":"Ana"},"cursor":1}"#);
    let mut clients = [ana, mallory, bob];
    pump_until_quiet(&mut clients).await;
    let ana_id = clients[0].client_id();
    assert_eq!(
        clients[2].awareness_of(ana_id).as_deref(),
        Some(r#"{"user":{"name":"Ana"},"cursor":1}"#)
    );

    // Mallory sends a caret under Ana's client id (a newer clock), then tries to remove Ana's
    // state, then mixes Ana's id with her own in one message.
    forged_awareness(
        &clients[1],
        ana_id,
        1000,
        r#"{"user":{"name":"Ana"},"cursor":99}"#,
    );
    pump_until_quiet(&mut clients).await;
    forged_awareness(&clients[1], ana_id, 1001, "null");
    pump_until_quiet(&mut clients).await;
    let mallory_id = clients[1].client_id();
    let mut both = std::collections::HashMap::new();
    for (id, json) in [
        (ana_id, r#"{"cursor":98}"#),
        (mallory_id, r#"{"cursor":5}"#),
    ] {
        both.insert(
            yrs::block::ClientID::new(id),
            yrs::sync::awareness::AwarenessUpdateEntry {
                clock: 1002,
                json: json.into(),
            },
        );
    }
    clients[1].send(protocol::awareness(&yrs::sync::AwarenessUpdate {
        clients: both,
    }));
    pump_until_quiet(&mut clients).await;
    for (who, c) in [("bob", &clients[2]), ("ana", &clients[0])] {
        assert_eq!(
            c.awareness_of(ana_id).as_deref(),
            Some(r#"{"user":{"name":"Ana"},"cursor":1}"#),
            "{who} still sees Ana's own caret"
        );
    }
    assert_eq!(
        clients[2].awareness_of(mallory_id).as_deref(),
        Some(r#"{"cursor":5}"#),
        "Mallory's own id in the same message still applies"
    );
    // Ana's renewals keep working.
    clients[0].set_awareness(r#"{"user":{"name":"Ana"},"cursor":2}"#);
    pump_until_quiet(&mut clients).await;
    assert_eq!(
        clients[2].awareness_of(ana_id).as_deref(),
        Some(r#"{"user":{"name":"Ana"},"cursor":2}"#)
    );

    // Once Ana's connection is gone, her id is free again (a reconnecting tab keeps its id).
    let [mut ana, mallory, bob] = clients;
    ana.disconnect();
    let mut rest = [mallory, bob];
    pump_until_quiet(&mut rest).await;
    ana.connect(&hub, "r1");
    // (The removal bumped Ana's clock on the server; yjs clients renew past it, as here.)
    ana.aw_clock += 1;
    ana.set_awareness(r#"{"user":{"name":"Ana"},"cursor":3}"#);
    let [mallory, bob] = rest;
    let mut clients = [ana, mallory, bob];
    pump_until_quiet(&mut clients).await;
    assert_eq!(
        clients[2].awareness_of(ana_id).as_deref(),
        Some(r#"{"user":{"name":"Ana"},"cursor":3}"#)
    );
}

#[tokio::test(start_paused = true)]
async fn a_client_id_seen_from_another_instance_cannot_be_taken_over_here() {
    let store = Arc::new(MemoryStore::new());
    let fanout = collab::MemoryFanout::new();
    let cfg = |instance| HubConfig {
        instance_id: instance,
        ..config()
    };
    let a = Hub::with_fanout(store.clone(), Arc::new(fanout.clone()), cfg(1));
    let b = Hub::with_fanout(store.clone(), Arc::new(fanout.clone()), cfg(2));
    a.create_document("r1", initial_update(&[])).await.unwrap();
    let mut ana = Client::new("ana", Access::ReadWrite);
    let mut bob = Client::new("bob", Access::ReadWrite);
    let mut mallory = Client::new("mallory", Access::ReadWrite);
    ana.connect(&a, "r1");
    bob.connect(&a, "r1");
    mallory.connect(&b, "r1");
    let mut clients = [ana, bob, mallory];
    pump_until_quiet(&mut clients).await;
    clients[0].set_awareness(r#"{"user":{"name":"Ana"}}"#);
    settle(500).await;
    pump_until_quiet(&mut clients).await;
    let ana_id = clients[0].client_id();
    assert_eq!(
        clients[2].awareness_of(ana_id).as_deref(),
        Some(r#"{"user":{"name":"Ana"}}"#),
        "Ana's presence reached the other instance"
    );
    // Mallory, on the other instance, forges Ana's id.
    forged_awareness(
        &clients[2],
        ana_id,
        1000,
        r#"{"user":{"name":"Ana"},"cursor":7}"#,
    );
    settle(500).await;
    pump_until_quiet(&mut clients).await;
    for (who, c) in [("bob", &clients[1]), ("mallory", &clients[2])] {
        assert_eq!(
            c.awareness_of(ana_id).as_deref(),
            Some(r#"{"user":{"name":"Ana"}}"#),
            "{who} still sees Ana's own state"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn awareness_expires_after_thirty_seconds_without_renewal() {
    let (hub, _store) = hub_with_doc(HubConfig {
        idle_unload_after: Duration::from_secs(120),
        ..config()
    })
    .await;
    let mut a = Client::new("a", Access::ReadWrite);
    let mut b = Client::new("b", Access::ReadWrite);
    a.connect(&hub, "r1");
    b.connect(&hub, "r1");
    a.set_awareness(r#"{"cursor":1}"#);
    b.set_awareness(r#"{"cursor":2}"#);
    let mut clients = [a, b];
    pump_until_quiet(&mut clients).await;
    // b renews every 10 s, a never does (but stays connected: it sends empty keep-alives)
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_secs(10)).await;
        clients[1].set_awareness(r#"{"cursor":2}"#);
        clients[0].send(Bytes::new());
        clients[1].pump(usize::MAX);
        clients[0].pump(usize::MAX);
    }
    settle(2000).await;
    pump_until_quiet(&mut clients).await;
    let (a_id, b_id) = (clients[0].client_id(), clients[1].client_id());
    assert_eq!(
        clients[1].awareness_of(a_id).as_deref(),
        Some("null"),
        "a expired and its removal broadcast"
    );
    assert_eq!(
        clients[0].awareness_of(b_id).as_deref(),
        Some(r#"{"cursor":2}"#),
        "b renewed, still present"
    );
    assert!(
        clients[0].connected(),
        "expiry does not close the connection"
    );
}

#[tokio::test(start_paused = true)]
async fn idle_documents_are_unloaded_after_flushing() {
    let (hub, store) = hub_with_doc(config()).await;
    let mut a = Client::new("a", Access::ReadWrite);
    a.connect(&hub, "r1");
    a.edit(insert("kept", 0));
    settle(100).await;
    a.pump(usize::MAX);
    assert!(hub.is_loaded("r1"));
    a.disconnect();
    settle(1000).await;
    assert!(hub.is_loaded("r1"), "not before the idle delay");
    settle(1500).await;
    assert!(
        !hub.is_loaded("r1"),
        "unloaded within the idle delay plus one tick"
    );
    let stored = collab::doc_from_stored(&store.get("r1").unwrap()).unwrap();
    assert_eq!(view(&stored), view(&a.doc));
}

#[tokio::test(start_paused = true)]
async fn idle_documents_are_unloaded_even_when_the_store_fails() {
    let (hub, store) = hub_with_doc(HubConfig {
        store_attempts: 1000,
        ..config()
    })
    .await;
    let mut a = Client::new("a", Access::ReadWrite);
    a.connect(&hub, "r1");
    settle(100).await;
    store.set_fail_append(true);
    a.edit(insert("lost in the store", 0));
    settle(100).await;
    a.disconnect();
    // the flush on unload fails too: the document is unloaded anyway, within the limit
    settle(2500 + 15_000).await;
    assert!(!hub.is_loaded("r1"));
    assert_eq!(hub.loaded_documents(), 0);

    // the client still has its edit and resends it on reconnect once the store works again
    store.set_fail_append(false);
    a.connect(&hub, "r1");
    let mut cs = [a];
    pump_until_quiet(&mut cs).await;
    settle(200).await;
    let stored = collab::doc_from_stored(&store.get("r1").unwrap()).unwrap();
    assert_eq!(view(&stored), view(&cs[0].doc));
}

#[tokio::test(start_paused = true)]
async fn persistent_append_failure_closes_connections_and_unloads() {
    let (hub, store) = hub_with_doc(config()).await;
    let mut a = Client::new("a", Access::ReadWrite);
    a.connect(&hub, "r1");
    settle(100).await;
    store.set_fail_append(true);
    a.edit(insert("x", 0));
    settle(2000).await;
    let link = a.link.take().unwrap();
    assert!(link.handle.is_finished());
    assert_eq!(link.handle.await.unwrap(), CloseReason::INTERNAL_ERROR);
    settle(100).await;
    assert!(!hub.is_loaded("r1"));
}

#[tokio::test(start_paused = true)]
async fn a_failed_load_refuses_the_connection_and_keeps_stored_content() {
    let (hub, store) = hub_with_doc(config()).await;
    let before = store.get("r1").unwrap();
    store.set_fail_load(true);
    let mut a = Client::new("a", Access::ReadWrite);
    a.connect(&hub, "r1");
    a.edit(insert("must not overwrite", 0));
    let link = a.link.take().unwrap();
    assert_eq!(link.handle.await.unwrap(), CloseReason::INTERNAL_ERROR);
    settle(100).await;
    assert!(!hub.is_loaded("r1"), "unloaded");
    assert_eq!(store.get("r1").unwrap(), before, "stored content untouched");
    assert_eq!(store.stats().appends, 0);

    store.set_fail_load(false);
    let mut b = Client::new("b", Access::ReadWrite);
    b.connect(&hub, "r1");
    let mut cs = [b];
    pump_until_quiet(&mut cs).await;
    assert_eq!(
        collab::report::sections_of(&cs[0].doc).len(),
        2,
        "content intact after recovery"
    );
}

#[tokio::test(start_paused = true)]
async fn an_unknown_document_is_refused_with_not_found() {
    let (hub, store) = hub_with_doc(config()).await;
    let link = connect_raw(&hub, "nope", Access::ReadWrite);
    assert_eq!(link.handle.await.unwrap(), CloseReason::NOT_FOUND);
    assert!(store.get("nope").is_none(), "nothing created");
    assert!(!hub.is_loaded("nope"));
}

#[tokio::test(start_paused = true)]
async fn a_slow_consumer_is_disconnected() {
    let (hub, _store) = hub_with_doc(HubConfig {
        outbound_queue_frames: 8,
        ..config()
    })
    .await;
    let (_keep, stuck) = connect_stuck(&hub, "r1");
    let mut a = Client::new("a", Access::ReadWrite);
    a.connect(&hub, "r1");
    for i in 0..40 {
        a.edit(insert(&format!("{i} "), 0));
        settle(5).await;
        a.pump(usize::MAX);
    }
    // behind, not closed at once: closed only once it stays behind past the limit (10 s)
    settle(100).await;
    assert!(
        !stuck.is_finished(),
        "a lagging connection is given time to drain"
    );
    settle(10_500).await;
    assert!(stuck.is_finished());
    assert_eq!(stuck.await.unwrap().code, close::SLOW_CONSUMER);
    assert!(a.connected(), "the fast client is unaffected");
}

/// A connection whose peer stops reading for a while falls behind; when its queue drains it
/// gets what it lacks as one diff (once), never an update it already holds, and the fast
/// connections receive every update, each once, while it lags.
#[tokio::test(start_paused = true)]
async fn a_lagging_connection_is_caught_up_with_one_diff_and_never_gets_duplicates() {
    use yrs::updates::decoder::Decode;
    let (hub, _store) = hub_with_doc(HubConfig {
        outbound_queue_frames: 8,
        // every edit relayed on its own, so the fast client's frames count the edits
        relay_interval: Duration::ZERO,
        ..config()
    })
    .await;
    // the slow peer: its sink accepts frames only while the gate is open
    let (gate_tx, gate) = tokio::sync::watch::channel(false);
    let (to_server, rx) =
        tokio::sync::mpsc::unbounded_channel::<Result<Bytes, std::convert::Infallible>>();
    let (tx, mut from_server) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
    let stream: ServerStream = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|m| (m, rx))
    }));
    let sink = Box::pin(futures_util::sink::unfold(
        (tx, gate),
        |(tx, mut gate), frame: Bytes| async move {
            let _ = gate.wait_for(|open| *open).await;
            tx.send(frame).map_err(|_| ())?;
            Ok::<_, ()>((tx, gate))
        },
    ));
    let h = hub.clone();
    let slow = tokio::spawn(async move {
        h.serve_connection("r1", Access::ReadOnly, stream, sink)
            .await
    });
    let slow_doc = yrs::Doc::new();
    to_server
        .send(Ok(protocol::sync_step1(&state_vector(&slow_doc))))
        .unwrap();
    settle(50).await;

    let mut a = Client::new("a", Access::ReadWrite);
    let mut b = Client::new("b", Access::ReadWrite);
    a.connect(&hub, "r1");
    b.connect(&hub, "r1");
    let mut cs = [a, b];
    pump_until_quiet(&mut cs).await;
    let [mut a, mut b] = cs;
    let mut b_updates = 0;
    for i in 0..60 {
        a.edit(insert(&format!("{i} "), 0));
        settle(5).await;
        a.pump(usize::MAX);
        b_updates += b.pump(usize::MAX);
    }
    settle(100).await;
    b_updates += b.pump(usize::MAX);
    assert_eq!(
        b_updates, 60,
        "the fast client got each update once, while the slow one lagged"
    );
    assert!(
        !slow.is_finished(),
        "the lagging connection is not closed yet"
    );

    // the slow peer reads again: it drains its queue, then gets one catch-up diff
    gate_tx.send(true).unwrap();
    settle(200).await;
    let mut frames = 0;
    let mut useless = 0;
    while let Ok(frame) = from_server.try_recv() {
        for msg in protocol::decode_frame(&frame).unwrap() {
            if let protocol::Inbound::SyncStep2(u) | protocol::Inbound::Update(u) = msg {
                frames += 1;
                let sv_before = state_vector(&slow_doc);
                slow_doc
                    .transact_mut()
                    .apply_update(yrs::Update::decode_v1(&u).unwrap())
                    .unwrap();
                if state_vector(&slow_doc) == sv_before {
                    useless += 1;
                }
            }
        }
    }
    assert_eq!(
        useless, 0,
        "no update the slow connection already held was sent again"
    );
    assert!(
        frames < 60,
        "the missing updates came merged ({frames} update frames)"
    );
    assert_eq!(
        view(&slow_doc),
        view(&a.doc),
        "the slow connection converged"
    );
    assert!(!slow.is_finished());
    drop(to_server);
}

#[tokio::test(start_paused = true)]
async fn a_sender_gets_back_only_what_it_lacks_when_the_document_held_pending_structs() {
    use yrs::updates::decoder::Decode;
    use yrs::{GetString, ReadTxn};
    let (hub, _store) = hub_with_doc(config()).await;
    // A third party's edits in three parts (clocks 0-3, 4-7, 8-11); the document first gets
    // parts 1 and 3 in one update (a struct list with a gap), so part 3 stays pending.
    let x = yrs::Doc::with_client_id(777);
    let t = x.get_or_insert_text("t");
    let mut parts = Vec::new();
    for s in ["aaaa", "bbbb", "cccc"] {
        let sv = x.transact().state_vector();
        let len = t.len(&x.transact());
        t.insert(&mut x.transact_mut(), len, s);
        parts.push(x.transact().encode_diff_v1(&sv));
    }
    let gapped = yrs::merge_updates_v1([parts[0].as_slice(), parts[2].as_slice()]).unwrap();
    let mut a = Client::new("a", Access::ReadWrite);
    let mut b = Client::new("b", Access::ReadWrite);
    a.connect(&hub, "r1");
    b.connect(&hub, "r1");
    let mut cs = [a, b];
    pump_until_quiet(&mut cs).await;
    let [mut a, mut b] = cs;
    a.send(protocol::update(&gapped));
    settle(50).await;
    a.pump(usize::MAX);
    b.pump(usize::MAX);

    // b sends part 2: the document integrates parts 2 and 3 in one transaction.
    b.send(protocol::update(&parts[1]));
    settle(50).await;
    let link = b.link.as_mut().unwrap();
    let mut lowest = Vec::new();
    while let Ok(frame) = link.from_server.try_recv() {
        for msg in protocol::decode_frame(&frame).unwrap() {
            if let protocol::Inbound::Update(u) = msg {
                let u = yrs::Update::decode_v1(&u).unwrap();
                lowest.extend(
                    u.state_vector_lower()
                        .iter()
                        .filter(|(c, _)| c.get() == 777)
                        .map(|(_, clock)| *clock),
                );
            }
        }
    }
    assert_eq!(
        lowest,
        vec![8],
        "b got part 3 (from clock 8) and not its own part 2 (from clock 4) back"
    );
    drop(a);
    let mut c = Client::new("c", Access::ReadOnly);
    c.connect(&hub, "r1");
    let mut cs = [c];
    pump_until_quiet(&mut cs).await;
    let t = cs[0].doc.get_or_insert_text("t");
    assert_eq!(
        t.get_string(&cs[0].doc.transact()),
        "aaaabbbbcccc",
        "the document has all three parts"
    );
}

#[tokio::test(start_paused = true)]
async fn updates_arriving_together_are_relayed_merged_and_never_back_to_their_sender() {
    use yrs::updates::decoder::Decode;
    let (hub, _store) = hub_with_doc(config()).await;
    let mut cs = [
        Client::new("a", Access::ReadWrite),
        Client::new("b", Access::ReadWrite),
        Client::new("c", Access::ReadWrite),
        Client::new("d", Access::ReadOnly),
    ];
    for c in cs.iter_mut() {
        c.connect(&hub, "r1");
    }
    pump_until_quiet(&mut cs).await;
    let ids: Vec<u64> = cs.iter().map(|c| c.client_id()).collect();
    // a, b and c each edit before the document's task runs: one batch of three updates.
    for (i, c) in cs.iter_mut().take(3).enumerate() {
        c.edit(insert(&format!("<{i}>"), 0));
    }
    settle(50).await;
    for (i, c) in cs.iter_mut().enumerate() {
        let link = c.link.as_mut().unwrap();
        let mut frames = Vec::new();
        while let Ok(frame) = link.from_server.try_recv() {
            for msg in protocol::decode_frame(&frame).unwrap() {
                if let protocol::Inbound::Update(u) = msg {
                    let u = yrs::Update::decode_v1(&u).unwrap();
                    let mut clients: Vec<u64> = u
                        .state_vector_lower()
                        .iter()
                        .map(|(c, _)| c.get())
                        .collect();
                    clients.sort_unstable();
                    frames.push(clients);
                }
            }
        }
        let mut expected: Vec<u64> = ids[..3]
            .iter()
            .copied()
            .filter(|id| *id != ids[i])
            .collect();
        expected.sort_unstable();
        assert_eq!(
            frames,
            vec![expected],
            "{}: one update frame with the others' edits only",
            c.name
        );
    }
}

#[tokio::test(start_paused = true)]
async fn updates_go_out_at_once_within_the_relay_budget_and_merged_past_it() {
    // The default budget (15,000 frames a second) covers two connections' edits 1 ms apart:
    // each goes out at once, as it came.
    let (hub, _store) = hub_with_doc(config()).await;
    let mut cs = [
        Client::new("a", Access::ReadWrite),
        Client::new("b", Access::ReadOnly),
    ];
    for c in cs.iter_mut() {
        c.connect(&hub, "r1");
    }
    pump_until_quiet(&mut cs).await;
    let [mut a, mut b] = cs;
    for _ in 0..10 {
        a.edit(insert("y", 0));
        settle(1).await;
        assert_eq!(b.pump(usize::MAX), 1, "each edit at once");
    }
    assert_eq!(b.text().len(), 10);

    // A budget of 100 frames a second holding 20 ms (2 frames, one relay to the two
    // connections): a lone update after a quiet spell goes out at once; the ten edits after it
    // wait, never longer than the relay interval (15 ms), and go out as one merged message.
    let (hub, _store) = hub_with_doc(HubConfig {
        relay_frames_per_sec: 100,
        relay_burst: Duration::from_millis(20),
        ..config()
    })
    .await;
    let mut cs = [
        Client::new("a", Access::ReadWrite),
        Client::new("b", Access::ReadOnly),
    ];
    for c in cs.iter_mut() {
        c.connect(&hub, "r1");
    }
    pump_until_quiet(&mut cs).await;
    let [mut a, mut b] = cs;
    settle(100).await;
    a.edit(insert("x", 0));
    settle(1).await;
    assert_eq!(b.pump(usize::MAX), 1);
    assert_eq!(b.text().len(), 1, "a lone update goes out at once");
    for _ in 0..10 {
        a.edit(insert("y", 0));
        settle(1).await;
    }
    let early = b.pump(usize::MAX);
    settle(6).await;
    let late = b.pump(usize::MAX);
    assert_eq!(early, 0, "nothing while the budget is spent");
    assert_eq!(
        late, 1,
        "one message for the ten edits, within the relay interval"
    );
    assert_eq!(b.text().len(), 11);
}

#[tokio::test(start_paused = true)]
async fn oversized_and_invalid_frames_close_the_connection() {
    let (hub, _store) = hub_with_doc(HubConfig {
        max_frame_bytes: 1024,
        ..config()
    })
    .await;
    let link = connect_raw(&hub, "r1", Access::ReadWrite);
    link.to_server
        .send(Ok(protocol::update(&vec![0u8; 2000])))
        .unwrap();
    assert_eq!(link.handle.await.unwrap().code, close::MESSAGE_TOO_LARGE);
    let link = connect_raw(&hub, "r1", Access::ReadWrite);
    link.to_server
        .send(Ok(Bytes::from_static(&[0, 9, 9])))
        .unwrap();
    assert_eq!(link.handle.await.unwrap().code, close::INVALID_MESSAGE);
    let link = connect_raw(&hub, "r1", Access::ReadWrite);
    link.to_server
        .send(Ok(protocol::update(&[1, 2, 3, 4, 5])))
        .unwrap();
    assert_eq!(
        link.handle.await.unwrap().code,
        close::INVALID_MESSAGE,
        "an undecodable update"
    );
}

#[tokio::test(start_paused = true)]
async fn a_silent_connection_times_out() {
    let (hub, _store) = hub_with_doc(HubConfig {
        read_timeout: Duration::from_secs(5),
        ..config()
    })
    .await;
    let link = connect_raw(&hub, "r1", Access::ReadWrite);
    settle(6000).await;
    assert_eq!(link.handle.await.unwrap(), CloseReason::IDLE_TIMEOUT);
}

#[tokio::test(start_paused = true)]
async fn compaction_keeps_the_state_and_shrinks_the_log() {
    let (hub, store) = hub_with_doc(HubConfig {
        compact_after_updates: 50,
        ..config()
    })
    .await;
    let mut a = Client::new("a", Access::ReadWrite);
    a.connect(&hub, "r1");
    for i in 0..300u32 {
        a.edit(insert("x", i % 7));
        if i % 3 == 0 {
            a.edit(|d| {
                let t = d.get_or_insert_text("t");
                t.remove_range(&mut d.transact_mut(), 0, 1);
            });
        }
        settle(3).await;
    }
    let mut cs = [a];
    pump_until_quiet(&mut cs).await;
    settle(500).await;
    let size = store.size("r1").unwrap();
    assert!(store.stats().compactions >= 1, "compacted");
    assert!(size.snapshot_bytes > 0);
    assert!(size.log_entries <= 60, "log shrank to the tail: {size:?}");
    let snapshot = store.get("r1").unwrap().snapshot.unwrap();
    assert_eq!(
        snapshot.encoding(),
        collab::SnapshotEncoding::V2,
        "a whole document is snapshotted in v2"
    );
    let stored = collab::doc_from_stored(&store.get("r1").unwrap()).unwrap();
    assert_eq!(view(&stored), view(&cs[0].doc));
    assert_eq!(state_vector(&stored), state_vector(&cs[0].doc));

    // a fresh hub on the same store serves the same state
    let fresh = Hub::new(store.clone(), config());
    let again = doc_of(&fresh.document_state_v1("r1").await.unwrap());
    assert_eq!(view(&again), view(&cs[0].doc));
}

#[tokio::test(start_paused = true)]
async fn updates_are_relayed_before_commit_and_written_in_batches() {
    let (hub, store) = hub_with_doc(HubConfig {
        relay_interval: Duration::ZERO,
        ..config()
    })
    .await;
    store.set_latency(Duration::from_millis(15));
    let mut a = Client::new("a", Access::ReadWrite);
    let mut b = Client::new("b", Access::ReadWrite);
    a.connect(&hub, "r1");
    b.connect(&hub, "r1");
    let mut cs = [a, b];
    pump_until_quiet(&mut cs).await;
    let [mut a, mut b] = cs;
    let appends_before = store.stats().appends;
    for _ in 0..100 {
        a.edit(insert("z", 0));
    }
    settle(1).await;
    b.pump(usize::MAX);
    assert_eq!(
        b.text().len(),
        100,
        "relayed at once, before the store answered"
    );
    settle(200).await;
    let s = store.stats();
    assert!(
        s.appends - appends_before <= 3,
        "group commit: {} appends for 100 updates",
        s.appends - appends_before
    );
    let stored = collab::doc_from_stored(&store.get("r1").unwrap()).unwrap();
    assert_eq!(view(&stored), view(&a.doc));
}

#[tokio::test(start_paused = true)]
async fn server_updates_are_applied_relayed_and_stored() {
    let (hub, store) = hub_with_doc(config()).await;
    let mut a = Client::new("a", Access::ReadWrite);
    a.connect(&hub, "r1");
    let mut cs = [a];
    pump_until_quiet(&mut cs).await;
    let server_side = doc_of(&hub.document_state_v1("r1").await.unwrap());
    let before = yrs::ReadTxn::state_vector(&server_side.transact());
    {
        let t = server_side.get_or_insert_text("t");
        t.insert(&mut server_side.transact_mut(), 0, "generated");
    }
    let update = yrs::ReadTxn::encode_diff_v1(&server_side.transact(), &before);
    hub.apply_update("r1", update).await.unwrap();
    pump_until_quiet(&mut cs).await;
    assert_eq!(cs[0].text(), "generated");
    settle(100).await;
    let stored = collab::doc_from_stored(&store.get("r1").unwrap()).unwrap();
    assert_eq!(view(&stored), view(&cs[0].doc));
    assert!(
        hub.apply_update("r1", vec![9, 9, 9]).await.is_err(),
        "garbage is refused"
    );
}

#[tokio::test(start_paused = true)]
async fn shutdown_closes_connections_and_flushes() {
    let (hub, store) = hub_with_doc(config()).await;
    store.set_latency(Duration::from_millis(50));
    let mut a = Client::new("a", Access::ReadWrite);
    a.connect(&hub, "r1");
    settle(200).await;
    a.pump(usize::MAX);
    a.edit(insert("last words", 0));
    settle(1).await;
    hub.shutdown().await;
    let link = a.link.take().unwrap();
    assert_eq!(link.handle.await.unwrap(), CloseReason::SHUTTING_DOWN);
    let stored = collab::doc_from_stored(&store.get("r1").unwrap()).unwrap();
    assert_eq!(view(&stored), view(&a.doc));
    assert_eq!(
        connect_raw(&hub, "r1", Access::ReadWrite)
            .handle
            .await
            .unwrap(),
        CloseReason::SHUTTING_DOWN
    );
}
