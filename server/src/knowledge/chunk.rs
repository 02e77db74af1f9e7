//! Chunks for the full-text index: about [`ChunkOptions::target_words`] words each, cut at
//! paragraph boundaries when possible (a longer paragraph is cut into pieces of that size), never
//! across a heading. Each chunk keeps the path of the headings above it ("Part Three > Title II >
//! Article 116"), its page range and the article references found in its text or heading.

use super::{Block, BlockKind};

/// How chunks are cut.
#[derive(Debug, Clone, Copy)]
pub struct ChunkOptions {
    /// Words per chunk (a chunk holds at most this many; a chunk ends early at a heading, or
    /// before a paragraph that would take it past this size).
    pub target_words: usize,
}

impl Default for ChunkOptions {
    fn default() -> ChunkOptions {
        ChunkOptions { target_words: 200 }
    }
}

/// One chunk of a document.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// Its position in the document, from 0.
    pub ord: usize,
    /// The headings above it, outermost first, joined with " > " (`None` before any heading).
    pub heading: Option<String>,
    /// The first page it is on.
    pub page_from: Option<u32>,
    /// The last page it is on.
    pub page_to: Option<u32>,
    /// The article references in its text or in its heading path, in order, without repeats
    /// ("Article 116(2)").
    pub articles: Vec<String>,
    /// Its text.
    pub text: String,
}

struct Open {
    words: Vec<String>,
    page_from: Option<u32>,
    page_to: Option<u32>,
}

/// Cuts `blocks` into chunks.
pub fn chunk(blocks: &[Block], opts: ChunkOptions) -> Vec<Chunk> {
    let target = opts.target_words.max(1);
    let mut out: Vec<Chunk> = Vec::new();
    let mut path: Vec<(u8, String)> = Vec::new();
    let mut open = Open {
        words: Vec::new(),
        page_from: None,
        page_to: None,
    };
    let flush = |open: &mut Open, path: &[(u8, String)], out: &mut Vec<Chunk>| {
        if open.words.is_empty() {
            return;
        }
        let heading = (!path.is_empty()).then(|| {
            path.iter()
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join(" > ")
        });
        let text = open.words.join(" ");
        let mut articles = Vec::new();
        for a in heading
            .as_deref()
            .map(article_refs)
            .unwrap_or_default()
            .into_iter()
            .chain(article_refs(&text))
        {
            if !articles.contains(&a) {
                articles.push(a);
            }
        }
        out.push(Chunk {
            ord: out.len(),
            heading,
            page_from: open.page_from,
            page_to: open.page_to,
            articles,
            text,
        });
        open.words.clear();
        open.page_from = None;
        open.page_to = None;
    };
    for b in blocks {
        match b.kind {
            BlockKind::Heading(level) => {
                flush(&mut open, &path, &mut out);
                while path.last().is_some_and(|(l, _)| *l >= level) {
                    path.pop();
                }
                path.push((level, b.text.clone()));
            }
            BlockKind::Paragraph => {
                let words: Vec<&str> = b.text.split_whitespace().collect();
                if words.is_empty() {
                    continue;
                }
                if !open.words.is_empty() && open.words.len() + words.len() > target {
                    flush(&mut open, &path, &mut out);
                }
                for piece in words.chunks(target) {
                    if !open.words.is_empty() && open.words.len() + piece.len() > target {
                        flush(&mut open, &path, &mut out);
                    }
                    open.words.extend(piece.iter().map(|w| (*w).to_owned()));
                    if let Some(p) = b.page {
                        open.page_from = Some(open.page_from.map_or(p, |f| f.min(p)));
                        open.page_to = Some(open.page_to.map_or(p, |t| t.max(p)));
                    }
                }
            }
        }
    }
    flush(&mut open, &path, &mut out);
    out
}

/// The article references in `text`, normalised ("Article 116", "Art. 116(2)" and
/// "Articles 114 and 115(1)(a)" give "Article 116", "Article 116(2)", "Article 114",
/// "Article 115(1)(a)"), in order, without repeats.
pub fn article_refs(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let at_word_start = i == 0 || !chars[i - 1].is_alphanumeric();
        if !at_word_start {
            i += 1;
            continue;
        }
        let Some(after) = keyword_end(&chars, i) else {
            i += 1;
            continue;
        };
        let mut j = after;
        let mut found_any = false;
        loop {
            let k = skip_ws(&chars, j);
            let Some((reference, end)) = reference_at(&chars, k) else {
                break;
            };
            found_any = true;
            let r = format!("Article {reference}");
            if !out.contains(&r) {
                out.push(r);
            }
            j = end;
            // A list: "114, 115 and 116", "114 to 116", "114 or 115".
            let k = skip_ws(&chars, j);
            let rest: String = chars[k..chars.len().min(k + 4)].iter().collect();
            let sep = if rest.starts_with(',') {
                1
            } else if rest.to_lowercase().starts_with("and ") {
                3
            } else if rest.to_lowercase().starts_with("or ")
                || rest.to_lowercase().starts_with("to ")
            {
                2
            } else {
                0
            };
            if sep == 0 {
                break;
            }
            j = k + sep;
        }
        i = if found_any { j.max(i + 1) } else { after };
    }
    out
}

/// Where the keyword ("Article", "Articles", "Art", "Art.") starting at `i` ends.
fn keyword_end(chars: &[char], i: usize) -> Option<usize> {
    let lower = |k: usize| chars.get(k).map(|c| c.to_ascii_lowercase());
    if lower(i) != Some('a') || lower(i + 1) != Some('r') || lower(i + 2) != Some('t') {
        return None;
    }
    let mut j = i + 3;
    let word: String = chars[i..chars.len().min(i + 8)]
        .iter()
        .map(char::to_ascii_lowercase)
        .collect();
    if word.starts_with("articles") {
        j = i + 8;
    } else if word.starts_with("article") {
        j = i + 7;
    } else if chars.get(j) == Some(&'.') {
        j += 1;
    }
    // The keyword must end the word.
    if chars.get(j).is_some_and(|c| c.is_alphanumeric()) {
        return None;
    }
    // A number must follow (after spaces).
    let k = skip_ws(chars, j);
    if k == j && chars.get(j - 1) != Some(&'.') {
        return None;
    }
    chars.get(k).is_some_and(char::is_ascii_digit).then_some(j)
}

fn skip_ws(chars: &[char], mut j: usize) -> usize {
    while chars.get(j).is_some_and(|c| c.is_whitespace()) {
        j += 1;
    }
    j
}

/// A reference at `k`: digits, an optional letter suffix ("92a"), then "(2)", "(a)" groups.
fn reference_at(chars: &[char], k: usize) -> Option<(String, usize)> {
    let mut j = k;
    let mut s = String::new();
    while chars.get(j).is_some_and(char::is_ascii_digit) {
        s.push(chars[j]);
        j += 1;
    }
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    if chars.get(j).is_some_and(char::is_ascii_lowercase)
        && !chars.get(j + 1).is_some_and(|c| c.is_alphanumeric())
    {
        s.push(chars[j]);
        j += 1;
    }
    // Paragraph and point groups, with or without a space before them.
    loop {
        let k2 = if chars.get(j) == Some(&' ') && chars.get(j + 1) == Some(&'(') {
            j + 1
        } else {
            j
        };
        if chars.get(k2) != Some(&'(') {
            break;
        }
        let mut e = k2 + 1;
        let mut inner = String::new();
        while chars.get(e).is_some_and(|c| c.is_ascii_alphanumeric()) && inner.len() < 5 {
            inner.push(chars[e]);
            e += 1;
        }
        if inner.is_empty() || chars.get(e) != Some(&')') {
            break;
        }
        s.push('(');
        s.push_str(&inner);
        s.push(')');
        j = e + 1;
    }
    Some((s, j))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn para(text: &str, page: u32) -> Block {
        Block {
            kind: BlockKind::Paragraph,
            text: text.into(),
            page: Some(page),
        }
    }

    fn heading(level: u8, text: &str, page: u32) -> Block {
        Block {
            kind: BlockKind::Heading(level),
            text: text.into(),
            page: Some(page),
        }
    }

    #[test]
    fn article_references_are_found_and_normalised() {
        assert_eq!(article_refs("see Article 116 of the CRR"), ["Article 116"]);
        assert_eq!(
            article_refs("under Art. 116(2) and art 117"),
            ["Article 116(2)", "Article 117"]
        );
        assert_eq!(
            article_refs("Articles 114, 115 (1)(a) and 116 apply; ARTICLE 92a too"),
            [
                "Article 114",
                "Article 115(1)(a)",
                "Article 116",
                "Article 92a"
            ]
        );
        assert_eq!(article_refs("Article 116 ... Article 116"), ["Article 116"]);
        // Not references: no number, or the letters inside another word.
        assert!(article_refs("an article about art and the party 12").is_empty());
        assert!(article_refs("Smart 5, cart. 7, articles").is_empty());
    }

    #[test]
    fn chunks_keep_the_heading_path_pages_and_articles() {
        let blocks = vec![
            para("Preamble words.", 1),
            heading(1, "Part Three", 1),
            heading(2, "Article 116 Exposures to PSEs", 2),
            para("Exposures to public sector entities are risk weighted.", 2),
            para("See also Art. 115(1) for regional governments.", 3),
            heading(2, "Article 117", 4),
            para("Multilateral development banks.", 4),
            heading(1, "Part Four", 5),
            para("Large exposures.", 5),
        ];
        let chunks = chunk(&blocks, ChunkOptions::default());
        assert_eq!(chunks.len(), 4);
        assert_eq!(chunks[0].heading, None);
        assert_eq!(chunks[0].text, "Preamble words.");
        assert_eq!(
            chunks[1].heading.as_deref(),
            Some("Part Three > Article 116 Exposures to PSEs")
        );
        assert_eq!((chunks[1].page_from, chunks[1].page_to), (Some(2), Some(3)));
        assert_eq!(chunks[1].articles, ["Article 116", "Article 115(1)"]);
        assert_eq!(
            chunks[2].heading.as_deref(),
            Some("Part Three > Article 117")
        );
        assert_eq!(chunks[3].heading.as_deref(), Some("Part Four"));
        assert!(chunks[3].articles.is_empty());
        assert_eq!(
            chunks.iter().map(|c| c.ord).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
    }

    #[test]
    fn chunks_hold_at_most_the_target_words_and_cut_at_paragraphs() {
        let long: String = (0..450).map(|i| format!("w{i} ")).collect();
        let blocks = vec![
            para("one two three", 1),
            para(&long, 2),
            para("tail words", 3),
        ];
        let chunks = chunk(&blocks, ChunkOptions { target_words: 200 });
        let sizes: Vec<usize> = chunks
            .iter()
            .map(|c| c.text.split_whitespace().count())
            .collect();
        assert_eq!(sizes, [3, 200, 200, 50 + 2]);
        assert!(chunks[1].text.starts_with("w0 "));
        assert_eq!(chunks[3].page_from, Some(2));
        assert_eq!(chunks[3].page_to, Some(3));
        let total: usize = sizes.iter().sum();
        assert_eq!(total, 3 + 450 + 2);
    }
}
