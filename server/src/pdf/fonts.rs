//! The fonts of the PDF, embedded in the binary (no system font is ever read): Liberation Sans
//! (metrics of Arial and Helvetica) and Liberation Serif (of Times New Roman), with typst's own
//! embedded fonts (Libertinus Serif, New Computer Modern, DejaVu Sans Mono) for the rest. A
//! family chosen in the editor is drawn with the nearest of these.

/// Liberation Sans and Liberation Serif, regular, bold, italic and bold italic.
pub(crate) static FONT_FILES: [&[u8]; 8] = [
    include_bytes!("fonts/LiberationSans-Regular.ttf"),
    include_bytes!("fonts/LiberationSans-Bold.ttf"),
    include_bytes!("fonts/LiberationSans-Italic.ttf"),
    include_bytes!("fonts/LiberationSans-BoldItalic.ttf"),
    include_bytes!("fonts/LiberationSerif-Regular.ttf"),
    include_bytes!("fonts/LiberationSerif-Bold.ttf"),
    include_bytes!("fonts/LiberationSerif-Italic.ttf"),
    include_bytes!("fonts/LiberationSerif-BoldItalic.ttf"),
];

/// The sans-serif family.
pub const SANS: &str = "Liberation Sans";
/// The serif family.
pub const SERIF: &str = "Liberation Serif";
/// The book serif (typst's Libertinus), for Georgia, Garamond and Palatino.
pub const BOOK: &str = "Libertinus Serif";
/// The monospaced family (typst's DejaVu Sans Mono).
pub const MONO: &str = "DejaVu Sans Mono";

/// The embedded family that draws a family chosen in the editor (any of the template editor's
/// 16, or anything else: sans-serif).
pub fn family_for(name: &str) -> &'static str {
    let n = name.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
    match n.as_str() {
        "times new roman" | "times" | "serif" => SERIF,
        "georgia" | "garamond" | "palatino" | "palatino linotype" | "book antiqua" => BOOK,
        "courier new" | "courier" | "monospace" => MONO,
        _ => SANS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_editor_font_has_an_embedded_family() {
        assert_eq!(family_for("Arial"), SANS);
        assert_eq!(family_for("SF Pro Display"), SANS);
        assert_eq!(family_for("Helvetica"), SANS);
        assert_eq!(family_for("Times New Roman"), SERIF);
        assert_eq!(family_for("Georgia"), BOOK);
        assert_eq!(family_for("Courier New"), MONO);
        assert_eq!(family_for("\"); #evil"), SANS);
    }
}
