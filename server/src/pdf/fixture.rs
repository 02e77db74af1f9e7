//! Report documents built the way the editor stores them (sections, branding, Tiptap nodes
//! with their attributes and marks), and small valid PNGs: for the tests and the export
//! benchmark. Nothing in the product calls it.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;
use yrs::types::Attrs;
use yrs::{
    Any, Doc, Map, MapPrelim, Text, Transact, TransactionMut, Xml, XmlElementPrelim, XmlElementRef,
    XmlFragment, XmlTextPrelim,
};

use super::model::{Report, read_report};

/// Builds a report document as the editor writes it.
pub struct DocBuilder {
    /// The document.
    pub doc: Doc,
    n: usize,
}

/// A node to write: an element (tag, attributes, children) or a text node (runs with marks).
pub enum Node {
    /// An element.
    El(&'static str, Vec<(&'static str, Any)>, Vec<Node>),
    /// A text node: runs of text with their marks.
    Text(Vec<(String, Vec<(&'static str, Any)>)>),
}

/// An element.
pub fn el(tag: &'static str, attrs: Vec<(&'static str, Any)>, children: Vec<Node>) -> Node {
    Node::El(tag, attrs, children)
}

/// A text node without marks.
pub fn t(s: &str) -> Node {
    Node::Text(vec![(s.to_owned(), Vec::new())])
}

/// A paragraph of plain text.
pub fn p(s: &str) -> Node {
    el("paragraph", vec![], vec![t(s)])
}

/// A mark as y-prosemirror stores it: its name, valued with its attributes.
pub fn mark(name: &'static str, attrs: Vec<(&str, Any)>) -> (&'static str, Any) {
    let map: HashMap<String, Any> = attrs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    (name, Any::from(map))
}

/// A string attribute.
pub fn s(v: &str) -> Any {
    Any::from(v)
}

fn write_node<F: XmlFragment>(txn: &mut TransactionMut<'_>, parent: &F, node: &Node) {
    match node {
        Node::El(tag, attrs, children) => {
            let e: XmlElementRef = parent.push_back(txn, XmlElementPrelim::empty(*tag));
            for (k, v) in attrs {
                e.insert_attribute(txn, *k, v.clone());
            }
            for c in children {
                write_node(txn, &e, c);
            }
        }
        Node::Text(runs) => {
            let text = parent.push_back(txn, XmlTextPrelim::new(""));
            let mut at = 0u32;
            for (chunk, marks) in runs {
                let attrs: Attrs = marks
                    .iter()
                    .map(|(k, v)| (Arc::from(*k), v.clone()))
                    .collect();
                text.insert_with_attributes(txn, at, chunk, attrs);
                at += chunk.chars().map(|c| c.len_utf16() as u32).sum::<u32>();
            }
        }
    }
}

impl DocBuilder {
    /// An empty document.
    #[allow(clippy::new_without_default)]
    pub fn new() -> DocBuilder {
        DocBuilder {
            doc: Doc::new(),
            n: 0,
        }
    }

    /// Adds a section (its entry's extra keys in `style`) with its content.
    pub fn section(&mut self, title: &str, style: &[(&str, &str)], nodes: Vec<Node>) -> &mut Self {
        let id = format!("s{}", self.n);
        let order = collab::report::order_key(self.n as u64);
        self.n += 1;
        let map = self.doc.get_or_insert_map(collab::report::SECTIONS_MAP);
        let frag = self
            .doc
            .get_or_insert_xml_fragment(collab::report::fragment_name(&id).as_str());
        let mut txn = self.doc.transact_mut();
        let mut entry: Vec<(String, yrs::In)> = vec![
            ("title".into(), yrs::In::Any(s(title))),
            ("order".into(), yrs::In::Any(s(&order))),
        ];
        for (k, v) in style {
            entry.push(((*k).into(), yrs::In::Any(s(v))));
        }
        map.insert(
            &mut txn,
            id.as_str(),
            entry.into_iter().collect::<MapPrelim>(),
        );
        for node in &nodes {
            write_node(&mut txn, &frag, node);
        }
        drop(txn);
        self
    }

    /// Sets branding keys.
    pub fn branding(&mut self, entries: &[(&str, Any)]) -> &mut Self {
        let map = self.doc.get_or_insert_map(collab::report::BRANDING_MAP);
        let mut txn = self.doc.transact_mut();
        for (k, v) in entries {
            map.insert(&mut txn, *k, v.clone());
        }
        drop(txn);
        self
    }

    /// The report read from the document.
    pub fn report(&self, title: &str) -> Report {
        read_report(&self.doc, title)
    }
}

/// A chart node with three stored rows from a client dataset.
pub fn chart_node(id: &str, kind: &str, title: &str) -> Node {
    el(
        "chart",
        vec![
            ("chartId", s(id)),
            ("chartType", s(kind)),
            ("title", s(title)),
            ("xColumn", s("Month")),
            ("yColumns", s("[\"RWA savings\",\"Bps\"]")),
            (
                "rows",
                s(&json!([
                    {"Month": "Jan", "RWA savings": 120, "Bps": 3.5},
                    {"Month": "Feb", "RWA savings": "180", "Bps": "n/a"},
                    {"Month": "Mar", "RWA savings": 240, "Bps": 6}
                ])
                .to_string()),
            ),
            (
                "source",
                s(r#"{"kind":"client","dataset":"savings_by_month"}"#),
            ),
            ("width", s("600")),
            ("height", s("300")),
            ("colorScheme", s("banking")),
        ],
        vec![],
    )
}

/// A 3-row table with a header, a colspan (with widths) and a rowspan.
pub fn table_node() -> Node {
    let cell = |tag: &'static str, text: &str, attrs: Vec<(&'static str, Any)>| {
        el(tag, attrs, vec![p(text)])
    };
    el(
        "table",
        vec![("fontSize", s("10")), ("width", s("75%"))],
        vec![
            el(
                "tableRow",
                vec![],
                vec![
                    cell("tableHeader", "Lever", vec![]),
                    cell(
                        "tableHeader",
                        "Savings",
                        vec![
                            ("colspan", Any::from(2.0)),
                            (
                                "colwidth",
                                Any::from(vec![Any::from(120.0), Any::from(80.0)]),
                            ),
                        ],
                    ),
                ],
            ),
            el(
                "tableRow",
                vec![],
                vec![
                    cell(
                        "tableCell",
                        "Institutions",
                        vec![("rowspan", Any::from(2.0))],
                    ),
                    cell("tableCell", "1,200", vec![]),
                    cell("tableCell", "3.1 bps", vec![]),
                ],
            ),
            el(
                "tableRow",
                vec![],
                vec![
                    cell("tableCell", "800", vec![]),
                    cell("tableCell", "2.0 bps", vec![]),
                ],
            ),
        ],
    )
}

/// A paragraph with every mark and a hard break.
pub fn rich_paragraph() -> Node {
    el(
        "paragraph",
        vec![],
        vec![
            Node::Text(vec![
                ("Plain, ".into(), vec![]),
                ("bold".into(), vec![mark("bold", vec![])]),
                (" and ".into(), vec![]),
                (
                    "italic red".into(),
                    vec![
                        mark("italic", vec![]),
                        mark(
                            "textStyle",
                            vec![
                                ("color", s("#dc2626")),
                                ("fontSize", s("14pt")),
                                ("fontFamily", s("Georgia")),
                            ],
                        ),
                    ],
                ),
                (" with ".into(), vec![]),
                ("code".into(), vec![mark("code", vec![])]),
                (", ".into(), vec![]),
                ("underlined".into(), vec![mark("underline", vec![])]),
                (", ".into(), vec![]),
                ("struck".into(), vec![mark("strike", vec![])]),
                (" and a ".into(), vec![]),
                (
                    "link".into(),
                    vec![mark(
                        "link--a1b2",
                        vec![("href", s("https://example.com/x"))],
                    )],
                ),
                (".".into(), vec![]),
            ]),
            el("hardBreak", vec![], vec![]),
            t("Second line."),
        ],
    )
}

/// A valid PNG of `w` by `h` pixels of one colour.
pub fn png(w: u32, h: u32, rgb: [u8; 3]) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(w, h, image::Rgb(rgb));
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .expect("a PNG in memory");
    out.into_inner()
}
