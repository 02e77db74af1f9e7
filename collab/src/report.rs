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
    Any, Doc, GetString, In, Map, MapPrelim, Out, ReadTxn, StateVector, Transact, XmlElementPrelim,
    XmlFragment, XmlTextPrelim,
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
    /// The section's first paragraphs (a template's content); none gives one empty paragraph.
    pub paragraphs: Vec<String>,
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
                (ORDER_KEY, In::Any(Any::from(order_key(i as u64)))),
            ]
            .into_iter()
            .collect();
            map.insert(&mut txn, s.id.as_str(), entry);
            if let Some(fragment) = fragment {
                if s.paragraphs.is_empty() {
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
}
