//! Versions of a report: restoring an old state as a new edit.
//!
//! A version is the document's whole state (one v1 update) taken at some moment. Restoring it
//! must not rewind history (co-editors hold the newer items, and a CRDT cannot forget them):
//! it is a new edit, computed against the current state, that makes the report's content equal
//! the version's: every section's title, order and other keys, every section's rich text (the
//! elements with their attributes, the text with its formatting, embeds), and the branding.
//! Sections added since the version are removed from the `sections` map and their fragments
//! emptied, as the web app does when a section is removed. The edit is returned as one v1
//! update relative to the current state, to apply like any other ([`crate::Hub::apply_update`]),
//! so every connection receives it live and a concurrent edit merges with it as usual.

use std::collections::HashSet;

use yrs::types::text::YChange;
use yrs::types::xml::{XmlElementPrelim, XmlOut, XmlTextPrelim};
use yrs::{
    Any, Map, MapPrelim, MapRef, Out, ReadTxn, Text, Transact, TransactionMut, Xml, XmlElementRef,
    XmlFragment, XmlFragmentRef, XmlTextRef,
};

use crate::report::{BRANDING_MAP, SECTIONS_MAP, doc_from_v1, fragment_name, sections_of};

/// The edit that turns the report whose whole state is `current_v1` into the content of the
/// version `version_v1` (both v1 updates, as [`crate::Hub::document_state_v1`] gives them): a v1
/// update relative to `current_v1`. Empty content (no change) still gives a valid update.
pub fn restore_update(current_v1: &[u8], version_v1: &[u8]) -> crate::Result<Vec<u8>> {
    let current = doc_from_v1(current_v1)?;
    let version = doc_from_v1(version_v1)?;
    let wanted = sections_of(&version);
    let present = sections_of(&current);
    let wanted_ids: HashSet<&str> = wanted.iter().map(|s| s.id.as_str()).collect();

    // Root types are typed on first use: name every fragment involved before the transaction.
    let sources: Vec<(String, XmlFragmentRef)> = wanted
        .iter()
        .map(|s| {
            let name = fragment_name(&s.id);
            let fragment = version.get_or_insert_xml_fragment(name.as_str());
            (name, fragment)
        })
        .collect();
    let targets: Vec<XmlFragmentRef> = sources
        .iter()
        .map(|(name, _)| current.get_or_insert_xml_fragment(name.as_str()))
        .collect();
    let removed: Vec<XmlFragmentRef> = present
        .iter()
        .filter(|s| !wanted_ids.contains(s.id.as_str()))
        .map(|s| current.get_or_insert_xml_fragment(fragment_name(&s.id).as_str()))
        .collect();
    let sections = current.get_or_insert_map(SECTIONS_MAP);
    let branding = current.get_or_insert_map(BRANDING_MAP);
    let old_sections = version.get_or_insert_map(SECTIONS_MAP);
    let old_branding = version.get_or_insert_map(BRANDING_MAP);

    let before = current.transact().state_vector();
    {
        let read = version.transact();
        let mut txn = current.transact_mut();
        copy_map_values(&mut txn, &branding, &read, &old_branding);
        // Sections: those removed since, then each of the version's with its keys.
        let stale: Vec<String> = sections
            .keys(&txn)
            .filter(|k| !wanted_ids.contains(*k))
            .map(str::to_owned)
            .collect();
        for key in stale {
            sections.remove(&mut txn, &key);
        }
        for s in &wanted {
            let Some(Out::YMap(old)) = old_sections.get(&read, &s.id) else {
                continue;
            };
            let entry = match sections.get(&txn, &s.id) {
                Some(Out::YMap(entry)) => entry,
                _ => sections.insert(&mut txn, s.id.as_str(), MapPrelim::default()),
            };
            copy_map_values(&mut txn, &entry, &read, &old);
        }
        for fragment in &removed {
            clear(&mut txn, fragment);
        }
        for ((_, source), target) in sources.iter().zip(&targets) {
            clear(&mut txn, target);
            copy_children(&mut txn, target, &read, source);
        }
    }
    Ok(current.transact().encode_state_as_update_v1(&before))
}

/// Makes `target`'s plain values equal `source`'s (keys missing from `source` removed).
fn copy_map_values<T: ReadTxn>(
    txn: &mut TransactionMut<'_>,
    target: &MapRef,
    read: &T,
    source: &MapRef,
) {
    let values: Vec<(String, Any)> = source
        .iter(read)
        .filter_map(|(k, v)| match v {
            Out::Any(a) => Some((k.to_owned(), a)),
            _ => None,
        })
        .collect();
    let keep: HashSet<&str> = values.iter().map(|(k, _)| k.as_str()).collect();
    let stale: Vec<String> = target
        .keys(txn)
        .filter(|k| !keep.contains(*k))
        .map(str::to_owned)
        .collect();
    for key in stale {
        target.remove(txn, &key);
    }
    for (key, value) in values {
        if target.get(txn, &key) != Some(Out::Any(value.clone())) {
            target.insert(txn, key, value);
        }
    }
}

fn clear(txn: &mut TransactionMut<'_>, fragment: &impl XmlFragment) {
    let len = fragment.len(txn);
    if len > 0 {
        fragment.remove_range(txn, 0, len);
    }
}

/// Appends a deep copy of `source`'s children to `target`.
fn copy_children<T: ReadTxn>(
    txn: &mut TransactionMut<'_>,
    target: &impl XmlFragment,
    read: &T,
    source: &impl XmlFragment,
) {
    for child in source.children(read) {
        match child {
            XmlOut::Element(element) => {
                let copy = target.push_back(txn, XmlElementPrelim::empty(element.tag().clone()));
                copy_element(txn, &copy, read, &element);
            }
            XmlOut::Text(text) => {
                let copy = target.push_back(txn, XmlTextPrelim::new(""));
                copy_text(txn, &copy, read, &text);
            }
            XmlOut::Fragment(fragment) => copy_children(txn, target, read, &fragment),
        }
    }
}

fn copy_element<T: ReadTxn>(
    txn: &mut TransactionMut<'_>,
    target: &XmlElementRef,
    read: &T,
    source: &XmlElementRef,
) {
    let attributes: Vec<(String, Any)> = source
        .attributes(read)
        .filter_map(|(k, v)| match v {
            Out::Any(a) => Some((k.to_owned(), a)),
            _ => None,
        })
        .collect();
    for (key, value) in attributes {
        target.insert_attribute(txn, key, value);
    }
    copy_children(txn, target, read, source);
}

fn copy_text<T: ReadTxn>(
    txn: &mut TransactionMut<'_>,
    target: &XmlTextRef,
    read: &T,
    source: &XmlTextRef,
) {
    for chunk in source.diff(read, YChange::identity) {
        let at = target.len(txn);
        let attributes = chunk.attributes.map(|a| *a).unwrap_or_default();
        match chunk.insert {
            Out::Any(Any::String(s)) => target.insert_with_attributes(txn, at, &s, attributes),
            Out::Any(embed) => {
                target.insert_embed_with_attributes(txn, at, embed, attributes);
            }
            _ => {}
        }
    }
}

/// The report's rich text and keys as one string per section and the branding, in display
/// order: what two states must share to show the same content (used to check a restore).
pub fn content_of_v1(update_v1: &[u8]) -> crate::Result<String> {
    let doc = doc_from_v1(update_v1)?;
    let sections = sections_of(&doc);
    let fragments: Vec<XmlFragmentRef> = sections
        .iter()
        .map(|s| doc.get_or_insert_xml_fragment(fragment_name(&s.id).as_str()))
        .collect();
    let map = doc.get_or_insert_map(SECTIONS_MAP);
    let branding = doc.get_or_insert_map(BRANDING_MAP);
    let txn = doc.transact();
    let mut out = String::new();
    let mut brand: Vec<String> = branding
        .iter(&txn)
        .map(|(k, v)| format!("{k}={}", v.to_string(&txn)))
        .collect();
    brand.sort();
    out.push_str(&format!("branding: {}\n", brand.join(", ")));
    for (s, fragment) in sections.iter().zip(&fragments) {
        let mut keys: Vec<String> = match map.get(&txn, &s.id) {
            Some(Out::YMap(m)) => m
                .iter(&txn)
                .map(|(k, v)| format!("{k}={}", v.to_string(&txn)))
                .collect(),
            _ => Vec::new(),
        };
        keys.sort();
        let mut xml = String::new();
        canonical(&mut xml, &txn, fragment);
        out.push_str(&format!("{} [{}]: {xml}\n", s.id, keys.join(", ")));
    }
    Ok(out)
}

/// `fragment`'s children as XML with attributes (and text formatting) in sorted order.
fn canonical<T: ReadTxn>(out: &mut String, txn: &T, fragment: &impl XmlFragment) {
    for child in fragment.children(txn) {
        match child {
            XmlOut::Element(e) => {
                let mut attributes: Vec<String> = e
                    .attributes(txn)
                    .map(|(k, v)| format!(" {k}=\"{}\"", v.to_string(txn)))
                    .collect();
                attributes.sort();
                out.push_str(&format!("<{}{}>", e.tag(), attributes.concat()));
                canonical(out, txn, &e);
                out.push_str(&format!("</{}>", e.tag()));
            }
            XmlOut::Text(t) => {
                for chunk in t.diff(txn, YChange::identity) {
                    let mut marks: Vec<String> = chunk
                        .attributes
                        .iter()
                        .flat_map(|a| a.iter())
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect();
                    marks.sort();
                    let text = match chunk.insert {
                        Out::Any(Any::String(s)) => s.to_string(),
                        other => format!("[embed {}]", other.to_string(txn)),
                    };
                    if marks.is_empty() {
                        out.push_str(&text);
                    } else {
                        out.push_str(&format!("<{}>{text}</>", marks.join(" ")));
                    }
                }
            }
            XmlOut::Fragment(f) => canonical(out, txn, &f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{SectionInit, initial_update_branded};
    use yrs::types::Attrs;
    use yrs::updates::decoder::Decode;
    use yrs::{Doc, StateVector, Update};

    fn state(doc: &Doc) -> Vec<u8> {
        doc.transact()
            .encode_state_as_update_v1(&StateVector::default())
    }

    fn apply(doc: &Doc, update: &[u8]) {
        doc.transact_mut()
            .apply_update(Update::decode_v1(update).unwrap())
            .unwrap();
    }

    fn replica(update: &[u8]) -> Doc {
        let doc = Doc::new();
        apply(&doc, update);
        doc
    }

    /// A report with two sections, formatted text, an element with attributes and branding.
    fn report() -> Doc {
        let init = initial_update_branded(
            &[
                SectionInit {
                    nodes: Vec::new(),
                    id: "summary".into(),
                    title: "Summary".into(),
                    paragraphs: vec!["Savings of 12.5 bps.".into()],
                },
                SectionInit {
                    nodes: Vec::new(),
                    id: "capital".into(),
                    title: "Capital".into(),
                    paragraphs: Vec::new(),
                },
            ],
            &[("primaryColor", Any::from("#0f766e"))],
        );
        let doc = replica(&init);
        let capital = doc.get_or_insert_xml_fragment("section:capital");
        let mut txn = doc.transact_mut();
        let p = capital.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
        let text = p.push_back(&mut txn, XmlTextPrelim::new(""));
        text.insert(&mut txn, 0, "CRR Article 116 ");
        let bold: Attrs = [("bold".into(), Any::from(true))].into_iter().collect();
        let end = text.len(&txn);
        text.insert_with_attributes(&mut txn, end, "applies", bold);
        let chart = capital.push_back(&mut txn, XmlElementPrelim::empty("chart"));
        chart.insert_attribute(&mut txn, "chartType", Any::from("bar"));
        chart.insert_attribute(&mut txn, "width", Any::from(75.0));
        drop(txn);
        doc
    }

    #[test]
    fn restoring_a_version_brings_back_its_content_as_a_new_edit() {
        let doc = report();
        let version = state(&doc);
        let expected = content_of_v1(&version).unwrap();
        assert!(expected.contains("<bold=true>applies</>"), "{expected}");
        assert!(expected.contains("chartType"), "{expected}");

        // Later edits: text changed and formatted, a chart removed, a section added and one
        // renamed, branding changed and added.
        {
            let summary = doc.get_or_insert_xml_fragment("section:summary");
            let capital = doc.get_or_insert_xml_fragment("section:capital");
            let sections = doc.get_or_insert_map(SECTIONS_MAP);
            let branding = doc.get_or_insert_map(BRANDING_MAP);
            let added = doc.get_or_insert_xml_fragment("section:annex");
            let mut txn = doc.transact_mut();
            summary.remove_range(&mut txn, 0, 1);
            summary.push_back(&mut txn, XmlElementPrelim::empty("heading"));
            capital.remove_range(&mut txn, 1, 1);
            let entry: MapPrelim = [
                ("title", yrs::In::Any(Any::from("Annex"))),
                ("order", yrs::In::Any(Any::from("a2"))),
            ]
            .into_iter()
            .collect();
            sections.insert(&mut txn, "annex", entry);
            added.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
            if let Some(Out::YMap(s)) = sections.get(&txn, "capital") {
                s.insert(&mut txn, "title", "Capital (draft)");
                s.insert(&mut txn, "layout", "two-columns");
            }
            branding.insert(&mut txn, "primaryColor", "#112233");
            branding.insert(&mut txn, "fontScale", 1.2);
        }
        let edited = state(&doc);
        assert_ne!(content_of_v1(&edited).unwrap(), expected);

        // A co-editor holds the edited state; the restore reaches it as one update.
        let coeditor = replica(&edited);
        let update = restore_update(&edited, &version).unwrap();
        apply(&coeditor, &update);
        apply(&doc, &update);
        assert_eq!(content_of_v1(&state(&coeditor)).unwrap(), expected);
        assert_eq!(content_of_v1(&state(&doc)).unwrap(), expected);
        // The removed section's fragment is emptied, as the web app leaves it.
        let annex = coeditor.get_or_insert_xml_fragment("section:annex");
        assert_eq!(annex.len(&coeditor.transact()), 0);

        // Restoring onto a state that already equals the version changes no content.
        let again = restore_update(&state(&doc), &version).unwrap();
        apply(&coeditor, &again);
        assert_eq!(content_of_v1(&state(&coeditor)).unwrap(), expected);
    }

    #[test]
    fn a_restore_and_a_concurrent_edit_converge() {
        let doc = report();
        let version = state(&doc);
        let a = replica(&version);
        let b = replica(&version);
        // B types while A restores (A's restore computed on A's state).
        {
            let f = b.get_or_insert_xml_fragment("section:summary");
            let mut txn = b.transact_mut();
            f.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
        }
        {
            let f = a.get_or_insert_xml_fragment("section:capital");
            let mut txn = a.transact_mut();
            f.remove_range(&mut txn, 0, 1);
        }
        let restore = restore_update(&state(&a), &version).unwrap();
        apply(&a, &restore);
        let from_b = state(&b);
        apply(&b, &state(&a));
        apply(&a, &from_b);
        assert_eq!(
            content_of_v1(&state(&a)).unwrap(),
            content_of_v1(&state(&b)).unwrap()
        );
    }

    #[test]
    fn undecodable_states_are_errors() {
        assert!(restore_update(&[1, 2, 3], &state(&report())).is_err());
        assert!(restore_update(&state(&report()), &[9, 9]).is_err());
    }
}
