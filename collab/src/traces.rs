//! Synthetic editing histories for benchmarks and load tests (feature `traces`): a B4-like
//! typing trace in the report schema, and a harsh random trace on one Y.Text. Each returns
//! every edit's v1 update, one transaction per edit, as a browser sends them.

use bytes::Bytes;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use yrs::{
    Doc, GetString, ReadTxn, StateVector, Text, Transact, XmlElementPrelim, XmlElementRef,
    XmlFragment, XmlFragmentRef, XmlTextPrelim, XmlTextRef,
};

use crate::report::{SectionInit, fragment_name, initial_update};

/// Words of the typed text (a report on capital; the generator only needs realistic word and
/// sentence lengths).
const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "for",
    "that",
    "on",
    "with",
    "as",
    "by",
    "at",
    "are",
    "this",
    "be",
    "from",
    "or",
    "which",
    "we",
    "it",
    "an",
    "not",
    "capital",
    "risk",
    "exposure",
    "exposures",
    "weighted",
    "assets",
    "bank",
    "portfolio",
    "credit",
    "market",
    "requirement",
    "ratio",
    "buffer",
    "approach",
    "standardised",
    "internal",
    "model",
    "models",
    "counterparty",
    "collateral",
    "default",
    "probability",
    "loss",
    "given",
    "maturity",
    "adjustment",
    "regulation",
    "article",
    "reporting",
    "optimisation",
    "reduction",
    "impact",
    "scenario",
    "results",
    "table",
    "figure",
    "section",
    "quarter",
    "year",
    "total",
    "per",
    "cent",
    "million",
    "increase",
    "decrease",
    "compared",
    "previous",
    "period",
    "mainly",
    "driven",
    "higher",
    "lower",
    "following",
    "therefore",
    "however",
    "additional",
    "measures",
    "proposed",
    "committee",
    "management",
    "board",
    "approval",
    "implementation",
    "data",
    "quality",
    "controls",
    "process",
    "review",
    "finding",
    "findings",
    "recommendation",
    "netting",
    "agreements",
    "derivatives",
    "securities",
    "financing",
    "transactions",
    "retail",
    "corporate",
    "sovereign",
    "institutions",
    "equity",
    "mortgages",
    "secured",
    "unsecured",
];

/// A B4-like typing trace written into the report schema as Tiptap does: one Y.XmlFragment per
/// section, `paragraph` elements holding one Y.XmlText each, one transaction per edit.
///
/// The writer types words and sentences at the end of the paragraph being written (Enter
/// inserts a new, empty paragraph; its first character creates the text node), fixes typos
/// with runs of backspaces and retypes, now and then jumps back a few words in the current
/// paragraph or into an earlier paragraph to revise (backspace a phrase, select-and-delete a
/// few words as one edit, or insert a phrase) and jumps back to where it was. A new session
/// (new 32-bit client id, as a Yjs client gets on every page load) starts every 3,000-12,000
/// edits. Every edit's v1 update is returned, preceded by the report's initial update.
///
/// The rates are set so that 260,000 edits come out like the B4 trace (259,778 edits: 182,315
/// insertions, 77,463 deletions, 104,852 characters at the end): with seed 7, 184,920
/// insertions, 75,080 deletions, 106,786 characters.
pub fn typing_trace(edits: usize, seed: u64) -> Vec<Bytes> {
    struct Para {
        elem: XmlElementRef,
        text: Option<XmlTextRef>,
        len: u32,
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let section_ids: Vec<SectionInit> = (0..8)
        .map(|i| SectionInit {
            nodes: Vec::new(),
            id: format!("s{i}"),
            title: format!("Section {i}"),
            paragraphs: Vec::new(),
        })
        .collect();
    let init = initial_update(&section_ids);
    let mut out = Vec::with_capacity(edits + 1);
    out.push(Bytes::from(init.clone()));

    // (re)opens the document in a new session and finds the paragraphs
    let open = |state: &[u8], rng: &mut StdRng| {
        use yrs::updates::decoder::Decode;
        let doc = Doc::with_client_id(u64::from(rng.random::<u32>()));
        doc.transact_mut()
            .apply_update(yrs::Update::decode_v1(state).unwrap())
            .unwrap();
        let fragments: Vec<XmlFragmentRef> = section_ids
            .iter()
            .map(|s| doc.get_or_insert_xml_fragment(fragment_name(&s.id)))
            .collect();
        let txn = doc.transact();
        let sections: Vec<Vec<Para>> = fragments
            .iter()
            .map(|f| {
                f.children(&txn)
                    .filter_map(|n| n.into_xml_element())
                    .map(|elem| {
                        let text = elem.get(&txn, 0).and_then(|n| n.into_xml_text());
                        let len = text.as_ref().map_or(0, |t| t.len(&txn));
                        Para { elem, text, len }
                    })
                    .collect()
            })
            .collect();
        drop(txn);
        (doc, fragments, sections)
    };
    let (mut doc, mut fragments, mut sections) = open(&init, &mut rng);
    let mut session_left = rng.random_range(3_000..12_000);
    // the writing front: section, paragraph; the caret is at the end of that paragraph
    let (mut fs, mut fp) = (0usize, 0usize);
    let mut plan: std::collections::VecDeque<char> = std::collections::VecDeque::new();
    let mut sentences_left = rng.random_range(3..9);
    let mut paragraphs_left: i32 = rng.random_range(8..40);
    // a revision in progress: (section, paragraph, caret) and what is left to do
    let mut revision: Option<(usize, usize, u32)> = None;
    let mut rev_deletes = 0u32;
    let mut rev_plan: std::collections::VecDeque<char> = std::collections::VecDeque::new();
    let mut backspaces = 0u32;

    let sentence = |rng: &mut StdRng| -> String {
        let n = rng.random_range(6..26);
        let mut s = String::new();
        for i in 0..n {
            let w = WORDS[rng.random_range(0..WORDS.len())];
            if i == 0 {
                let mut c = w.chars();
                s.extend(c.next().map(|c| c.to_ascii_uppercase()));
                s.push_str(c.as_str());
            } else {
                s.push(' ');
                s.push_str(w);
            }
        }
        s.push_str(". ");
        s
    };

    while out.len() <= edits {
        if session_left == 0 {
            let state = doc
                .transact()
                .encode_state_as_update_v1(&StateVector::default());
            (doc, fragments, sections) = open(&state, &mut rng);
            session_left = rng.random_range(3_000..12_000);
        }
        session_left -= 1;
        let mut txn = doc.transact_mut();
        // one edit: insert `ch` or delete one character at (s, p, at)
        let mut insert = |sections: &mut Vec<Vec<Para>>, s: usize, p: usize, at: u32, ch: char| {
            let para = &mut sections[s][p];
            let mut buf = [0u8; 4];
            match &para.text {
                Some(t) => t.insert(&mut txn, at, ch.encode_utf8(&mut buf)),
                None => {
                    let t = para
                        .elem
                        .push_back(&mut txn, XmlTextPrelim::new(ch.encode_utf8(&mut buf)));
                    para.text = Some(t);
                }
            }
            para.len += 1;
            txn.encode_update_v1()
        };
        let update = if let Some((s, p, at)) = revision {
            if rev_deletes > 0 {
                rev_deletes -= 1;
                let para = &mut sections[s][p];
                let t = para.text.as_ref().unwrap();
                t.remove_range(&mut txn, at - 1, 1);
                para.len -= 1;
                revision = Some((s, p, at - 1));
                txn.encode_update_v1()
            } else if let Some(ch) = rev_plan.pop_front() {
                revision = Some((s, p, at + 1));
                insert(&mut sections, s, p, at, ch)
            } else {
                revision = None;
                drop(txn);
                continue;
            }
        } else if backspaces > 0 {
            backspaces -= 1;
            let para = &mut sections[fs][fp];
            let t = para.text.as_ref().unwrap();
            t.remove_range(&mut txn, para.len - 1, 1);
            para.len -= 1;
            txn.encode_update_v1()
        } else if plan.is_empty() && sentences_left == 0 {
            // Enter: a new empty paragraph after the front one (or the next section)
            sentences_left = rng.random_range(3..9);
            paragraphs_left -= 1;
            if paragraphs_left <= 0 && fs + 1 < sections.len() {
                paragraphs_left = rng.random_range(8..40);
                fs += 1;
                fp = 0;
                drop(txn);
                continue;
            }
            let elem = fragments[fs].insert(
                &mut txn,
                fp as u32 + 1,
                XmlElementPrelim::empty("paragraph"),
            );
            fp += 1;
            sections[fs].insert(
                fp,
                Para {
                    elem,
                    text: None,
                    len: 0,
                },
            );
            txn.encode_update_v1()
        } else {
            if plan.is_empty() {
                sentences_left -= 1;
                plan.extend(sentence(&mut rng).chars());
            }
            let roll = rng.random_range(0..10_000);
            let len = sections[fs][fp].len;
            if roll < 560 && len > 0 {
                // a typo noticed after a few characters: backspace them (this edit is the
                // first) and retype them; or a phrase rewritten: backspace it and go on with
                // other words
                let typo = roll < 500;
                let n = if typo {
                    rng.random_range(1..=4u32)
                } else {
                    rng.random_range(10..=80u32)
                }
                .min(len);
                let para = &mut sections[fs][fp];
                let t = para.text.as_ref().unwrap();
                let mut removed = String::new();
                t.get_string(&txn)[(len - n) as usize..]
                    .chars()
                    .rev()
                    .for_each(|c| removed.insert(0, c));
                if typo {
                    for c in removed.chars().rev() {
                        plan.push_front(c);
                    }
                }
                t.remove_range(&mut txn, len - 1, 1);
                para.len -= 1;
                backspaces = n - 1;
                txn.encode_update_v1()
            } else if roll < 620 && len > 20 {
                // revise a few words back in this paragraph
                let back = rng.random_range(5..=80u32).min(len);
                let at = len - back;
                rev_deletes = rng.random_range(0..=12u32).min(at);
                rev_plan = WORDS[rng.random_range(0..WORDS.len())]
                    .chars()
                    .chain(std::iter::once(' '))
                    .collect();
                revision = Some((fs, fp, at));
                drop(txn);
                continue;
            } else if roll < 650 {
                // revise an earlier paragraph: delete a phrase (one character at a time or
                // selected and deleted at once) and/or insert one
                let s = rng.random_range(0..=fs);
                let p = rng.random_range(0..sections[s].len());
                let plen = sections[s][p].len;
                if plen < 10 {
                    drop(txn);
                    continue;
                }
                let at = rng.random_range(0..=plen);
                match rng.random_range(0..3) {
                    0 => {
                        // select a few words and delete them: one edit
                        let n = rng.random_range(3..=30u32).min(plen);
                        let at = at.min(plen - n);
                        let para = &mut sections[s][p];
                        para.text.as_ref().unwrap().remove_range(&mut txn, at, n);
                        para.len -= n;
                        txn.encode_update_v1()
                    }
                    k => {
                        rev_deletes = if k == 1 {
                            rng.random_range(3..=40u32).min(at)
                        } else {
                            0
                        };
                        rev_plan = (0..rng.random_range(1..8))
                            .flat_map(|_| {
                                WORDS[rng.random_range(0..WORDS.len())]
                                    .chars()
                                    .chain(std::iter::once(' '))
                            })
                            .collect();
                        revision = Some((s, p, at));
                        drop(txn);
                        continue;
                    }
                }
            } else {
                let ch = plan.pop_front().unwrap();
                insert(&mut sections, fs, fp, len, ch)
            }
        };
        out.push(Bytes::from(update));
    }
    out
}

/// The harsh synthetic history: one transaction per single-character edit into a Y.Text (85%
/// typing, 15% backspaces at the caret), the caret moving 1% of the time: within 300
/// characters, or anywhere one time in twenty. Random backspaces inside typed runs split items
/// far more than real typing does. Returns each edit's v1 update.
pub fn harsh_trace(edits: usize, seed: u64) -> Vec<Bytes> {
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
    updates
}

/// The visible characters of a replayed document (the text `t` of the harsh trace, every `section:` fragment of the report schema).
pub fn visible_chars(doc: &Doc) -> usize {
    let names: Vec<String> = doc
        .transact()
        .root_refs()
        .map(|(name, _)| name.to_owned())
        .collect();
    let mut n = 0;
    for name in names {
        if name == "t" {
            let t = doc.get_or_insert_text("t");
            n += t.get_string(&doc.transact()).chars().count();
        } else if name.starts_with("section:") {
            let f = doc.get_or_insert_xml_fragment(name.as_str());
            let txn = doc.transact();
            for node in f.successors(&txn) {
                if let yrs::XmlOut::Text(t) = node {
                    n += t.get_string(&txn).chars().count();
                }
            }
        }
    }
    n
}
