//! Seeded, randomised convergence: many simulated clients edit a text and XML fragments at
//! random, with random delivery timing, disconnects and reconnects, on one hub or on two hubs
//! joined by a lossy fan-out. Every client, every hub and a fresh hub loading the store must
//! end in the same state.

mod common;

use std::sync::Arc;
use std::time::Duration;

use collab::report::{SectionInit, initial_update};
use collab::{Access, Hub, HubConfig, MemoryFanout, MemoryStore};
use common::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use yrs::types::xml::XmlOut;
use yrs::{Text, Transact, XmlElementPrelim, XmlFragment, XmlTextPrelim};

const DOC: &str = "report";

fn hub_config(instance: u64) -> HubConfig {
    HubConfig {
        instance_id: instance,
        idle_unload_after: Duration::from_millis(800),
        compact_after_updates: 40,
        awareness_flush: Duration::from_millis(20),
        fanout_heartbeat: Duration::from_millis(500),
        ..HubConfig::default()
    }
}

fn random_text_edit(rng: &mut StdRng) -> impl FnOnce(&yrs::Doc) {
    let roll: u32 = rng.random_range(0..100);
    let pos: u32 = rng.random_range(0..1000);
    let len: u32 = rng.random_range(1..4);
    let ch = char::from(b'a' + rng.random_range(0..26u8));
    move |d| {
        let t = d.get_or_insert_text("t");
        let mut txn = d.transact_mut();
        let n = t.len(&txn);
        if roll < 70 || n == 0 {
            t.insert(
                &mut txn,
                pos % (n + 1),
                &ch.to_string().repeat(len as usize),
            );
        } else {
            let at = pos % n;
            t.remove_range(&mut txn, at, len.min(n - at));
        }
    }
}

fn random_xml_edit(rng: &mut StdRng) -> impl FnOnce(&yrs::Doc) {
    let section: u32 = rng.random_range(0..3);
    let roll: u32 = rng.random_range(0..100);
    let pos: u32 = rng.random_range(0..1000);
    let word = format!("w{}", rng.random_range(0..1000));
    move |d| {
        let f = d.get_or_insert_xml_fragment(format!("section:s{section}"));
        let mut txn = d.transact_mut();
        let n = f.len(&txn);
        if n == 0 || roll < 25 {
            f.insert(
                &mut txn,
                pos % (n + 1),
                XmlElementPrelim::empty("paragraph"),
            );
        } else if roll < 40 && n > 1 {
            f.remove_range(&mut txn, pos % n, 1);
        } else if let Some(XmlOut::Element(p)) = f.get(&txn, pos % n) {
            let m = p.len(&txn);
            p.insert(&mut txn, pos % (m + 1), XmlTextPrelim::new(word));
        }
    }
}

/// Whether `a` already contains every change of `b`.
fn holds_all_of(a: &yrs::Doc, b: &yrs::Doc) -> bool {
    use yrs::ReadTxn;
    let copy = doc_of(
        &a.transact()
            .encode_state_as_update_v1(&yrs::StateVector::default()),
    );
    let changed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = changed.clone();
    copy.observe_update_v1("check", move |_, _| {
        flag.store(true, std::sync::atomic::Ordering::SeqCst)
    })
    .unwrap();
    let state = b
        .transact()
        .encode_state_as_update_v1(&yrs::StateVector::default());
    use yrs::updates::decoder::Decode;
    copy.transact_mut()
        .apply_update(yrs::Update::decode_v1(&state).unwrap())
        .unwrap();
    !changed.load(std::sync::atomic::Ordering::SeqCst)
}

async fn scenario(seed: u64, hub_count: usize, drop_probability: f64, steps: usize) {
    if std::env::var("CONVERGENCE_DEBUG").is_ok() {
        eprintln!("seed {seed} start {:?}", std::time::SystemTime::now());
    }
    let store = Arc::new(MemoryStore::new());
    let fanout = MemoryFanout::new();
    fanout.set_drop_probability(drop_probability, seed);
    let hubs: Vec<Hub> = (0..hub_count as u64)
        .map(|i| {
            if hub_count == 1 {
                Hub::new(store.clone(), hub_config(i + 1))
            } else {
                Hub::with_fanout(store.clone(), Arc::new(fanout.clone()), hub_config(i + 1))
            }
        })
        .collect();
    let sections: Vec<SectionInit> = (0..3)
        .map(|i| SectionInit {
            nodes: Vec::new(),
            id: format!("s{i}"),
            title: format!("Section {i}"),
            paragraphs: Vec::new(),
        })
        .collect();
    hubs[0]
        .create_document(DOC, initial_update(&sections))
        .await
        .unwrap();

    let mut rng = StdRng::seed_from_u64(seed);
    let mut clients: Vec<Client> = (0..6)
        .map(|i| {
            Client::new(
                &format!("c{i}"),
                if i == 5 {
                    Access::ReadOnly
                } else {
                    Access::ReadWrite
                },
            )
        })
        .collect();
    for c in clients.iter_mut() {
        let h = rng.random_range(0..hub_count);
        c.connect(&hubs[h], DOC);
    }

    for _ in 0..steps {
        let i = rng.random_range(0..clients.len());
        match rng.random_range(0..100u32) {
            0..=34 => {
                let edit = random_text_edit(&mut rng);
                clients[i].edit(edit);
            }
            35..=59 => {
                let edit = random_xml_edit(&mut rng);
                clients[i].edit(edit);
            }
            60..=67 => {
                let n = rng.random_range(0..100);
                clients[i].set_awareness(&format!("{{\"cursor\":{n}}}"));
            }
            68..=72 => clients[i].disconnect(),
            73..=80 => {
                if !clients[i].connected() {
                    let h = rng.random_range(0..hub_count);
                    clients[i].connect(&hubs[h], DOC);
                }
            }
            _ => {
                let n = rng.random_range(0..20);
                clients[i].pump(n);
            }
        }
        if rng.random_range(0..4) == 0 {
            settle(rng.random_range(0..40)).await;
        }
        let j = rng.random_range(0..clients.len());
        let n = rng.random_range(0..5);
        clients[j].pump(n);
    }

    // Heal: no more losses, everyone reconnects, heartbeats reveal the last gaps.
    fanout.set_drop_probability(0.0, seed);
    for c in clients.iter_mut() {
        if !c.connected() {
            let h = rng.random_range(0..hub_count);
            c.connect(&hubs[h], DOC);
        }
    }
    for _ in 0..4 {
        pump_until_quiet(&mut clients).await;
        settle(1500).await;
    }
    pump_until_quiet(&mut clients).await;

    if std::env::var("CONVERGENCE_DEBUG").is_ok() {
        for c in &clients {
            eprintln!(
                "s{seed} {} {:?} waiting={} sv={:?} pending={}",
                c.name,
                c.connected(),
                c.waiting.len(),
                state_vector(&c.doc),
                yrs::ReadTxn::has_missing_updates(&yrs::Transact::transact(&c.doc))
            );
        }
        for hub in &hubs {
            let server = doc_of(&hub.document_state_v1(DOC).await.unwrap());
            eprintln!("s{seed} hub sv={:?}", state_vector(&server));
        }
        let stored = collab::doc_from_stored(&store.get(DOC).unwrap()).unwrap();
        eprintln!(
            "s{seed} store {}",
            view(&stored).split(" s0=").next().unwrap()
        );
    }
    let reference = view(&clients[0].doc);
    let reference_sv = state_vector(&clients[0].doc);
    // The viewer (c5) keeps its refused local edits in its own copy (a real editor is
    // non-editable for viewers), so it must hold everything the others hold, plus those.
    let (viewer, editors) = clients.split_last().unwrap();
    assert!(
        holds_all_of(&viewer.doc, &editors[0].doc),
        "seed {seed}: the viewer missed updates"
    );
    for c in &editors[1..] {
        assert_eq!(
            view(&c.doc),
            reference,
            "seed {seed}: client {} diverged",
            c.name
        );
        assert_eq!(
            state_vector(&c.doc),
            reference_sv,
            "seed {seed}: client {} state vector",
            c.name
        );
    }
    for (h, hub) in hubs.iter().enumerate() {
        let server = doc_of(&hub.document_state_v1(DOC).await.unwrap());
        assert_eq!(view(&server), reference, "seed {seed}: hub {h} diverged");
    }
    assert!(
        reference.len() > 100,
        "the scenario edited something: {reference}"
    );
    let viewer_denied = clients[5].denied;
    assert!(
        viewer_denied > 0,
        "seed {seed}: the viewer's edits were refused"
    );

    // Everything is durable: a fresh hub loading the store holds the same state.
    for c in clients.iter_mut() {
        c.disconnect();
    }
    for hub in &hubs {
        hub.shutdown().await;
    }
    if let Err(e) = collab::doc_from_stored(&store.get(DOC).unwrap()) {
        panic!("seed {seed}: stored state unreadable: {e}");
    }
    let fresh = Hub::new(store.clone(), hub_config(99));
    let reloaded = doc_of(&fresh.document_state_v1(DOC).await.unwrap());
    assert_eq!(
        view(&reloaded),
        reference,
        "seed {seed}: the store lost something"
    );
}

/// Number of seeds per scenario (`COLLAB_SEEDS`, default 8).
fn seeds(base: u64) -> std::ops::Range<u64> {
    let n = std::env::var("COLLAB_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    base..base + n
}

#[tokio::test(start_paused = true)]
async fn one_hub_converges_under_random_edits_and_reconnects() {
    for seed in seeds(0) {
        scenario(seed, 1, 0.0, 400).await;
    }
}

#[tokio::test(start_paused = true)]
async fn two_hubs_converge_through_the_fanout() {
    for seed in seeds(1000) {
        scenario(seed, 2, 0.0, 400).await;
    }
}

#[tokio::test(start_paused = true)]
async fn two_hubs_converge_when_the_fanout_loses_messages() {
    for seed in seeds(2000) {
        scenario(seed, 2, 0.1, 400).await;
    }
}

#[tokio::test(start_paused = true)]
async fn two_hubs_converge_after_subscriptions_restart() {
    let store = Arc::new(MemoryStore::new());
    let fanout = MemoryFanout::new();
    let a = Hub::with_fanout(store.clone(), Arc::new(fanout.clone()), hub_config(1));
    let b = Hub::with_fanout(store.clone(), Arc::new(fanout.clone()), hub_config(2));
    a.create_document(DOC, initial_update(&[])).await.unwrap();
    let mut x = Client::new("x", Access::ReadWrite);
    let mut y = Client::new("y", Access::ReadWrite);
    x.connect(&a, DOC);
    y.connect(&b, DOC);
    let mut cs = [x, y];
    pump_until_quiet(&mut cs).await;
    // the subscriptions die; edits made meanwhile are not relayed...
    fanout.restart_subscriptions();
    cs[0].edit(|d| {
        let t = d.get_or_insert_text("t");
        t.insert(&mut d.transact_mut(), 0, "during the outage");
    });
    settle(50).await;
    // ...until the hubs resubscribe and resync
    settle(2000).await;
    pump_until_quiet(&mut cs).await;
    assert_eq!(cs[1].text(), "during the outage");
}
