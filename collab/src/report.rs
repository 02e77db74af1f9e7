//! The report document schema, shared with the web editor, and its initial content (built on
//! the server, never seeded by a client, so reloading a report never duplicates content).
//!
//! Schema of a report's Y.Doc:
//! - a root **Y.Map named `sections`**, keyed by section id; each value is a **Y.Map** with
//!   - `title`: string, the section title;
//!   - `order`: string, a fractional index key; sections are shown in ascending
//!     lexicographic (byte) order of this key, ties broken by id. Keys use the base-62 format
//!     of the npm `fractional-indexing` package (`a0`, `a1`, ..., `az`, `b00`, ...), so the web
//!     app creates keys between two sections with `generateKeyBetween(before, after)` and a
//!     move rewrites one key;
//! - for each section, a root **Y.XmlFragment named `section:{id}`** with the section's rich
//!   text, in Tiptap/ProseMirror node names (bound with Tiptap's Collaboration extension,
//!   `field: "section:{id}"`). A new section holds one empty `paragraph` element.
//!
//! Removing a section deletes its key from `sections`; its fragment then stays unreferenced
//! (root types cannot be deleted in Yjs) and is emptied by the client that removes it.

use yrs::{
    Any, Doc, GetString, In, Map, MapPrelim, Out, ReadTxn, StateVector, Transact, Xml,
    XmlElementPrelim, XmlFragment, XmlTextPrelim,
};

use crate::store::StoredDoc;

/// Name of the root map that lists the sections.
pub const SECTIONS_MAP: &str = "sections";
/// Key of a section's title in its map.
pub const TITLE_KEY: &str = "title";
/// Key of a section's order key in its map.
pub const ORDER_KEY: &str = "order";
/// Tiptap's paragraph node name.
pub const PARAGRAPH: &str = "paragraph";

/// Name of the XmlFragment holding a section's rich text: `section:{id}`.
pub fn fragment_name(section_id: &str) -> String {
    format!("section:{section_id}")
}

/// A section of a new report: its id (unique within the report), title and starting text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SectionInit {
    /// Section id, unique within the report (e.g. a UUID).
    pub id: String,
    /// Section title.
    pub title: String,
    /// The section's first paragraphs (a template's content); none (and no `nodes`) gives one
    /// empty paragraph.
    pub paragraphs: Vec<String>,
    /// Elements written after the paragraphs (a template's tables and charts), in the editor's
    /// node names and attributes.
    pub nodes: Vec<NodeInit>,
}

/// An element (tag, string attributes, children) or a run of plain text, written into a
/// section's fragment as the editor stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeInit {
    /// An element.
    Element {
        /// Node name (`table`, `tableRow`, `chart`...).
        tag: String,
        /// Attributes, each a string.
        attrs: Vec<(String, String)>,
        /// Children.
        children: Vec<NodeInit>,
    },
    /// Plain text.
    Text(String),
}

impl NodeInit {
    /// An element.
    pub fn element(tag: &str, attrs: Vec<(String, String)>, children: Vec<NodeInit>) -> NodeInit {
        NodeInit::Element {
            tag: tag.to_owned(),
            attrs,
            children,
        }
    }

    /// A paragraph holding `text` (an empty one when `text` is empty).
    pub fn paragraph(text: &str) -> NodeInit {
        let children = if text.is_empty() {
            Vec::new()
        } else {
            vec![NodeInit::Text(text.to_owned())]
        };
        NodeInit::element(PARAGRAPH, Vec::new(), children)
    }
}

fn write_node<F: XmlFragment>(txn: &mut yrs::TransactionMut<'_>, parent: &F, node: &NodeInit) {
    match node {
        NodeInit::Element {
            tag,
            attrs,
            children,
        } => {
            let e = parent.push_back(txn, XmlElementPrelim::empty(tag.as_str()));
            for (k, v) in attrs {
                e.insert_attribute(txn, k.as_str(), v.as_str());
            }
            for c in children {
                write_node(txn, &e, c);
            }
        }
        NodeInit::Text(text) => {
            parent.push_back(txn, XmlTextPrelim::new(text.as_str()));
        }
    }
}

/// A section as read from a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionInfo {
    /// Section id.
    pub id: String,
    /// Section title (empty if missing).
    pub title: String,
    /// Fractional order key (empty if missing).
    pub order: String,
}

/// Why a list of sections cannot seed a report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SectionError {
    /// A section id is empty after trimming.
    #[error("section {0} has an empty id")]
    EmptyId(usize),
    /// Two sections share an id.
    #[error("duplicate section id {0:?}")]
    DuplicateId(String),
}

/// Checks that section ids are non-empty and unique (call before [`initial_update`] when the
/// ids do not come from a generator).
pub fn check_sections(sections: &[SectionInit]) -> Result<(), SectionError> {
    let mut seen = std::collections::HashSet::new();
    for (i, s) in sections.iter().enumerate() {
        if s.id.trim().is_empty() {
            return Err(SectionError::EmptyId(i));
        }
        if !seen.insert(s.id.as_str()) {
            return Err(SectionError::DuplicateId(s.id.clone()));
        }
    }
    Ok(())
}

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The `n`-th consecutive integer key of the `fractional-indexing` format, starting at `a0`
/// (`a0`..`az`, then `b00`..`bzz`, then `c000`...).
pub fn order_key(mut n: u64) -> String {
    let mut digits = 1u32;
    loop {
        let span = 62u64.saturating_pow(digits);
        if n < span || digits >= 26 {
            break;
        }
        n -= span;
        digits += 1;
    }
    let mut key = vec![b'a' + (digits - 1) as u8];
    let mut body = vec![b'0'; digits as usize];
    for slot in body.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    key.extend(body);
    String::from_utf8(key).unwrap_or_default()
}

/// Root map of a report's branding, shared by everyone editing it: `primaryColor`,
/// `secondaryColor`, `backgroundColor` (`#rrggbb`), `fontFamily`, `headingFontFamily`,
/// `fontScale` (a number), `orientation` (`portrait` or `landscape`) and `subtitle`. A key that
/// is missing takes the product's default.
pub const BRANDING_MAP: &str = "branding";

/// [`initial_update`] with the report's starting branding (a template's), written into
/// [`BRANDING_MAP`].
pub fn initial_update_branded(sections: &[SectionInit], branding: &[(&str, Any)]) -> Vec<u8> {
    let doc = Doc::new();
    write_initial(&doc, sections);
    if !branding.is_empty() {
        let map = doc.get_or_insert_map(BRANDING_MAP);
        let mut txn = doc.transact_mut();
        for (key, value) in branding {
            map.insert(&mut txn, *key, value.clone());
        }
    }
    doc.transact()
        .encode_state_as_update_v1(&StateVector::default())
}

/// The initial content of a report: the `sections` map (titles and order keys `a0`, `a1`...,
/// in the given order) and one fragment per section holding its paragraphs (one `paragraph`
/// element with its text each, as Tiptap writes them) or one empty paragraph, as a v1
/// update to pass to [`crate::DocStore::create`] / [`crate::Hub::create_document`].
///
/// Ids should be unique (see [`check_sections`]); with a duplicate id the last title and
/// position win.
pub fn initial_update(sections: &[SectionInit]) -> Vec<u8> {
    initial_update_branded(sections, &[])
}

fn write_initial(doc: &Doc, sections: &[SectionInit]) {
    write_sections(doc, sections, 0);
}

/// Writes `sections` into `doc`, their order keys the consecutive integer keys from
/// `first_order` on.
fn write_sections(doc: &Doc, sections: &[SectionInit], first_order: u64) {
    let map = doc.get_or_insert_map(SECTIONS_MAP);
    let mut fragments = Vec::with_capacity(sections.len());
    let mut created = std::collections::HashSet::new();
    for s in sections {
        if created.insert(s.id.as_str()) {
            fragments.push(Some(doc.get_or_insert_xml_fragment(fragment_name(&s.id))));
        } else {
            fragments.push(None);
        }
    }
    {
        let mut txn = doc.transact_mut();
        for (i, (s, fragment)) in sections.iter().zip(&fragments).enumerate() {
            let entry: MapPrelim = [
                (TITLE_KEY, In::Any(Any::from(s.title.as_str()))),
                (
                    ORDER_KEY,
                    In::Any(Any::from(order_key(first_order + i as u64))),
                ),
            ]
            .into_iter()
            .collect();
            map.insert(&mut txn, s.id.as_str(), entry);
            if let Some(fragment) = fragment {
                if s.paragraphs.is_empty() && s.nodes.is_empty() {
                    fragment.push_back(&mut txn, XmlElementPrelim::empty(PARAGRAPH));
                }
                for text in &s.paragraphs {
                    let children = if text.is_empty() {
                        Vec::new()
                    } else {
                        vec![yrs::types::xml::XmlIn::from(XmlTextPrelim::new(
                            text.as_str(),
                        ))]
                    };
                    fragment.push_back(&mut txn, XmlElementPrelim::new(PARAGRAPH, children));
                }
                for node in &s.nodes {
                    write_node(&mut txn, fragment, node);
                }
                if !s.nodes.is_empty() {
                    // The editor keeps a paragraph after a block so the cursor can follow it.
                    fragment.push_back(&mut txn, XmlElementPrelim::empty(PARAGRAPH));
                }
            }
        }
    }
}

fn string_of(value: Option<Out>, txn: &impl ReadTxn) -> String {
    match value {
        Some(Out::Any(Any::String(s))) => s.to_string(),
        Some(Out::Any(other)) => other.to_string(),
        Some(Out::YText(t)) => t.get_string(txn),
        _ => String::new(),
    }
}

/// The sections of a document, in display order (order key, then id).
pub fn sections_of(doc: &Doc) -> Vec<SectionInfo> {
    let txn = doc.transact();
    let Some(map) = txn.get_map(SECTIONS_MAP) else {
        return Vec::new();
    };
    let mut out: Vec<SectionInfo> = map
        .iter(&txn)
        .map(|(id, value)| {
            let (title, order) = match value {
                Out::YMap(section) => (
                    string_of(section.get(&txn, TITLE_KEY), &txn),
                    string_of(section.get(&txn, ORDER_KEY), &txn),
                ),
                _ => (String::new(), String::new()),
            };
            SectionInfo {
                id: id.to_owned(),
                title,
                order,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        a.order
            .as_bytes()
            .cmp(b.order.as_bytes())
            .then_with(|| a.id.cmp(&b.id))
    });
    out
}

/// The sections of a stored report (snapshot + log), in display order.
pub fn read_sections(stored: &StoredDoc) -> crate::Result<Vec<SectionInfo>> {
    Ok(sections_of(&crate::doc_from_stored(stored)?))
}

/// The sections of a report given as one v1 update (e.g. [`crate::Hub::document_state_v1`]).
pub fn read_sections_v1(update_v1: &[u8]) -> crate::Result<Vec<SectionInfo>> {
    Ok(sections_of(&doc_from_v1(update_v1)?))
}

/// A document holding the state given as one v1 update.
pub(crate) fn doc_from_v1(update_v1: &[u8]) -> crate::Result<Doc> {
    use yrs::updates::decoder::Decode;
    let doc = Doc::new();
    let update = yrs::Update::decode_v1(update_v1)?;
    doc.transact_mut()
        .apply_update(update)
        .map_err(|e| crate::Error::Apply(e.to_string()))?;
    Ok(doc)
}

/// The position `n` of an integer order key made by [`order_key`] (its integer part, for a key
/// with a fraction), or `None` for a key below `a0` or not of the format.
pub fn order_position(key: &str) -> Option<u64> {
    let bytes = key.as_bytes();
    let head = *bytes.first()?;
    if !head.is_ascii_lowercase() {
        return None;
    }
    let digits = usize::from(head - b'a') + 1;
    let body = bytes.get(1..=digits)?;
    let mut n: u64 = 0;
    for b in body {
        let d = BASE62.iter().position(|c| c == b)? as u64;
        n = n.checked_mul(62)?.checked_add(d)?;
    }
    // Keys of fewer digits come first.
    let mut below: u64 = 0;
    for d in 1..digits as u32 {
        below = below.checked_add(62u64.checked_pow(d)?)?;
    }
    below.checked_add(n)
}

/// An update (v1) that appends `sections` after the last section of the document `current_v1`
/// (an import): their entries get the integer order keys after the last key's, their fragments
/// the paragraphs and nodes. Ids already in the document are skipped.
pub fn append_sections_update(
    current_v1: &[u8],
    sections: &[SectionInit],
) -> crate::Result<Vec<u8>> {
    let doc = doc_from_v1(current_v1)?;
    let existing = sections_of(&doc);
    let next = existing
        .iter()
        .filter_map(|s| order_position(&s.order))
        .max()
        .map_or(0, |n| n + 1);
    let ids: std::collections::HashSet<&str> = existing.iter().map(|s| s.id.as_str()).collect();
    let fresh: Vec<SectionInit> = sections
        .iter()
        .filter(|s| !ids.contains(s.id.as_str()))
        .cloned()
        .collect();
    let before = doc.transact().state_vector();
    write_sections(&doc, &fresh, next);
    Ok(doc.transact().encode_state_as_update_v1(&before))
}

/// Number of sections of a stored report (shown in the reports list).
pub fn section_count(stored: &StoredDoc) -> crate::Result<usize> {
    let doc = crate::doc_from_stored(stored)?;
    let txn = doc.transact();
    Ok(txn
        .get_map(SECTIONS_MAP)
        .map_or(0, |m| m.len(&txn) as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    #[test]
    fn order_keys_follow_the_fractional_indexing_sequence() {
        assert_eq!(order_key(0), "a0");
        assert_eq!(order_key(9), "a9");
        assert_eq!(order_key(10), "aA");
        assert_eq!(order_key(61), "az");
        assert_eq!(order_key(62), "b00");
        assert_eq!(order_key(63), "b01");
        assert_eq!(order_key(62 + 3843), "bzz");
        assert_eq!(order_key(62 + 3844), "c000");
        let keys: Vec<String> = (0..5000).map(order_key).collect();
        assert!(
            keys.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()),
            "keys sort in creation order"
        );
    }

    #[test]
    fn initial_content_has_sections_titles_order_and_paragraphs() {
        let sections: Vec<SectionInit> = [
            "Executive Summary",
            "Basel III Overview",
            "Capital Adequacy",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| SectionInit {
            nodes: Vec::new(),
            id: format!("s{i}"),
            title: (*t).to_owned(),
            paragraphs: Vec::new(),
        })
        .collect();
        check_sections(&sections).unwrap();
        let update = initial_update(&sections);
        let read = read_sections_v1(&update).unwrap();
        assert_eq!(
            read.iter()
                .map(|s| (s.id.as_str(), s.title.as_str(), s.order.as_str()))
                .collect::<Vec<_>>(),
            vec![
                ("s0", "Executive Summary", "a0"),
                ("s1", "Basel III Overview", "a1"),
                ("s2", "Capital Adequacy", "a2")
            ]
        );
        let stored = StoredDoc {
            snapshot: None,
            updates: vec![(1, Bytes::from(update.clone()))],
        };
        assert_eq!(section_count(&stored).unwrap(), 3);

        use yrs::updates::decoder::Decode;
        let doc = Doc::new();
        let frag = doc.get_or_insert_xml_fragment("section:s1");
        doc.transact_mut()
            .apply_update(yrs::Update::decode_v1(&update).unwrap())
            .unwrap();
        let txn = doc.transact();
        assert_eq!(frag.get_string(&txn), "<paragraph></paragraph>");
    }

    #[test]
    fn a_branded_report_starts_with_its_branding() {
        let update = initial_update_branded(
            &[SectionInit {
                nodes: Vec::new(),
                id: "a".into(),
                title: "A".into(),
                paragraphs: Vec::new(),
            }],
            &[
                ("primaryColor", Any::from("#0f766e")),
                ("fontScale", Any::from(1.1)),
            ],
        );
        use yrs::updates::decoder::Decode;
        let doc = Doc::new();
        let map = doc.get_or_insert_map(BRANDING_MAP);
        doc.transact_mut()
            .apply_update(yrs::Update::decode_v1(&update).unwrap())
            .unwrap();
        let txn = doc.transact();
        assert_eq!(
            map.get(&txn, "primaryColor"),
            Some(Out::Any(Any::from("#0f766e")))
        );
        assert_eq!(map.get(&txn, "fontScale"), Some(Out::Any(Any::from(1.1))));
        assert_eq!(read_sections_v1(&update).unwrap().len(), 1);
    }

    #[test]
    fn a_template_section_starts_with_its_paragraphs() {
        let sections = vec![SectionInit {
            nodes: Vec::new(),
            id: "intro".into(),
            title: "Introduction".into(),
            paragraphs: vec![
                "Scope of the report.".into(),
                String::new(),
                "Risk weights <CRR>".into(),
            ],
        }];
        let update = initial_update(&sections);
        use yrs::updates::decoder::Decode;
        let doc = Doc::new();
        let frag = doc.get_or_insert_xml_fragment("section:intro");
        doc.transact_mut()
            .apply_update(yrs::Update::decode_v1(&update).unwrap())
            .unwrap();
        let txn = doc.transact();
        // Three paragraph elements, the empty one without a text node; text is text, never
        // markup (the '<CRR>' is one text node, not an element).
        assert_eq!(frag.len(&txn), 3);
        assert_eq!(
            frag.get_string(&txn),
            "<paragraph>Scope of the report.</paragraph><paragraph></paragraph><paragraph>Risk weights <CRR></paragraph>"
        );
        let Some(yrs::XmlOut::Element(third)) = frag.get(&txn, 2) else {
            panic!("a paragraph element")
        };
        assert_eq!(third.len(&txn), 1);
        assert!(matches!(third.get(&txn, 0), Some(yrs::XmlOut::Text(_))));
    }

    #[test]
    fn bad_sections_are_reported() {
        let s = |id: &str| SectionInit {
            nodes: Vec::new(),
            id: id.to_owned(),
            title: "t".to_owned(),
            paragraphs: Vec::new(),
        };
        assert_eq!(
            check_sections(&[s("a"), s(" ")]),
            Err(SectionError::EmptyId(1))
        );
        assert_eq!(
            check_sections(&[s("a"), s("a")]),
            Err(SectionError::DuplicateId("a".into()))
        );
        assert_eq!(
            read_sections_v1(&initial_update(&[s("a"), s("a")]))
                .unwrap()
                .len(),
            1
        );
        assert!(read_sections_v1(&[1, 2, 3]).is_err());
    }

    #[test]
    fn order_positions_invert_order_keys() {
        for n in [0, 1, 9, 61, 62, 63, 3905, 3906, 250_000] {
            assert_eq!(order_position(&order_key(n)), Some(n), "{n}");
        }
        // A key with a fraction counts by its integer part; keys below a0 have none.
        assert_eq!(order_position("a1V"), Some(1));
        assert_eq!(order_position("Zz"), None);
        assert_eq!(order_position(""), None);
    }

    #[test]
    fn appended_sections_follow_the_last_with_their_nodes() {
        let s = |id: &str, nodes: Vec<NodeInit>| SectionInit {
            nodes,
            id: id.to_owned(),
            title: id.to_uppercase(),
            paragraphs: vec![format!("{id} text")],
        };
        let initial = initial_update(&[s("a", Vec::new()), s("b", Vec::new())]);
        let table = NodeInit::element(
            "table",
            vec![("width".into(), "100%".into())],
            vec![NodeInit::element(
                "tableRow",
                Vec::new(),
                vec![NodeInit::element(
                    "tableCell",
                    Vec::new(),
                    vec![NodeInit::paragraph("1")],
                )],
            )],
        );
        // "b" is already there: only "c" is added.
        let update =
            append_sections_update(&initial, &[s("b", Vec::new()), s("c", vec![table])]).unwrap();
        use yrs::updates::decoder::Decode;
        let doc = doc_from_v1(&initial).unwrap();
        doc.transact_mut()
            .apply_update(yrs::Update::decode_v1(&update).unwrap())
            .unwrap();
        let read: Vec<(String, String)> = sections_of(&doc)
            .into_iter()
            .map(|s| (s.id, s.order))
            .collect();
        assert_eq!(
            read,
            [
                ("a".into(), "a0".into()),
                ("b".into(), "a1".into()),
                ("c".into(), "a2".into())
            ]
        );
        let frag = doc.get_or_insert_xml_fragment("section:c");
        assert_eq!(
            frag.get_string(&doc.transact()),
            "<paragraph>c text</paragraph><table width=\"100%\"><tableRow><tableCell><paragraph>1</paragraph></tableCell></tableRow></table><paragraph></paragraph>"
        );
    }
}
