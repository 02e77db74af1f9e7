//! Hostile spreadsheets built in the test itself (small zip and compound files that expand to a
//! lot): each is refused with the right message, and the refusal allocates a small fraction of
//! what the file expands to (measured with a counting allocator). Limits are lowered where that
//! keeps the test light; no test data is larger than a few MiB once expanded, except the 8 MiB
//! shared string, which is streamed into the zip writer.

use std::cell::Cell;
use std::io::{Cursor, Write};

use analysis::cli::{GenerateArgs, run_generate};
use analysis::ingest::{
    IngestError, Input, Limits, ReadStats, RowChunk, RowSink, SourceInfo, read_rows,
};
use zip::write::SimpleFileOptions;

/// Tracks the bytes allocated and not yet freed on this thread, and their peak.
struct PeakAlloc;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn track(delta: i64) {
    let _ = LIVE.try_with(|l| {
        let now = l.get() + delta;
        l.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

// SAFETY: forwards every call unchanged to the system allocator; only counts.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        track(layout.size() as i64);
        // SAFETY: same contract as the caller's.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        track(-(layout.size() as i64));
        // SAFETY: same contract as the caller's.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        track(new_size as i64 - layout.size() as i64);
        // SAFETY: same contract as the caller's.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: PeakAlloc = PeakAlloc;

/// Runs `f` and returns its result with the most bytes it had allocated at once on this thread.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, i64) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    (r, PEAK.with(Cell::get) - base)
}

const MIB: i64 = 1024 * 1024;

/// Counts rows.
struct Count(u64, Vec<String>);

impl RowSink<IngestError> for Count {
    fn start(&mut self, info: &SourceInfo) -> Result<(), IngestError> {
        self.1 = info.headers.clone();
        Ok(())
    }
    fn chunk(&mut self, chunk: RowChunk) -> Result<Option<RowChunk>, IngestError> {
        self.0 += chunk.len() as u64;
        let mut c = chunk;
        c.reset(c.ncols(), 0);
        Ok(Some(c))
    }
}

fn read(name: &str, data: &[u8], limits: &Limits) -> Result<(ReadStats, Vec<String>), String> {
    let mut sink = Count(0, Vec::new());
    read_rows(Input::Bytes { name, data }, limits, 1000, &mut sink)
        .map(|s| (s, sink.1))
        .map_err(|e: IngestError| e.to_string())
}

/// A zip archive of `parts`, deflated; a part's content comes in pieces (written one by one,
/// so a large part never exists whole in memory).
fn zip_of(parts: Vec<(&str, Vec<Vec<u8>>)>) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, pieces) in parts {
        let method = if name == "mimetype" {
            zip::CompressionMethod::Stored
        } else {
            zip::CompressionMethod::Deflated
        };
        z.start_file(
            name,
            SimpleFileOptions::default().compression_method(method),
        )
        .unwrap();
        for p in pieces {
            z.write_all(&p).unwrap();
        }
    }
    z.finish().unwrap().into_inner()
}

const MAIN: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const RELS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// A minimal valid XLSX: one sheet with `rows` (already `<row>` XML), and a shared-string
/// table made of `sst` pieces when given.
fn xlsx(rows: Vec<Vec<u8>>, sst: Option<Vec<Vec<u8>>>) -> Vec<u8> {
    let mut sheet = vec![
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><worksheet xmlns=\"{MAIN}\"><sheetData>"
        )
        .into_bytes(),
    ];
    sheet.extend(rows);
    sheet.push(b"</sheetData></worksheet>".to_vec());
    let mut parts = vec![
        (
            "[Content_Types].xml",
            vec![b"<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"><Default Extension=\"xml\" ContentType=\"application/xml\"/></Types>".to_vec()],
        ),
        (
            "_rels/.rels",
            vec![format!("<?xml version=\"1.0\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" Type=\"{RELS}/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>").into_bytes()],
        ),
        (
            "xl/workbook.xml",
            vec![format!("<?xml version=\"1.0\"?><workbook xmlns=\"{MAIN}\" xmlns:r=\"{RELS}\"><sheets><sheet name=\"Exposures\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>").into_bytes()],
        ),
        (
            "xl/_rels/workbook.xml.rels",
            vec![format!("<?xml version=\"1.0\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" Type=\"{RELS}/worksheet\" Target=\"worksheets/sheet1.xml\"/><Relationship Id=\"rId2\" Type=\"{RELS}/sharedStrings\" Target=\"sharedStrings.xml\"/></Relationships>").into_bytes()],
        ),
        ("xl/worksheets/sheet1.xml", sheet),
    ];
    if let Some(sst) = sst {
        parts.push(("xl/sharedStrings.xml", sst));
    }
    zip_of(parts)
}

fn inline(r: &str, text: &str) -> String {
    format!("<c r=\"{r}\" t=\"inlineStr\"><is><t>{text}</t></is></c>")
}

/// Header row `Exposure_ID, Exposure_Amount` and `n` data rows.
fn header_and_rows(n: usize) -> Vec<Vec<u8>> {
    let mut rows = vec![
        format!(
            "<row r=\"1\">{}{}</row>",
            inline("A1", "Exposure_ID"),
            inline("B1", "Exposure_Amount")
        )
        .into_bytes(),
    ];
    for i in 2..n + 2 {
        rows.push(
            format!(
                "<row r=\"{i}\">{}<c r=\"B{i}\"><v>{}</v></c></row>",
                inline(&format!("A{i}"), &format!("E{i}")),
                i * 1000
            )
            .into_bytes(),
        );
    }
    rows
}

/// 8 MiB of 'A' in pieces of 64 KiB.
fn eight_mib_of_a() -> Vec<Vec<u8>> {
    (0..128).map(|_| vec![b'A'; 64 * 1024]).collect()
}

fn sst_of(entries: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let mut v = vec![format!("<?xml version=\"1.0\"?><sst xmlns=\"{MAIN}\">").into_bytes()];
    v.extend(entries);
    v.push(b"</sst>".to_vec());
    v
}

#[test]
fn a_legitimate_workbook_is_read() {
    let data = xlsx(header_and_rows(3), None);
    let (stats, headers) = read("ok.xlsx", &data, &Limits::default()).unwrap();
    assert_eq!(stats.rows, 3);
    assert_eq!(headers, ["Exposure_ID", "Exposure_Amount"]);
    // The same through a shared-string table.
    let mut rows = vec![b"<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row>".to_vec()];
    rows.push(b"<row r=\"2\"><c r=\"A2\" t=\"s\"><v>1</v></c></row>".to_vec());
    let sst = sst_of(vec![
        b"<si><t>Exposure_ID</t></si>".to_vec(),
        b"<si><r><t>E</t></r><r><t>1</t></r></si>".to_vec(),
    ]);
    let data = xlsx(rows, Some(sst));
    let (stats, headers) = read("ok.xlsx", &data, &Limits::default()).unwrap();
    assert_eq!((stats.rows, headers), (1, vec!["Exposure_ID".to_string()]));
}

#[test]
fn a_huge_shared_string_is_refused_before_it_is_loaded() {
    let mut sst = vec![b"<si><t>".to_vec()];
    sst.extend(eight_mib_of_a());
    sst.push(b"</t></si>".to_vec());
    let rows = vec![b"<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row>".to_vec()];
    let data = xlsx(rows, Some(sst_of(sst)));
    assert!(data.len() < 64 * 1024, "{} bytes zipped", data.len());
    let small = Limits {
        max_cell_bytes: 64 * 1024,
        ..Limits::default()
    };
    let (r, peak) = peak_of(|| read("bomb.xlsx", &data, &small));
    assert_eq!(
        r.unwrap_err(),
        "Failed to parse Excel file: shared string 1: a cell is longer than 65536 bytes"
    );
    assert!(peak < MIB, "peak {peak} bytes");
    // With the product's limits (1 MiB cells), the same file is refused as early.
    let (r, peak) = peak_of(|| read("bomb.xlsx", &data, &Limits::default()));
    assert_eq!(
        r.unwrap_err(),
        "Failed to parse Excel file: shared string 1: a cell is longer than 1048576 bytes"
    );
    assert!(peak < 2 * MIB, "peak {peak} bytes");
}

#[test]
fn a_huge_inline_cell_or_whitespace_run_is_refused_before_it_is_loaded() {
    let mut rows = header_and_rows(1);
    rows.push(b"<row r=\"3\"><c r=\"A3\" t=\"inlineStr\"><is><t>".to_vec());
    rows.extend(eight_mib_of_a());
    rows.push(b"</t></is></c></row>".to_vec());
    let data = xlsx(rows, None);
    let small = Limits {
        max_cell_bytes: 64 * 1024,
        ..Limits::default()
    };
    let (r, peak) = peak_of(|| read("bomb.xlsx", &data, &small));
    assert_eq!(
        r.unwrap_err(),
        "Failed to parse Excel file: row 3: a cell is longer than 65536 bytes"
    );
    assert!(peak < MIB, "peak {peak} bytes");
    // Whitespace between rows: calamine would hold it as one text token.
    let mut rows = header_and_rows(1);
    rows.extend((0..128).map(|_| vec![b' '; 64 * 1024]));
    let data = xlsx(rows, None);
    let (r, peak) = peak_of(|| read("ws.xlsx", &data, &small));
    assert_eq!(
        r.unwrap_err(),
        "Failed to parse Excel file: xl/worksheets/sheet1.xml: a text run is longer than 65536 bytes"
    );
    assert!(peak < MIB, "peak {peak} bytes");
}

#[test]
fn a_shared_string_table_with_too_many_entries_is_refused() {
    // 200,000 one-letter strings: 3.3 MB zipped to a few KB.
    let many = || {
        sst_of(
            (0..200)
                .map(|_| b"<si><t>x</t></si>".repeat(1000))
                .collect(),
        )
    };
    let rows = vec![b"<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row>".to_vec()];
    let data = xlsx(rows.clone(), Some(many()));
    // More strings than a memory budget of 1 MiB holds (32 bytes each besides the text).
    let budget = Limits {
        max_workbook_bytes: 1024 * 1024,
        ..Limits::default()
    };
    let (r, peak) = peak_of(|| read("sst.xlsx", &data, &budget));
    assert_eq!(
        r.unwrap_err(),
        "Failed to parse Excel file: the workbook needs more than 1048576 bytes of memory to load (31753 shared strings so far)"
    );
    assert!(peak < MIB, "peak {peak} bytes");
    // More strings than the allowed rows x columns could use.
    let grid = Limits {
        max_rows: 999,
        max_columns: 10,
        ..Limits::default()
    };
    assert_eq!(
        read("sst.xlsx", &data, &grid).unwrap_err(),
        "Failed to parse Excel file: the shared-string table holds more strings than 1000 rows of 10 columns can use"
    );
    // The count calamine would reserve room for up front.
    let declared = xlsx(
        rows,
        Some(vec![
            format!("<sst xmlns=\"{MAIN}\" uniqueCount=\"4000000000000\"><si><t>a</t></si></sst>")
                .into_bytes(),
        ]),
    );
    assert_eq!(
        read("sst.xlsx", &declared, &Limits::default()).unwrap_err(),
        "Failed to parse Excel file: xl/sharedStrings.xml: the shared-string table declares 4000000000000 strings, more than can be loaded"
    );
    // The product's limits accept the table (6.4 MB of memory).
    assert!(
        read("sst.xlsx", &data, &Limits::default())
            .is_err_and(|e| e == "No data found in Excel file")
    );
}

#[test]
fn too_many_columns_reports_the_width_of_the_file() {
    // A header cell in the last column, XFD.
    let mut rows = header_and_rows(1);
    rows[0] = format!(
        "<row r=\"1\">{}{}{}</row>",
        inline("A1", "Exposure_ID"),
        inline("B1", "Exposure_Amount"),
        inline("XFD1", "Z")
    )
    .into_bytes();
    let data = xlsx(rows, None);
    assert_eq!(
        read("wide.xlsx", &data, &Limits::default()).unwrap_err(),
        "File has too many columns: 16384, at most 1000 are allowed"
    );
    // 50,000 header cells without references.
    let cells: String = (0..50_000)
        .map(|i| format!("<c t=\"inlineStr\"><is><t>H{i}</t></is></c>"))
        .collect();
    let data = xlsx(vec![format!("<row>{cells}</row>").into_bytes()], None);
    let (r, peak) = peak_of(|| read("wide.xlsx", &data, &Limits::default()));
    assert_eq!(
        r.unwrap_err(),
        "File has too many columns: 50000, at most 1000 are allowed"
    );
    assert!(peak < 4 * MIB, "peak {peak} bytes");
    // Blank cells far to the right do not count.
    let mut rows = header_and_rows(1);
    rows[0] = format!(
        "<row r=\"1\">{}{}<c r=\"XFD1\" s=\"1\"/></row>",
        inline("A1", "Exposure_ID"),
        inline("B1", "Exposure_Amount")
    )
    .into_bytes();
    assert_eq!(
        read("wide.xlsx", &xlsx(rows, None), &Limits::default())
            .unwrap()
            .0
            .rows,
        1
    );
    // Beyond XFD is not a cell of any sheet (and would overflow calamine's arithmetic).
    let mut rows = header_and_rows(1);
    rows.push(format!("<row r=\"3\">{}</row>", inline("XFE3", "x")).into_bytes());
    assert_eq!(
        read("wide.xlsx", &xlsx(rows, None), &Limits::default()).unwrap_err(),
        "Failed to parse Excel file: xl/worksheets/sheet1.xml: cell \"XFE3\" is not a cell of the sheet (A1 to XFD1048576)"
    );
    // A dimension that ends before it starts.
    let data = zip_of(vec![
        ("_rels/.rels", vec![format!("<Relationships><Relationship Id=\"a\" Type=\"{RELS}/officeDocument\" Target=\"/xl/workbook.xml\"/></Relationships>").into_bytes()]),
        ("xl/workbook.xml", vec![b"<workbook><sheets><sheet name=\"S\" r:id=\"r1\"/></sheets></workbook>".to_vec()]),
        ("xl/_rels/workbook.xml.rels", vec![format!("<Relationships><Relationship Id=\"r1\" Type=\"{RELS}/worksheet\" Target=\"s.xml\"/></Relationships>").into_bytes()]),
        ("xl/s.xml", vec![b"<worksheet><dimension ref=\"B2:A1\"/><sheetData/></worksheet>".to_vec()]),
    ]);
    assert_eq!(
        read("dim.xlsx", &data, &Limits::default()).unwrap_err(),
        "Failed to parse Excel file: xl/s.xml: the sheet's dimension \"B2:A1\" is not a cell of the sheet (A1 to XFD1048576)"
    );
}

#[test]
fn one_shared_string_referenced_by_every_cell_cannot_expand_without_bound() {
    // A 512 KiB string (under the 1 MiB cell limit) in 4 columns of 2,000 rows: 4 GB of cells
    // from a file of a few KB. The rows are streamed; their total is held to the decompressed
    // limit.
    let mut sst = vec![b"<si><t>".to_vec()];
    sst.extend((0..8).map(|_| vec![b'A'; 64 * 1024]));
    sst.push(b"</t></si><si><t>H</t></si>".to_vec());
    let mut rows = vec![
        b"<row r=\"1\"><c r=\"A1\" t=\"s\"><v>1</v></c><c r=\"B1\" t=\"s\"><v>1</v></c><c r=\"C1\" t=\"s\"><v>1</v></c><c r=\"D1\" t=\"s\"><v>1</v></c></row>".to_vec(),
    ];
    let row = |i: usize| {
        format!("<row r=\"{i}\"><c r=\"A{i}\" t=\"s\"><v>0</v></c><c r=\"B{i}\" t=\"s\"><v>0</v></c><c r=\"C{i}\" t=\"s\"><v>0</v></c><c r=\"D{i}\" t=\"s\"><v>0</v></c></row>").into_bytes()
    };
    rows.extend((2..2002).map(row));
    let data = xlsx(rows, Some(sst_of(sst)));
    let limits = Limits {
        max_decompressed_bytes: 64 * 1024 * 1024,
        ..Limits::default()
    };
    let (r, peak) = peak_of(|| read("amplified.xlsx", &data, &limits));
    assert_eq!(
        r.unwrap_err(),
        "Failed to parse Excel file: the workbook expands to more than 67108864 bytes when decompressed"
    );
    assert!(peak < 200 * MIB, "peak {peak} bytes");
}

#[test]
fn a_generated_workbook_keeps_working() {
    let path = std::env::temp_dir().join(format!("hostile_gen_{}.xlsx", std::process::id()));
    run_generate(&GenerateArgs {
        lever: "pse".into(),
        rows: 20_000,
        output: path.clone(),
        seed: 3,
        refdata: None,
    })
    .unwrap();
    let data = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let upload = Limits::upload();
    let (stats, headers) = read("gen.xlsx", &data, &upload).unwrap();
    assert_eq!(stats.rows, 20_000);
    assert!(headers.iter().any(|h| h == "Exposure_Amount"));
}

/// A minimal ODS: `content` is the body of `office:spreadsheet`.
fn ods(content: &str) -> Vec<u8> {
    let ns = "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\"";
    zip_of(vec![
        ("mimetype", vec![b"application/vnd.oasis.opendocument.spreadsheet".to_vec()]),
        (
            "META-INF/manifest.xml",
            vec![b"<?xml version=\"1.0\"?><manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\"><manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"application/vnd.oasis.opendocument.spreadsheet\"/></manifest:manifest>".to_vec()],
        ),
        (
            "content.xml",
            vec![format!("<?xml version=\"1.0\"?><office:document-content {ns}><office:body><office:spreadsheet>{content}</office:spreadsheet></office:body></office:document-content>").into_bytes()],
        ),
    ])
}

fn ods_text(t: &str) -> String {
    format!(
        "<table:table-cell office:value-type=\"string\"><text:p>{t}</text:p></table:table-cell>"
    )
}

#[test]
fn ods_repeats_and_expanding_spaces_are_refused_before_loading() {
    let header = format!(
        "<table:table-row>{}{}</table:table-row>",
        ods_text("Exposure_ID"),
        ods_text("Exposure_Amount")
    );
    // As LibreOffice writes it: empty cells and rows repeated to the edge of the sheet.
    let ok = ods(&format!(
        "<table:table table:name=\"S\"><table:table-column table:number-columns-repeated=\"1024\"/>{header}<table:table-row>{}<table:table-cell office:value-type=\"float\" office:value=\"5\"/><table:table-cell table:number-columns-repeated=\"1022\"/></table:table-row><table:table-row table:number-rows-repeated=\"1048573\"><table:table-cell table:number-columns-repeated=\"1024\"/></table:table-row></table:table>",
        ods_text("E1")
    ));
    let (stats, headers) = read("ok.ods", &ok, &Limits::default()).unwrap();
    assert_eq!((stats.rows, headers.len()), (1, 2));
    // One number repeated over 16,384 columns of a million rows: calamine would fill 100 million
    // cells (several GB) from a file of 1 KB.
    let bomb = ods(&format!(
        "<table:table table:name=\"S\">{header}<table:table-row table:number-rows-repeated=\"1000000\"><table:table-cell office:value-type=\"float\" office:value=\"1\" table:number-columns-repeated=\"16384\"/></table:table-row></table:table>"
    ));
    let (r, peak) = peak_of(|| read("bomb.ods", &bomb, &Limits::default()));
    let e = r.unwrap_err();
    assert!(
        e.starts_with("Failed to parse Excel file: the workbook needs more than 536870912 bytes of memory to load ("),
        "{e}"
    );
    assert!(peak < MIB, "peak {peak} bytes");
    // A cell of four billion spaces written as one element.
    let spaces = ods(&format!(
        "<table:table table:name=\"S\">{header}<table:table-row><table:table-cell office:value-type=\"string\"><text:p><text:s text:c=\"4000000000\"/></text:p></table:table-cell></table:table-row></table:table>"
    ));
    assert_eq!(
        read("spaces.ods", &spaces, &Limits::default()).unwrap_err(),
        "Failed to parse Excel file: row 2: a cell is longer than 1048576 bytes"
    );
}

/// A BIFF record.
fn rec(typ: u16, data: &[u8]) -> Vec<u8> {
    let mut v = typ.to_le_bytes().to_vec();
    v.extend((data.len() as u16).to_le_bytes());
    v.extend(data);
    v
}

/// A BIFF8 workbook stream with one sheet made of `cells` (records), padded to 8 KiB.
fn biff(cells: &[Vec<u8>]) -> Vec<u8> {
    let bof = |dt: u16| {
        let mut d = vec![0u8; 16];
        d[0..2].copy_from_slice(&0x0600u16.to_le_bytes());
        d[2..4].copy_from_slice(&dt.to_le_bytes());
        rec(0x0809, &d)
    };
    let mut globals = bof(0x0005);
    let sheet_rec_at = globals.len();
    // BoundSheet8: position (patched below), state, type, name "S" (compressed).
    globals.extend(rec(0x0085, &[0, 0, 0, 0, 0, 0, 1, 0, b'S']));
    globals.extend(rec(0x000A, &[]));
    let pos = globals.len() as u32;
    globals[sheet_rec_at + 4..sheet_rec_at + 8].copy_from_slice(&pos.to_le_bytes());
    globals.extend(bof(0x0010));
    for c in cells {
        globals.extend(c);
    }
    globals.extend(rec(0x000A, &[]));
    globals.resize(8192, 0);
    globals
}

/// A compound file (512-byte sectors) holding `stream` as "Workbook": header, one FAT sector,
/// one directory sector, then the stream. `fat_patch` edits the allocation table.
fn cfb(stream: &[u8], fat_patch: impl Fn(&mut Vec<u32>)) -> Vec<u8> {
    let n = stream.len().div_ceil(512) as u32;
    let mut h = vec![0u8; 512];
    h[..8].copy_from_slice(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1");
    h[24..26].copy_from_slice(&0x003Eu16.to_le_bytes());
    h[26..28].copy_from_slice(&3u16.to_le_bytes());
    h[28..30].copy_from_slice(&0xFFFEu16.to_le_bytes());
    h[30..32].copy_from_slice(&9u16.to_le_bytes());
    h[32..34].copy_from_slice(&6u16.to_le_bytes());
    h[44..48].copy_from_slice(&1u32.to_le_bytes()); // FAT sectors
    h[48..52].copy_from_slice(&1u32.to_le_bytes()); // directory at sector 1
    h[56..60].copy_from_slice(&4096u32.to_le_bytes());
    h[60..64].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
    h[68..72].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
    h[76..80].copy_from_slice(&0u32.to_le_bytes()); // FAT at sector 0
    for i in 1..109 {
        h[76 + 4 * i..80 + 4 * i].copy_from_slice(&0xFFFF_FFFFu32.to_le_bytes());
    }
    let mut fat = vec![0xFFFF_FFFDu32, 0xFFFF_FFFE];
    for i in 0..n {
        fat.push(if i + 1 == n { 0xFFFF_FFFE } else { 3 + i });
    }
    fat.resize(128, 0xFFFF_FFFF);
    fat_patch(&mut fat);
    let mut out = h;
    out.extend(fat.iter().flat_map(|v| v.to_le_bytes()));
    let entry = |name: &str, typ: u8, start: u32, size: u32| {
        let mut e = vec![0u8; 128];
        let units: Vec<u16> = name.encode_utf16().collect();
        for (i, u) in units.iter().enumerate() {
            e[2 * i..2 * i + 2].copy_from_slice(&u.to_le_bytes());
        }
        e[64..66].copy_from_slice(&((units.len() as u16 + 1) * 2).to_le_bytes());
        e[66] = typ;
        e[68..80].copy_from_slice(&[0xFF; 12]);
        e[116..120].copy_from_slice(&start.to_le_bytes());
        e[120..124].copy_from_slice(&size.to_le_bytes());
        e
    };
    out.extend(entry("Root Entry", 5, 0xFFFF_FFFE, 0));
    out.extend(entry("Workbook", 2, 2, stream.len() as u32));
    out.extend(vec![0u8; 256]);
    out.extend(stream);
    out.resize(512 + 512 * (2 + n as usize), 0);
    out
}

fn number(row: u16, col: u16, v: f64) -> Vec<u8> {
    let mut d = row.to_le_bytes().to_vec();
    d.extend(col.to_le_bytes());
    d.extend(0u16.to_le_bytes());
    d.extend(v.to_le_bytes());
    rec(0x0203, &d)
}

fn label(row: u16, col: u16, s: &str) -> Vec<u8> {
    let mut d = row.to_le_bytes().to_vec();
    d.extend(col.to_le_bytes());
    d.extend(0u16.to_le_bytes());
    d.extend((s.len() as u16).to_le_bytes());
    d.push(0);
    d.extend(s.as_bytes());
    rec(0x0204, &d)
}

#[test]
fn xls_hazards_are_refused_before_calamine_reads_them() {
    let cells = vec![
        label(0, 0, "Exposure_ID"),
        label(0, 1, "Exposure_Amount"),
        label(1, 0, "E1"),
        number(1, 1, 5.0),
    ];
    let ok = cfb(&biff(&cells), |_| {});
    let (stats, headers) = read("ok.xls", &ok, &Limits::default()).unwrap();
    assert_eq!((stats.rows, headers.len()), (1, 2));
    // A directory chain that loops: calamine would grow the directory without end.
    let looping = cfb(&biff(&cells), |fat| fat[1] = 1);
    let (r, peak) = peak_of(|| read("loop.xls", &looping, &Limits::default()));
    assert_eq!(
        r.unwrap_err(),
        "Failed to parse Excel file: broken XLS workbook: a sector chain loops"
    );
    assert!(peak < MIB, "peak {peak} bytes");
    // Two cells far apart: calamine would build a dense range of 16 million cells.
    let mut far = cells.clone();
    far.push(number(65_535, 255, 1.0));
    let data = cfb(&biff(&far), |_| {});
    let budget = Limits {
        max_workbook_bytes: 64 * 1024 * 1024,
        ..Limits::default()
    };
    let (r, peak) = peak_of(|| read("far.xls", &data, &budget));
    assert_eq!(
        r.unwrap_err(),
        "Failed to parse Excel file: the workbook needs more than 67108864 bytes of memory to load (5 cells so far)"
    );
    assert!(peak < MIB, "peak {peak} bytes");
    // A column past IV, and DIMENSIONS that end before they start (calamine's arithmetic
    // would underflow) or declare four billion rows to reserve room for.
    let mut wide = cells.clone();
    wide.push(number(2, 300, 1.0));
    assert_eq!(
        read("wide.xls", &cfb(&biff(&wide), |_| {}), &Limits::default()).unwrap_err(),
        "Failed to parse Excel file: broken XLS workbook: a cell lies beyond the last column (IV)"
    );
    let dims = |rf: u32, rl: u32| {
        let mut d = rf.to_le_bytes().to_vec();
        d.extend(rl.to_le_bytes());
        d.extend(0u16.to_le_bytes());
        d.extend(2u16.to_le_bytes());
        d.extend(0u16.to_le_bytes());
        let mut c = vec![rec(0x0200, &d)];
        c.extend(cells.clone());
        cfb(&biff(&c), |_| {})
    };
    assert_eq!(
        read("dims.xls", &dims(10, 2), &Limits::default()).unwrap_err(),
        "Failed to parse Excel file: broken XLS workbook: a sheet's DIMENSIONS end before they start"
    );
    let e = read("dims.xls", &dims(0, u32::MAX), &Limits::default()).unwrap_err();
    assert!(e.contains("bytes of memory to load"), "{e}");
    assert_eq!(
        read("dims.xls", &dims(0, 3), &Limits::default())
            .unwrap()
            .0
            .rows,
        1
    );
}
