//! The y-protocols wire format (as spoken by the `y-websocket` 3.x provider with yjs 13).
//!
//! Every outgoing frame built here holds exactly ONE message: the JavaScript client reads one
//! message per WebSocket frame and silently drops anything after it. Incoming frames may hold
//! several messages; they are all read.
//!
//! | type | message | layout |
//! |---|---|---|
//! | 0 | Sync | `[0, 0, sv]` SyncStep1, `[0, 1, update]` SyncStep2, `[0, 2, update]` Update (updates in v1 encoding) |
//! | 1 | Awareness | `[1, varBuf(n × (client, clock, json))]` |
//! | 2 | Auth | `[2, 0, reason]` permission denied |
//! | 3 | QueryAwareness | `[3]` |

use bytes::Bytes;
use yrs::StateVector;
use yrs::encoding::write::Write;
use yrs::sync::protocol::{
    MSG_AUTH, MSG_AWARENESS, MSG_QUERY_AWARENESS, MSG_SYNC, MSG_SYNC_STEP_1, MSG_SYNC_STEP_2,
    MSG_SYNC_UPDATE, PERMISSION_DENIED,
};
use yrs::sync::{AwarenessUpdate, Message, MessageReader, SyncMessage};
use yrs::updates::decoder::DecoderV1;
use yrs::updates::encoder::Encode;

/// The reason sent with the permission-denied message when a read-only connection sends an
/// edit. The y-websocket client logs it as a warning.
pub const READ_ONLY_REASON: &str = "read-only access: edits are not accepted";

/// The v1 encoding of an update that carries nothing (no structs, empty delete set).
pub const EMPTY_UPDATE_V1: &[u8] = &[0, 0];

/// One decoded incoming message.
#[derive(Debug)]
pub enum Inbound {
    /// `[0, 0, sv]`: the peer's state vector; it expects a SyncStep2 with what it lacks.
    SyncStep1(StateVector),
    /// `[0, 1, update]`: the answer to our SyncStep1 (v1 update).
    SyncStep2(Bytes),
    /// `[0, 2, update]`: an incremental update (v1).
    Update(Bytes),
    /// `[1, ...]`: awareness states of one or more clients.
    Awareness(AwarenessUpdate),
    /// `[3]`: the peer asks for all current awareness states.
    QueryAwareness,
    /// A message this service does not act on (Auth from a client, unknown types).
    Ignored(u8),
}

/// Decodes every message of one incoming frame.
pub fn decode_frame(frame: &[u8]) -> Result<Vec<Inbound>, yrs::encoding::read::Error> {
    let mut decoder = DecoderV1::from(frame);
    let mut out = Vec::with_capacity(1);
    for msg in MessageReader::new(&mut decoder) {
        out.push(match msg? {
            Message::Sync(SyncMessage::SyncStep1(sv)) => Inbound::SyncStep1(sv),
            Message::Sync(SyncMessage::SyncStep2(u)) => Inbound::SyncStep2(Bytes::from(u)),
            Message::Sync(SyncMessage::Update(u)) => Inbound::Update(Bytes::from(u)),
            Message::Awareness(a) => Inbound::Awareness(a),
            Message::AwarenessQuery => Inbound::QueryAwareness,
            Message::Auth(_) => Inbound::Ignored(MSG_AUTH),
            Message::Custom(tag, _) => Inbound::Ignored(tag),
        });
    }
    Ok(out)
}

fn sync_frame(kind: u8, payload: &[u8]) -> Bytes {
    let mut buf = Vec::with_capacity(payload.len() + 8);
    buf.write_var(MSG_SYNC);
    buf.write_var(kind);
    buf.write_buf(payload);
    Bytes::from(buf)
}

/// `[0, 0, sv]`: SyncStep1 carrying a state vector.
pub fn sync_step1(sv: &StateVector) -> Bytes {
    sync_frame(MSG_SYNC_STEP_1, &sv.encode_v1())
}

/// `[0, 1, update]`: SyncStep2 carrying a v1 update.
pub fn sync_step2(update_v1: &[u8]) -> Bytes {
    sync_frame(MSG_SYNC_STEP_2, update_v1)
}

/// `[0, 2, update]`: an incremental v1 update.
pub fn update(update_v1: &[u8]) -> Bytes {
    sync_frame(MSG_SYNC_UPDATE, update_v1)
}

/// `[1, varBuf(awareness update)]`.
pub fn awareness(update: &AwarenessUpdate) -> Bytes {
    let payload = update.encode_v1();
    let mut buf = Vec::with_capacity(payload.len() + 6);
    buf.write_var(MSG_AWARENESS);
    buf.write_buf(&payload);
    Bytes::from(buf)
}

/// `[3]`: asks the peer for its awareness states.
pub fn query_awareness() -> Bytes {
    Bytes::from_static(&[MSG_QUERY_AWARENESS])
}

/// `[2, 0, reason]`: permission denied.
pub fn permission_denied(reason: &str) -> Bytes {
    let mut buf = Vec::with_capacity(reason.len() + 4);
    buf.write_var(MSG_AUTH);
    buf.write_var(PERMISSION_DENIED);
    buf.write_string(reason);
    Bytes::from(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use yrs::{Doc, ReadTxn, Text, Transact};

    #[test]
    fn frames_round_trip_one_message_each() {
        let doc = Doc::new();
        let text = doc.get_or_insert_text("t");
        text.insert(&mut doc.transact_mut(), 0, "hello");
        let sv = doc.transact().state_vector();
        let full = doc
            .transact()
            .encode_state_as_update_v1(&StateVector::default());

        let f = sync_step1(&sv);
        assert_eq!(&f[..2], &[0, 0]);
        match decode_frame(&f).unwrap().as_slice() {
            [Inbound::SyncStep1(got)] => assert_eq!(got, &sv),
            other => panic!("unexpected {other:?}"),
        }
        match decode_frame(&sync_step2(&full)).unwrap().as_slice() {
            [Inbound::SyncStep2(u)] => assert_eq!(&u[..], &full[..]),
            other => panic!("unexpected {other:?}"),
        }
        match decode_frame(&update(&full)).unwrap().as_slice() {
            [Inbound::Update(u)] => assert_eq!(&u[..], &full[..]),
            other => panic!("unexpected {other:?}"),
        }
        let denied = permission_denied("no");
        assert_eq!(&denied[..], &[2, 0, 2, b'n', b'o']);
        assert!(matches!(
            decode_frame(&query_awareness()).unwrap().as_slice(),
            [Inbound::QueryAwareness]
        ));
    }

    #[test]
    fn several_messages_in_one_incoming_frame_are_all_read() {
        let mut frame = update(EMPTY_UPDATE_V1).to_vec();
        frame.extend_from_slice(&query_awareness());
        assert_eq!(decode_frame(&frame).unwrap().len(), 2);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(decode_frame(&[0, 7, 1, 1]).is_err());
    }
}
