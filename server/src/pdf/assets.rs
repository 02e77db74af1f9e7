//! What the PDF needs that is not in the document: the bytes of the report's images (and its
//! logo) and the current rows of its charts' sources, asked of an [`AssetResolver`] before the
//! compilation. An image is used only when its bytes are a PNG, JPEG, GIF or WebP of at most
//! [`MAX_IMAGE_PIXELS`] pixels; otherwise, or when it is gone, the PDF says it is unavailable.

use std::collections::HashMap;

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::model::{Block, Chart, ChartSource, MAX_CHART_ROWS, Report};

/// Largest image drawn, in pixels (larger ones would be decoded into too much memory).
pub const MAX_IMAGE_PIXELS: u64 = 40_000_000;

/// An image's bytes and the content type it was stored with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageAsset {
    /// Bytes.
    pub bytes: Vec<u8>,
    /// Content type as stored (informative: the bytes decide).
    pub content_type: String,
}

/// A failure to read an asset that exists (storage unreachable): the export fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AssetError(pub String);

/// The two questions the PDF asks about a report.
#[async_trait]
pub trait AssetResolver: Send + Sync {
    /// The image `media_id` of the report: `None` when it is gone.
    async fn image(&self, media_id: &str) -> Result<Option<ImageAsset>, AssetError>;
    /// The current rows of a chart's source (each row an object of column values): `None`
    /// when the source cannot be read, in which case the chart draws the rows stored with it.
    async fn chart_rows(
        &self,
        source: &ChartSource,
    ) -> Result<Option<Vec<Map<String, Value>>>, AssetError>;
}

/// A resolver with nothing to give: images are unavailable and charts draw their stored rows
/// (the dashboards and template previews, which have neither).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAssets;

#[async_trait]
impl AssetResolver for NoAssets {
    async fn image(&self, _media_id: &str) -> Result<Option<ImageAsset>, AssetError> {
        Ok(None)
    }
    async fn chart_rows(
        &self,
        _source: &ChartSource,
    ) -> Result<Option<Vec<Map<String, Value>>>, AssetError> {
        Ok(None)
    }
}

/// A resolver over maps held in memory.
#[derive(Debug, Clone, Default)]
pub struct MemoryAssets {
    /// Images by media id.
    pub images: HashMap<String, ImageAsset>,
    /// Rows by source.
    pub datasets: Vec<(ChartSource, Vec<Map<String, Value>>)>,
}

#[async_trait]
impl AssetResolver for MemoryAssets {
    async fn image(&self, media_id: &str) -> Result<Option<ImageAsset>, AssetError> {
        Ok(self.images.get(media_id).cloned())
    }
    async fn chart_rows(
        &self,
        source: &ChartSource,
    ) -> Result<Option<Vec<Map<String, Value>>>, AssetError> {
        Ok(self
            .datasets
            .iter()
            .find(|(s, _)| s == source)
            .map(|(_, rows)| rows.clone()))
    }
}

/// An image format the PDF draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// GIF.
    Gif,
    /// WebP.
    Webp,
}

/// An image checked and ready to embed.
#[derive(Debug, Clone)]
pub struct ReadyImage {
    /// Its format.
    pub kind: ImageKind,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its number among the report's images (names its file).
    pub ordinal: usize,
}

/// The assets of one export.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// Usable images by media id.
    pub images: HashMap<String, ReadyImage>,
    /// Current rows of the charts, by the chart's order in the document.
    pub chart_rows: HashMap<usize, Vec<Map<String, Value>>>,
}

fn be16(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?])))
}
fn le16(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?])))
}
fn be32(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from(u32::from_be_bytes(
        b.get(i..i + 4)?.try_into().ok()?,
    )))
}
fn le24(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from(*b.get(i)?) | u64::from(*b.get(i + 1)?) << 8 | u64::from(*b.get(i + 2)?) << 16)
}

/// The format and size (width, height) of an image, read from its header; `None` for anything
/// that is not a PNG, JPEG, GIF or WebP.
pub fn sniff(b: &[u8]) -> Option<(ImageKind, u64, u64)> {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") && b.get(12..16) == Some(b"IHDR") {
        return Some((ImageKind::Png, be32(b, 16)?, be32(b, 20)?));
    }
    if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        return Some((ImageKind::Gif, le16(b, 6)?, le16(b, 8)?));
    }
    if b.starts_with(b"RIFF") && b.get(8..12) == Some(b"WEBP") {
        let (w, h) = match b.get(12..16)? {
            b"VP8 " => (le16(b, 26)? & 0x3fff, le16(b, 28)? & 0x3fff),
            b"VP8L" => {
                let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
                (
                    u64::from(bits & 0x3fff) + 1,
                    u64::from((bits >> 14) & 0x3fff) + 1,
                )
            }
            b"VP8X" => (le24(b, 24)? + 1, le24(b, 27)? + 1),
            _ => return None,
        };
        return Some((ImageKind::Webp, w, h));
    }
    if b.starts_with(&[0xff, 0xd8]) {
        let mut i = 2;
        while i + 4 <= b.len() {
            if b[i] != 0xff {
                i += 1;
                continue;
            }
            let marker = b[i + 1];
            if marker == 0xff {
                i += 1;
                continue;
            }
            if matches!(marker, 0xd0..=0xd9 | 0x01) {
                i += 2;
                continue;
            }
            let len = be16(b, i + 2)? as usize;
            if matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc) {
                return Some((ImageKind::Jpeg, be16(b, i + 7)?, be16(b, i + 5)?));
            }
            i += 2 + len;
        }
    }
    None
}

/// The bytes as an image the PDF can draw, or `None`.
fn ready(asset: ImageAsset, ordinal: usize) -> Option<ReadyImage> {
    let (kind, w, h) = sniff(&asset.bytes)?;
    (w > 0 && h > 0 && w.saturating_mul(h) <= MAX_IMAGE_PIXELS).then_some(ReadyImage {
        kind,
        bytes: asset.bytes,
        ordinal,
    })
}

/// Every chart and image of the report, in document order.
fn walk<'a>(blocks: &'a [Block], charts: &mut Vec<&'a Chart>, images: &mut Vec<&'a str>) {
    for b in blocks {
        match b {
            Block::Chart(c) => charts.push(c),
            Block::Image(i) => images.push(&i.media_id),
            Block::BulletList(items) | Block::OrderedList { items, .. } => {
                for item in items {
                    walk(item, charts, images);
                }
            }
            Block::Blockquote(inner) => walk(inner, charts, images),
            Block::Table(t) => {
                for row in &t.rows {
                    for cell in row {
                        walk(&cell.blocks, charts, images);
                    }
                }
            }
            Block::Paragraph(_) | Block::Heading { .. } | Block::CodeBlock(_) | Block::Rule => {}
        }
    }
}

/// Asks `resolver` for the report's images, logo and chart rows (each image and each source
/// once).
pub async fn resolve(
    report: &Report,
    resolver: &dyn AssetResolver,
) -> Result<Resolved, AssetError> {
    let mut charts = Vec::new();
    let mut images = Vec::new();
    for s in &report.sections {
        walk(&s.blocks, &mut charts, &mut images);
    }
    if let Some(logo) = &report.branding.logo {
        images.push(logo);
    }
    let mut out = Resolved::default();
    let mut asked: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for id in images {
        if !asked.insert(id) {
            continue;
        }
        if let Some(asset) = resolver.image(id).await? {
            let ordinal = out.images.len();
            if let Some(img) = ready(asset, ordinal) {
                out.images.insert(id.to_owned(), img);
            }
        }
    }
    let mut by_source: Vec<(&ChartSource, Option<Vec<Map<String, Value>>>)> = Vec::new();
    for (n, chart) in charts.iter().enumerate() {
        let Some(source) = &chart.source else {
            continue;
        };
        let rows = match by_source.iter().find(|(s, _)| *s == source) {
            Some((_, rows)) => rows.clone(),
            None => {
                let rows = resolver.chart_rows(source).await?;
                by_source.push((source, rows.clone()));
                rows
            }
        };
        if let Some(mut rows) = rows {
            rows.truncate(MAX_CHART_ROWS);
            out.chart_rows.insert(n, rows);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::fixture::png;
    use super::*;

    #[test]
    fn image_headers_give_format_and_size() {
        assert_eq!(sniff(&png(2, 1, [255, 0, 0])), Some((ImageKind::Png, 2, 1)));
        let gif = b"GIF89a\x10\x00\x20\x00rest";
        assert_eq!(sniff(gif), Some((ImageKind::Gif, 16, 32)));
        // JPEG: SOI, an APP0 segment, then SOF0 with height 300 and width 400.
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00];
        jpeg.extend([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x01, 0x90, 0x03]);
        assert_eq!(sniff(&jpeg), Some((ImageKind::Jpeg, 400, 300)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\0\0\0\0".to_vec();
        webp.extend([0x63, 0x00, 0x00, 0xc7, 0x00, 0x00]);
        assert_eq!(sniff(&webp), Some((ImageKind::Webp, 100, 200)));
        assert_eq!(sniff(b"<svg xmlns=...>"), None);
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n"), None, "truncated");
        assert_eq!(sniff(&[0xff, 0xd8, 0xff]), None);
    }

    #[test]
    fn huge_or_fake_images_are_not_drawn() {
        let mut huge = png(2, 1, [0, 0, 255]);
        huge[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        huge[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let a = |b: &[u8]| ImageAsset {
            bytes: b.to_vec(),
            content_type: "image/png".into(),
        };
        assert!(ready(a(&huge), 0).is_none());
        assert!(ready(a(b"not an image"), 0).is_none());
        assert!(ready(a(&png(2, 1, [0, 0, 255])), 0).is_some());
    }
}
