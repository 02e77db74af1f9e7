//! What the PDF needs that is not in the document: the bytes of the report's images (and its
//! logo) and the current rows of its charts' sources, asked of an [`AssetResolver`] before the
//! compilation. An image is used only when its bytes are a PNG, JPEG, GIF or WebP of at most
//! [`MAX_IMAGE_PIXELS`] pixels; otherwise, or when it is gone, the PDF says it is unavailable.

use std::collections::HashMap;

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::model::{Block, Chart, ChartSource, MAX_CHART_ROWS, Report};

/// Rows of a chart's data, one JSON object per row.
type Rows = Vec<Map<String, Value>>;

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

/// The format and size (width, height) of an image, read from its header by the image
/// decoder; `None` for anything that is not a PNG, JPEG, GIF or WebP.
pub fn sniff(b: &[u8]) -> Option<(ImageKind, u64, u64)> {
    let reader = image::ImageReader::new(std::io::Cursor::new(b))
        .with_guessed_format()
        .ok()?;
    let kind = match reader.format()? {
        image::ImageFormat::Png => ImageKind::Png,
        image::ImageFormat::Jpeg => ImageKind::Jpeg,
        image::ImageFormat::Gif => ImageKind::Gif,
        image::ImageFormat::WebP => ImageKind::Webp,
        _ => return None,
    };
    let (w, h) = reader.into_dimensions().ok()?;
    Some((kind, u64::from(w), u64::from(h)))
}

/// Whether the whole image decodes (a header can be right over a broken body, which would fail
/// the layout): run on the export's blocking thread, within [`MAX_IMAGE_PIXELS`].
pub fn decodes(img: &ReadyImage) -> bool {
    let format = match img.kind {
        ImageKind::Png => image::ImageFormat::Png,
        ImageKind::Jpeg => image::ImageFormat::Jpeg,
        ImageKind::Gif => image::ImageFormat::Gif,
        ImageKind::Webp => image::ImageFormat::WebP,
    };
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(&img.bytes), format);
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(MAX_IMAGE_PIXELS * 4 + (16 << 20));
    reader.limits(limits);
    reader.decode().is_ok()
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
    let mut by_source: Vec<(&ChartSource, Option<Rows>)> = Vec::new();
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

    fn encoded(format: image::ImageFormat) -> Vec<u8> {
        let img = image::RgbaImage::from_pixel(4, 3, image::Rgba([10, 20, 30, 255]));
        let mut out = std::io::Cursor::new(Vec::new());
        image::DynamicImage::ImageRgba8(img)
            .write_to(&mut out, format)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn image_headers_give_format_and_size() {
        assert_eq!(sniff(&png(2, 1, [255, 0, 0])), Some((ImageKind::Png, 2, 1)));
        for (format, kind) in [
            (image::ImageFormat::Gif, ImageKind::Gif),
            (image::ImageFormat::WebP, ImageKind::Webp),
        ] {
            assert_eq!(sniff(&encoded(format)), Some((kind, 4, 3)), "{format:?}");
        }
        let jpeg = {
            let img = image::RgbImage::from_pixel(4, 3, image::Rgb([10, 20, 30]));
            let mut out = std::io::Cursor::new(Vec::new());
            image::DynamicImage::ImageRgb8(img)
                .write_to(&mut out, image::ImageFormat::Jpeg)
                .unwrap();
            out.into_inner()
        };
        assert_eq!(sniff(&jpeg), Some((ImageKind::Jpeg, 4, 3)));
        assert_eq!(sniff(b"<svg xmlns=...>"), None);
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n"), None, "truncated");
        assert_eq!(sniff(&[0xff, 0xd8, 0xff]), None);
    }

    #[test]
    fn an_image_whose_body_is_broken_does_not_decode() {
        let good = ready(
            ImageAsset {
                bytes: png(2, 1, [0, 0, 255]),
                content_type: "image/png".into(),
            },
            0,
        )
        .unwrap();
        assert!(decodes(&good));
        // The header of a PNG and nothing after it: sniffed as a 1 x 1 PNG, not drawable.
        let mut broken = png(1, 1, [0, 0, 255]);
        broken.truncate(33);
        let broken = ready(
            ImageAsset {
                bytes: broken,
                content_type: "image/png".into(),
            },
            0,
        );
        assert!(broken.is_none_or(|b| !decodes(&b)));
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
