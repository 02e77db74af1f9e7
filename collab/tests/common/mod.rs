//! A simulated y-websocket client: a yrs `Doc` speaking the protocol through
//! `Hub::serve_connection` over in-memory channels.
#![allow(dead_code)]

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use collab::protocol::{self, Inbound};
use collab::{Access, CloseReason, Hub, Rights};
use futures_util::SinkExt;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use yrs::block::ClientID;
use yrs::sync::awareness::{AwarenessUpdate, AwarenessUpdateEntry};
use yrs::updates::decoder::Decode;
use yrs::{Doc, GetString, ReadTxn, StateVector, Transact, Update, XmlFragment};

pub(crate) type ServerStream =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = Result<Bytes, Infallible>> + Send>>;

/// One live connection of a client.
pub(crate) struct Link {
    pub to_server: mpsc::UnboundedSender<Result<Bytes, Infallible>>,
    pub from_server: mpsc::UnboundedReceiver<Bytes>,
    pub handle: JoinHandle<CloseReason>,
}

/// Opens a raw connection to `doc` on `hub`, returning the channels and the serve task (its
/// rights fixed at `access`).
pub(crate) fn connect_raw(hub: &Hub, doc: &str, access: Access) -> Link {
    connect_with_rights(hub, doc, access).0
}

/// Opens a raw connection whose rights the caller holds and may change while it is open.
pub(crate) fn connect_with_rights(
    hub: &Hub,
    doc: &str,
    access: Access,
) -> (Link, tokio::sync::watch::Sender<Rights>) {
    let (rights_tx, rights) = tokio::sync::watch::channel(Ok(access));
    let (to_server, rx) = mpsc::unbounded_channel::<Result<Bytes, Infallible>>();
    let (tx, from_server) = mpsc::unbounded_channel::<Bytes>();
    let stream: ServerStream = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|m| (m, rx))
    }));
    let sink = Box::pin(futures_util::sink::unfold(
        tx,
        |tx, frame: Bytes| async move {
            tx.send(frame).map_err(|_| ())?;
            Ok::<_, ()>(tx)
        },
    ));
    let hub = hub.clone();
    let doc = doc.to_owned();
    let handle =
        tokio::spawn(async move { hub.serve_connection_with(&doc, rights, stream, sink).await });
    (
        Link {
            to_server,
            from_server,
            handle,
        },
        rights_tx,
    )
}

/// Opens a connection whose sink never accepts a frame (a peer that stopped reading).
pub(crate) fn connect_stuck(
    hub: &Hub,
    doc: &str,
) -> (
    mpsc::UnboundedSender<Result<Bytes, Infallible>>,
    JoinHandle<CloseReason>,
) {
    let (to_server, rx) = mpsc::unbounded_channel::<Result<Bytes, Infallible>>();
    let stream: ServerStream = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|m| (m, rx))
    }));
    let sink = Box::pin(futures_util::sink::drain().with(|b: Bytes| async move {
        std::future::pending::<()>().await;
        Ok::<_, Infallible>(b)
    }));
    let hub = hub.clone();
    let doc = doc.to_owned();
    let handle = tokio::spawn(async move {
        hub.serve_connection(&doc, Access::ReadWrite, stream, sink)
            .await
    });
    (to_server, handle)
}

/// A simulated editor or viewer.
pub(crate) struct Client {
    pub name: String,
    pub doc: Doc,
    pub access: Access,
    captured: Arc<Mutex<Vec<Vec<u8>>>>,
    pub link: Option<Link>,
    pub denied: usize,
    pub awareness_seen: Vec<(u64, u32, String)>,
    pub aw_clock: u32,
    pub closed_with: Vec<CloseReason>,
    pub waiting: Vec<Vec<u8>>,
    pub recent: Vec<(u8, u8)>,
}

fn starts_beyond(update: &[u8], sv: &StateVector) -> bool {
    let u = Update::decode_v1(update).unwrap();
    u.state_vector_lower()
        .iter()
        .any(|(client, clock)| *clock > sv.get(client))
}

impl Client {
    pub(crate) fn new(name: &str, access: Access) -> Self {
        let doc = Doc::new();
        let captured = Arc::new(Mutex::new(Vec::new()));
        let sink = captured.clone();
        doc.observe_update_v1("test", move |_, e| {
            sink.lock().unwrap().push(e.update.clone())
        })
        .unwrap();
        Self {
            name: name.to_owned(),
            doc,
            access,
            captured,
            link: None,
            denied: 0,
            awareness_seen: Vec::new(),
            aw_clock: 0,
            closed_with: Vec::new(),
            waiting: Vec::new(),
            recent: Vec::new(),
        }
    }

    pub(crate) fn client_id(&self) -> u64 {
        self.doc.client_id().get()
    }

    pub(crate) fn connected(&self) -> bool {
        self.link.as_ref().is_some_and(|l| !l.handle.is_finished())
    }

    /// Connects like the y-websocket provider: sends SyncStep1 with its state vector.
    pub(crate) fn connect(&mut self, hub: &Hub, doc: &str) {
        self.take_captured();
        let link = connect_raw(hub, doc, self.access);
        let sv = self.doc.transact().state_vector();
        link.to_server.send(Ok(protocol::sync_step1(&sv))).unwrap();
        self.link = Some(link);
    }

    /// Connects like [`Client::connect`], with rights the caller may change while connected.
    pub(crate) fn connect_with_rights(
        &mut self,
        hub: &Hub,
        doc: &str,
    ) -> tokio::sync::watch::Sender<Rights> {
        self.take_captured();
        let (link, rights) = connect_with_rights(hub, doc, self.access);
        let sv = self.doc.transact().state_vector();
        link.to_server.send(Ok(protocol::sync_step1(&sv))).unwrap();
        self.link = Some(link);
        rights
    }

    /// Drops the connection (like closing the tab or losing the network).
    pub(crate) fn disconnect(&mut self) {
        self.link = None;
    }

    pub(crate) fn send(&self, frame: Bytes) {
        if let Some(link) = &self.link {
            let _ = link.to_server.send(Ok(frame));
        }
    }

    fn take_captured(&self) -> Vec<Vec<u8>> {
        std::mem::take(&mut *self.captured.lock().unwrap())
    }

    /// Runs a local edit and sends the resulting update if connected (kept locally otherwise,
    /// and sent by the sync exchange on the next connection).
    pub(crate) fn edit(&mut self, f: impl FnOnce(&Doc)) {
        f(&self.doc);
        for u in self.take_captured() {
            self.send(protocol::update(&u));
        }
    }

    /// Sends an awareness state for this client (renewal increments the clock).
    pub(crate) fn set_awareness(&mut self, json: &str) {
        self.aw_clock += 1;
        let mut clients = std::collections::HashMap::new();
        clients.insert(
            ClientID::new(self.client_id()),
            AwarenessUpdateEntry {
                clock: self.aw_clock,
                json: json.into(),
            },
        );
        self.send(protocol::awareness(&AwarenessUpdate { clients }));
    }

    /// Processes at most `max` frames received from the server. Returns how many.
    pub(crate) fn pump(&mut self, max: usize) -> usize {
        let mut n = 0;
        while n < max {
            let Some(link) = self.link.as_mut() else {
                break;
            };
            let Ok(frame) = link.from_server.try_recv() else {
                break;
            };
            n += 1;
            self.recent
                .push((frame[0], frame.get(1).copied().unwrap_or(0)));
            if self.recent.len() > 20 {
                self.recent.remove(0);
            }
            for msg in protocol::decode_frame(&frame).expect("server frames decode") {
                match msg {
                    Inbound::SyncStep1(sv) => {
                        let diff = self.doc.transact().encode_diff_v1(&sv);
                        self.send(protocol::sync_step2(&diff));
                    }
                    Inbound::SyncStep2(u) | Inbound::Update(u) => {
                        // Yjs order: an update that starts beyond our state waits for the gap.
                        self.waiting.push(u.to_vec());
                        self.apply_waiting();
                    }
                    Inbound::Awareness(a) => {
                        for (id, e) in a.clients {
                            self.awareness_seen
                                .push((id.get(), e.clock, e.json.to_string()));
                        }
                    }
                    Inbound::QueryAwareness => {}
                    Inbound::Ignored(2) => self.denied += 1,
                    Inbound::Ignored(_) => {}
                }
            }
        }
        n
    }

    fn apply_waiting(&mut self) {
        loop {
            let sv = self.doc.transact().state_vector();
            let Some(i) = self.waiting.iter().position(|w| !starts_beyond(w, &sv)) else {
                break;
            };
            let w = self.waiting.remove(i);
            self.doc
                .transact_mut()
                .apply_update(Update::decode_v1(&w).unwrap())
                .unwrap();
            self.take_captured();
        }
    }

    /// Latest awareness JSON seen for a client id.
    pub(crate) fn awareness_of(&self, id: u64) -> Option<String> {
        self.awareness_seen
            .iter()
            .rev()
            .find(|(c, _, _)| *c == id)
            .map(|(_, _, j)| j.clone())
    }

    pub(crate) fn text(&self) -> String {
        let t = self.doc.get_or_insert_text("t");
        t.get_string(&self.doc.transact())
    }
}

/// What a document shows: the text `t`, the XML of the fragments `section:s0..s2`, and the
/// sections map. Two docs with equal views and state vectors hold the same content.
pub(crate) fn view(doc: &Doc) -> String {
    let t = doc.get_or_insert_text("t");
    let frags: Vec<_> = (0..3)
        .map(|i| doc.get_or_insert_xml_fragment(format!("section:s{i}")))
        .collect();
    let txn = doc.transact();
    let mut out = format!("t={:?}", t.get_string(&txn));
    for (i, f) in frags.iter().enumerate() {
        out.push_str(&format!(" s{i}={}", f.get_string(&txn)));
    }
    drop(txn);
    let sections = collab::report::sections_of(doc);
    out.push_str(&format!(" sections={sections:?}"));
    out
}

/// A doc built from a v1 state.
pub(crate) fn doc_of(state_v1: &[u8]) -> Doc {
    let doc = Doc::new();
    doc.transact_mut()
        .apply_update(Update::decode_v1(state_v1).unwrap())
        .unwrap();
    doc
}

pub(crate) fn state_vector(doc: &Doc) -> StateVector {
    doc.transact().state_vector()
}

/// Lets spawned tasks run (with paused time, advances the clock by `ms`).
pub(crate) async fn settle(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// Pumps every client until no frame has moved for a few rounds.
pub(crate) async fn pump_until_quiet(clients: &mut [Client]) {
    let mut quiet = 0;
    let mut rounds = 0;
    while quiet < 5 {
        rounds += 1;
        if rounds > 2000 {
            for c in clients.iter() {
                eprintln!(
                    "{} recent {:?} waiting {}",
                    c.name,
                    c.recent,
                    c.waiting.len()
                );
            }
            panic!("never quiet");
        }
        settle(20).await;
        let moved: usize = clients.iter_mut().map(|c| c.pump(usize::MAX)).sum();
        quiet = if moved == 0 { quiet + 1 } else { 0 };
    }
}

pub(crate) fn frag_len(doc: &Doc, name: &str) -> u32 {
    let f = doc.get_or_insert_xml_fragment(name);
    f.len(&doc.transact())
}
