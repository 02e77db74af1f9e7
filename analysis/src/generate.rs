//! Realistic synthetic exposure files, one per lever, reproducible from a seed.
//!
//! [`generate_exposures`] writes a CSV with the standard column names (Exposure_ID, Asset_Class,
//! Eligible_Collateral, Current_Risk_Weight, Exposure_Amount, NIF, LEI, Legal_Name, Maturity,
//! Currency, Country, Credit_Quality_Step, plus Collateral_* for corporates and SCRA_Grade for
//! institutions) and a realistic mix: most counterparties come from the reference data, some
//! identifiers are unknown, malformed or blank, some weights are missing, and identifiers are
//! sometimes written with spaces, dots or lower case. Maturities are calendar dates measured from
//! [`GenerateOptions::reporting_date`] (default [`DEFAULT_REPORTING_DATE`]).
//!
//! The PRNG is a hand-rolled SplitMix64 ([`SplitMix64`]): tiny, fast, and stable across releases,
//! so a seed always gives the same file. Writing a million rows takes well under a second in a
//! release build.

use std::io::Write;

use chrono::{Datelike, Days, NaiveDate};

use crate::error::Result;
use crate::model::Lever;
use crate::refdata::{Lei, MdbKind, Nif, RefData};

pub use crate::rng::SplitMix64;

/// Reporting date the generated maturities are measured from, unless told otherwise.
pub const DEFAULT_REPORTING_DATE: (i32, u32, u32) = (2025, 12, 31);

/// How the header row is written (used to test classification and column mapping).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderStyle {
    /// The standard names (Exposure_ID, ...).
    Standard,
    /// Spanish names (ID_Exposicion, Importe_Exposicion, ...).
    Spanish,
    /// Standard names in lower case.
    Lowercase,
    /// Short names from a core-banking extract (ExpID, EAD, RW, ...).
    Abbreviated,
}

/// Options of [`generate_exposures_with`].
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// Maturities are dates after this date.
    pub reporting_date: NaiveDate,
    /// Header naming.
    pub headers: HeaderStyle,
    /// Write the Asset_Class column.
    pub asset_class: bool,
    /// A narrower file, as a bank's extract for one lever is: PSE and RGLA files without the
    /// LEI, Country and Credit_Quality_Step columns (those levers read the reference lists), and
    /// legal names without the synthetic marker " (SINTETICO)".
    pub lean: bool,
}

impl Default for GenerateOptions {
    fn default() -> GenerateOptions {
        let (y, m, d) = DEFAULT_REPORTING_DATE;
        GenerateOptions {
            reporting_date: NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default(),
            headers: HeaderStyle::Standard,
            asset_class: true,
            lean: false,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Col {
    Id,
    AssetClass,
    Eligible,
    CurrentRw,
    Amount,
    Nif,
    Lei,
    Name,
    Maturity,
    Currency,
    Country,
    Cqs,
    CollValue,
    CollRw,
    CollType,
    CollCcy,
    Scra,
}

fn header(c: Col, style: HeaderStyle) -> &'static str {
    use Col::*;
    use HeaderStyle::*;
    let names: [&'static str; 4] = match c {
        Id => ["Exposure_ID", "ID_Exposicion", "exposure_id", "ExpID"],
        AssetClass => ["Asset_Class", "Clase_Activo", "asset_class", "AssetCls"],
        Eligible => [
            "Eligible_Collateral",
            "Garantia_Elegible",
            "eligible_collateral",
            "EligColl",
        ],
        CurrentRw => [
            "Current_Risk_Weight",
            "Ponderacion_Riesgo",
            "current_risk_weight",
            "RW",
        ],
        Amount => [
            "Exposure_Amount",
            "Importe_Exposicion",
            "exposure_amount",
            "EAD",
        ],
        Nif => ["NIF", "NIF", "nif", "TaxID"],
        Lei => ["LEI", "Codigo_LEI", "lei", "LEI"],
        Name => ["Legal_Name", "Razon_Social", "legal_name", "CptyName"],
        Maturity => ["Maturity", "Vencimiento", "maturity", "MatDate"],
        Currency => ["Currency", "Divisa", "currency", "Ccy"],
        Country => ["Country", "Pais", "country", "Ctry"],
        Cqs => [
            "Credit_Quality_Step",
            "Nivel_Calidad_Crediticia",
            "credit_quality_step",
            "CQS",
        ],
        CollValue => [
            "Collateral_Value",
            "Valor_Garantia",
            "collateral_value",
            "CollVal",
        ],
        CollRw => [
            "Collateral_Risk_Weight",
            "Ponderacion_Garantia",
            "collateral_risk_weight",
            "CollRW",
        ],
        CollType => [
            "Collateral_Type",
            "Tipo_Garantia",
            "collateral_type",
            "CollType",
        ],
        CollCcy => [
            "Collateral_Currency",
            "Divisa_Garantia",
            "collateral_currency",
            "CollCcy",
        ],
        Scra => ["SCRA_Grade", "Grado_SCRA", "scra_grade", "SCRA"],
    };
    names[match style {
        Standard => 0,
        Spanish => 1,
        Lowercase => 2,
        Abbreviated => 3,
    }]
}

fn asset_class(lever: Lever, spanish: bool) -> &'static str {
    match (lever, spanish) {
        (Lever::Pse, false) => "Public Sector Entities",
        (Lever::Pse, true) => "Entes del sector público",
        (Lever::Rgla, false) => "Regional governments or local authorities",
        (Lever::Rgla, true) => "Administraciones regionales y autoridades locales",
        (Lever::Mdb, false) => "Multilateral development banks",
        (Lever::Mdb, true) => "Bancos multilaterales de desarrollo",
        (Lever::Institutions, false) => "Institutions",
        (Lever::Institutions, true) => "Entidades",
        (Lever::Corporates, false) => "Corporates",
        (Lever::Corporates, true) => "Empresas",
        (Lever::Sovereigns, false) => "Central governments or central banks",
        (Lever::Sovereigns, true) => "Administraciones centrales o bancos centrales",
    }
}

fn columns(lever: Lever, opts: &GenerateOptions) -> Vec<Col> {
    use Col::*;
    let mut v = vec![Id];
    if opts.asset_class {
        v.push(AssetClass);
    }
    v.extend([
        Eligible, CurrentRw, Amount, Nif, Lei, Name, Maturity, Currency, Country, Cqs,
    ]);
    if opts.lean && matches!(lever, Lever::Pse | Lever::Rgla) {
        v.retain(|c| !matches!(c, Lei | Country | Cqs));
    }
    match lever {
        Lever::Corporates => v.extend([CollValue, CollRw, CollType, CollCcy]),
        Lever::Institutions => v.push(Scra),
        _ => {}
    }
    v
}

/// One generated row, as text fields.
#[derive(Default)]
struct Row {
    asset_class: &'static str,
    eligible: &'static str,
    current_rw: String,
    amount: String,
    nif: String,
    lei: String,
    name: String,
    maturity: String,
    currency: &'static str,
    country: String,
    cqs: String,
    coll_value: String,
    coll_rw: String,
    coll_type: &'static str,
    coll_ccy: &'static str,
    scra: &'static str,
}

impl Row {
    fn clear(&mut self) {
        self.current_rw.clear();
        self.amount.clear();
        self.nif.clear();
        self.lei.clear();
        self.name.clear();
        self.maturity.clear();
        self.country.clear();
        self.cqs.clear();
        self.coll_value.clear();
        self.coll_rw.clear();
        self.asset_class = "";
        self.eligible = "No";
        self.currency = "EUR";
        self.coll_type = "";
        self.coll_ccy = "";
        self.scra = "";
    }
}

struct Gen<'r> {
    rng: SplitMix64,
    refdata: &'r RefData,
    opts: GenerateOptions,
    lever: Lever,
    spanish: bool,
    ecb_lei: Option<Lei>,
    mdb_with_lei: Vec<usize>,
}

const COMPANY_WORDS: &[&str] = &[
    "Ibérica",
    "Levante",
    "Atlántica",
    "Meseta",
    "Cantábrica",
    "Mediterránea",
    "Andaluza",
    "Galaica",
    "Norte",
    "Sur",
    "Central",
    "Global",
    "Nova",
    "Alba",
    "Delta",
    "Sierra",
    "Costa",
    "Vértice",
    "Horizonte",
    "Aurora",
];
const COMPANY_TRADES: &[&str] = &[
    "Construcciones",
    "Logística",
    "Energía",
    "Alimentación",
    "Textil",
    "Ingeniería",
    "Distribución",
    "Hoteles",
    "Transportes",
    "Tecnología",
    "Química",
    "Metalurgia",
    "Agroindustrial",
    "Inmobiliaria",
    "Servicios",
];
const COMPANY_FORMS: &[&str] = &["SA", "SL", "SLU", "S.A.", "S.L."];

const SOVEREIGN_NAMES: &[(&str, &str, &str)] = &[
    ("ES", "Kingdom of Spain", "Reino de España"),
    (
        "DE",
        "Federal Republic of Germany",
        "República Federal de Alemania",
    ),
    ("FR", "French Republic", "República Francesa"),
    ("IT", "Republic of Italy", "República Italiana"),
    ("PT", "Portuguese Republic", "República Portuguesa"),
    (
        "NL",
        "Kingdom of the Netherlands",
        "Reino de los Países Bajos",
    ),
    ("BE", "Kingdom of Belgium", "Reino de Bélgica"),
    ("AT", "Republic of Austria", "República de Austria"),
    ("IE", "Ireland", "Irlanda"),
    ("FI", "Republic of Finland", "República de Finlandia"),
    ("GR", "Hellenic Republic", "República Helénica"),
    ("PL", "Republic of Poland", "República de Polonia"),
    (
        "US",
        "United States of America (Treasury)",
        "Tesoro de los Estados Unidos",
    ),
    (
        "GB",
        "United Kingdom (HM Treasury)",
        "Reino Unido (HM Treasury)",
    ),
    (
        "JP",
        "Japan (Ministry of Finance)",
        "Japón (Ministerio de Hacienda)",
    ),
    ("MX", "United Mexican States", "Estados Unidos Mexicanos"),
    (
        "BR",
        "Federative Republic of Brazil",
        "República Federativa de Brasil",
    ),
    ("TR", "Republic of Turkey", "República de Turquía"),
];

impl<'r> Gen<'r> {
    fn amount(&mut self, row: &mut Row) -> f64 {
        // Log-uniform between 10 thousand and 50 million, rounded to cents.
        let lo = 10_000f64.ln();
        let hi = 50_000_000f64.ln();
        let v = (lo + (hi - lo) * self.rng.unit()).exp();
        let v = (v * 100.0).round() / 100.0;
        use std::fmt::Write as _;
        let _ = write!(row.amount, "{v:.2}");
        v
    }

    fn maturity(&mut self, row: &mut Row, short_share: f64) {
        let days = if self.rng.chance(short_share) {
            7 + self.rng.below(85)
        } else if self.rng.chance(0.02) {
            // A few right at the three-month edge.
            88 + self.rng.below(8)
        } else {
            120 + self.rng.below(365 * 25)
        };
        let d = self
            .opts
            .reporting_date
            .checked_add_days(Days::new(days))
            .unwrap_or(self.opts.reporting_date);
        use std::fmt::Write as _;
        let _ = write!(
            row.maturity,
            "{:04}-{:02}-{:02}",
            d.year(),
            d.month(),
            d.day()
        );
    }

    fn current_rw(&mut self, row: &mut Row, choices: &[(u32, f64)]) {
        if self.rng.chance(0.01) {
            return; // blank: the engine assumes 100
        }
        let mut x = self.rng.unit();
        let mut rw = choices.last().map(|c| c.0).unwrap_or(100);
        for &(v, p) in choices {
            if x < p {
                rw = v;
                break;
            }
            x -= p;
        }
        use std::fmt::Write as _;
        let _ = write!(row.current_rw, "{rw}");
    }

    /// Writes a NIF in one of the ways people type it.
    fn write_nif(&mut self, nif: &str, out: &mut String) {
        match self.rng.below(40) {
            0 => out.push_str(&nif.to_ascii_lowercase()),
            1 => {
                out.push_str("ES");
                out.push_str(nif);
            }
            2 => {
                let (a, b) = nif.split_at(1);
                let (b, c) = b.split_at(b.len() - 1);
                out.push_str(a);
                out.push('-');
                out.push_str(b);
                out.push('-');
                out.push_str(c);
            }
            3 => {
                out.push(' ');
                out.push_str(nif);
                out.push(' ');
            }
            _ => out.push_str(nif),
        }
    }

    /// A valid NIF that is in neither public list.
    fn unknown_nif(&mut self, key: u8) -> String {
        for _ in 0..64 {
            let digits = 1_000_000 + self.rng.below(8_800_000) as u32;
            if let Some(n) = Nif::from_parts(key, digits)
                && self.refdata.pse().get(&n).is_none()
                && self.refdata.rgla().get(&n).is_none()
            {
                return n.to_string();
            }
        }
        String::new()
    }

    /// A NIF with a wrong check character.
    fn bad_nif(&mut self, key: u8) -> String {
        let digits = 9_900_000 + self.rng.below(100_000) as u32;
        match Nif::from_parts(key, digits) {
            Some(n) => {
                let s = n.to_string();
                let last = s.as_bytes()[8];
                let wrong = if last.is_ascii_digit() {
                    (b'0' + (last - b'0' + 1) % 10) as char
                } else {
                    (b'A' + (last - b'A' + 1) % 10) as char
                };
                format!("{}{}", &s[..8], wrong)
            }
            None => String::new(),
        }
    }

    fn synthetic_lei(&mut self) -> String {
        const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let mut base = String::from("5493");
        for _ in 0..14 {
            base.push(ALNUM[self.rng.below(36) as usize] as char);
        }
        Lei::with_check_digits(&base)
            .map(|l| l.to_string())
            .unwrap_or_default()
    }

    fn company_name(&mut self, out: &mut String) {
        let w = *self.rng.pick(COMPANY_WORDS);
        let t = *self.rng.pick(COMPANY_TRADES);
        let f = *self.rng.pick(COMPANY_FORMS);
        out.push_str(t);
        out.push(' ');
        out.push_str(w);
        out.push(' ');
        out.push_str(f);
    }

    fn public_row(&mut self, row: &mut Row) {
        let rgla = self.lever == Lever::Rgla;
        let list = if rgla {
            self.refdata.rgla()
        } else {
            self.refdata.pse()
        };
        row.country.push_str("ES");
        row.currency = if self.rng.chance(0.95) {
            "EUR"
        } else {
            *self.rng.pick(&["USD", "GBP", "CHF"])
        };
        self.amount(row);
        self.maturity(row, if rgla { 0.08 } else { 0.15 });
        self.current_rw(row, &[(100, 0.5), (50, 0.2), (20, 0.25), (0, 0.05)]);
        let x = self.rng.unit();
        if x < 0.88 && !list.is_empty() {
            let e = &list.entities()[self.rng.below(list.len() as u64) as usize];
            let nif = e.nif.to_string();
            self.write_nif(&nif, &mut row.nif);
            row.name.push_str(&e.legal_name);
        } else if x < 0.93 {
            let key = if rgla {
                if self.rng.chance(0.9) { b'P' } else { b'S' }
            } else {
                b'Q'
            };
            row.nif = self.unknown_nif(key);
            row.name.push_str(if rgla {
                "Ayuntamiento no identificado"
            } else {
                "Organismo no identificado"
            });
        } else if x < 0.95 {
            let key = if rgla { b'P' } else { b'Q' };
            row.nif = self.bad_nif(key);
            row.name.push_str(if rgla {
                "Entidad local"
            } else {
                "Ente público"
            });
        } else {
            // blank NIF
            row.name.push_str(if rgla {
                "Entidad local sin NIF"
            } else {
                "Ente público sin NIF"
            });
        }
    }

    fn mdb_row(&mut self, row: &mut Row) {
        row.currency = *self.rng.pick(&["EUR", "EUR", "USD", "USD", "GBP"]);
        self.amount(row);
        self.maturity(row, 0.1);
        self.current_rw(row, &[(20, 0.45), (50, 0.25), (100, 0.25), (0, 0.05)]);
        let mdb = self.refdata.mdb();
        let x = self.rng.unit();
        if x < 0.92 && !mdb.is_empty() {
            let by_lei = !self.mdb_with_lei.is_empty() && self.rng.chance(0.6);
            let idx = if by_lei {
                self.mdb_with_lei[self.rng.below(self.mdb_with_lei.len() as u64) as usize]
            } else {
                self.rng.below(mdb.len() as u64) as usize
            };
            let e = &mdb.entities()[idx];
            if by_lei {
                if let Some(l) = e.lei {
                    row.lei.push_str(l.as_str());
                }
                row.name.push_str(&e.legal_name);
            } else {
                // Name only: full name, acronym or an alias, as banks write them.
                let acr = e.label().to_string();
                match self.rng.below(3) {
                    0 => row.name.push_str(&e.legal_name),
                    1 if !acr.is_empty() => row.name.push_str(&acr),
                    _ => match e.aliases.first() {
                        Some(a) => row.name.push_str(a),
                        None => row.name.push_str(&e.legal_name),
                    },
                }
            }
            if e.kind == MdbKind::Other117_1 && self.rng.chance(0.5) {
                row.cqs
                    .push_str(["1", "2", "3"][self.rng.below(3) as usize]);
            }
        } else if x < 0.96 {
            row.lei = self.synthetic_lei();
            row.name.push_str("Development Fund (unlisted)");
        } else if x < 0.98 {
            let mut l = self.synthetic_lei();
            if !l.is_empty() {
                l.replace_range(19..20, if l.ends_with('0') { "1" } else { "0" });
            }
            row.lei = l;
        }
        // else: both blank
    }

    fn institution_row(&mut self, row: &mut Row) {
        self.amount(row);
        self.maturity(row, 0.3);
        self.current_rw(row, &[(100, 0.35), (50, 0.35), (20, 0.2), (150, 0.1)]);
        let list = self.refdata.institutions();
        let x = self.rng.unit();
        let mut cqs = None;
        let mut country = "ES";
        if x < 0.85 && !list.is_empty() {
            let e = &list.entities()[self.rng.below(list.len() as u64) as usize];
            if let Some(l) = e.lei {
                row.lei.push_str(l.as_str());
            }
            row.name.push_str(&e.legal_name);
            cqs = e.entity_cqs;
            if let Some(c) = e.country {
                country = match c.as_str() {
                    "ES" => "ES",
                    "DE" => "DE",
                    "FR" => "FR",
                    "IT" => "IT",
                    "PT" => "PT",
                    "NL" => "NL",
                    "BE" => "BE",
                    "AT" => "AT",
                    "IE" => "IE",
                    "FI" => "FI",
                    "PL" => "PL",
                    "GB" => "GB",
                    "US" => "US",
                    "CH" => "CH",
                    _ => "ES",
                };
            }
        } else if x < 0.97 {
            row.lei = self.synthetic_lei();
            row.name.push_str("Banco Cooperativo Regional");
            if self.rng.chance(0.5) {
                cqs = Some(1 + self.rng.below(4) as u8);
            }
        }
        row.country.push_str(country);
        row.currency = if self.rng.chance(0.8) {
            match country {
                "GB" => "GBP",
                "US" => "USD",
                "CH" => "CHF",
                "PL" => "PLN",
                _ => "EUR",
            }
        } else {
            *self.rng.pick(&["USD", "EUR", "GBP"])
        };
        match cqs {
            Some(c) => {
                use std::fmt::Write as _;
                let _ = write!(row.cqs, "{c}");
            }
            None => row.scra = *self.rng.pick(&["A", "A", "A+", "B", "B", "C"]),
        }
    }

    fn corporate_row(&mut self, row: &mut Row) {
        let amount = self.amount(row);
        self.maturity(row, 0.1);
        self.current_rw(row, &[(100, 0.8), (150, 0.1), (75, 0.05), (50, 0.05)]);
        self.company_name(&mut row.name);
        let key = *self.rng.pick(b"AB");
        let digits = 1_000_000 + self.rng.below(8_999_999) as u32;
        if let Some(n) = Nif::from_parts(key, digits)
            && self.rng.chance(0.95)
        {
            let s = n.to_string();
            self.write_nif(&s, &mut row.nif);
        }
        if self.rng.chance(0.2) {
            row.lei = self.synthetic_lei();
        }
        row.country.push_str(if self.rng.chance(0.9) {
            "ES"
        } else {
            self.rng.pick::<&str>(&["PT", "FR", "TR", "AR"])
        });
        row.currency = if self.rng.chance(0.92) { "EUR" } else { "USD" };
        if self.rng.chance(0.3) {
            use std::fmt::Write as _;
            let _ = write!(row.cqs, "{}", 1 + self.rng.below(6));
        }
        if self.rng.chance(0.4) {
            row.eligible = "Yes";
            if self.rng.chance(0.85) {
                let share = 0.2 + 0.9 * self.rng.unit();
                use std::fmt::Write as _;
                let _ = write!(row.coll_value, "{:.2}", amount * share);
                let (t, rw) = *self.rng.pick(&[
                    ("cash", "0"),
                    ("cash", "0"),
                    ("sovereign_bond", "0"),
                    ("sovereign_bond", "20"),
                    ("corporate_bond", "50"),
                    ("equity", "100"),
                ]);
                row.coll_type = t;
                row.coll_rw.push_str(rw);
                row.coll_ccy = if self.rng.chance(0.9) {
                    row.currency
                } else {
                    "USD"
                };
            }
        }
    }

    fn sovereign_row(&mut self, row: &mut Row) {
        self.amount(row);
        self.maturity(row, 0.1);
        self.current_rw(row, &[(20, 0.35), (50, 0.25), (100, 0.3), (0, 0.1)]);
        if self.rng.chance(0.04) {
            if let Some(l) = self.ecb_lei {
                row.lei.push_str(l.as_str());
            }
            row.name.push_str(if self.spanish {
                "Banco Central Europeo"
            } else {
                "European Central Bank"
            });
            row.country.push_str("DE");
            row.currency = "EUR";
            return;
        }
        let (c, en, es) = *self.rng.pick(SOVEREIGN_NAMES);
        row.name.push_str(if self.spanish { es } else { en });
        if self.rng.chance(0.97) {
            row.country.push_str(c);
        }
        let domestic = match c {
            "US" => "USD",
            "GB" => "GBP",
            "JP" => "JPY",
            "MX" => "MXN",
            "BR" => "BRL",
            "TR" => "TRY",
            "PL" => "PLN",
            _ => "EUR",
        };
        row.currency = if self.rng.chance(0.75) {
            domestic
        } else {
            *self.rng.pick(&["USD", "EUR"])
        };
        if let Some(country) = crate::refdata::Country::parse(c)
            && let Some(s) = self.refdata.sovereigns().get(country).and_then(|s| s.cqs)
        {
            use std::fmt::Write as _;
            let _ = write!(row.cqs, "{s}");
        }
    }
}

/// Writes `rows` exposures for `lever` as CSV, reproducibly from `seed`, with the default options.
pub fn generate_exposures(
    lever: Lever,
    rows: usize,
    seed: u64,
    refdata: &RefData,
    w: impl Write,
) -> Result<()> {
    generate_exposures_with(lever, rows, seed, refdata, &GenerateOptions::default(), w)
}

/// As [`generate_exposures`], with options (reporting date, header style, Asset_Class column).
pub fn generate_exposures_with(
    lever: Lever,
    rows: usize,
    seed: u64,
    refdata: &RefData,
    opts: &GenerateOptions,
    w: impl Write,
) -> Result<()> {
    let cols = columns(lever, opts);
    let mut wr = csv::WriterBuilder::new()
        .buffer_capacity(1 << 16)
        .from_writer(w);
    wr.write_record(cols.iter().map(|c| header(*c, opts.headers)))?;
    let mdb_with_lei = refdata
        .mdb()
        .entities()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.lei.is_some() && e.kind != MdbKind::Ecb114_3)
        .map(|(i, _)| i)
        .collect();
    let ecb_lei = refdata
        .mdb()
        .entities()
        .iter()
        .find(|e| e.kind == MdbKind::Ecb114_3)
        .and_then(|e| e.lei);
    let mut g = Gen {
        rng: SplitMix64::new(seed ^ (lever as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        refdata,
        opts: opts.clone(),
        lever,
        spanish: opts.headers == HeaderStyle::Spanish,
        ecb_lei,
        mdb_with_lei,
    };
    let mut row = Row::default();
    let mut id = String::with_capacity(16);
    for i in 0..rows {
        row.clear();
        match lever {
            Lever::Pse | Lever::Rgla => g.public_row(&mut row),
            Lever::Mdb => g.mdb_row(&mut row),
            Lever::Institutions => g.institution_row(&mut row),
            Lever::Corporates => g.corporate_row(&mut row),
            Lever::Sovereigns => g.sovereign_row(&mut row),
        }
        row.asset_class = asset_class(lever, g.spanish);
        if g.opts.lean
            && let Some(n) = row.name.strip_suffix(" (SINTETICO)").map(str::len)
        {
            row.name.truncate(n);
        }
        id.clear();
        {
            use std::fmt::Write as _;
            let _ = write!(id, "EXP-{:07}", i + 1);
        }
        let r = &row;
        let id_ref = id.as_str();
        wr.write_record(cols.iter().map(|c| -> &str {
            match c {
                Col::Id => id_ref,
                Col::AssetClass => r.asset_class,
                Col::Eligible => r.eligible,
                Col::CurrentRw => &r.current_rw,
                Col::Amount => &r.amount,
                Col::Nif => &r.nif,
                Col::Lei => &r.lei,
                Col::Name => &r.name,
                Col::Maturity => &r.maturity,
                Col::Currency => r.currency,
                Col::Country => &r.country,
                Col::Cqs => &r.cqs,
                Col::CollValue => &r.coll_value,
                Col::CollRw => &r.coll_rw,
                Col::CollType => r.coll_type,
                Col::CollCcy => r.coll_ccy,
                Col::Scra => r.scra,
            }
        }))?;
    }
    wr.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_is_stable() {
        let mut r = SplitMix64::new(1234567);
        // Reference values of SplitMix64 for seed 1234567.
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
        let mut r = SplitMix64::new(7);
        for _ in 0..1000 {
            assert!(r.below(10) < 10);
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn files_are_reproducible_and_parse() {
        let refdata = RefData::builtin_shared();
        for lever in Lever::ALL {
            let mut a = Vec::new();
            let mut b = Vec::new();
            generate_exposures(lever, 300, 42, &refdata, &mut a).unwrap();
            generate_exposures(lever, 300, 42, &refdata, &mut b).unwrap();
            assert_eq!(a, b, "{lever:?} not reproducible");
            let mut rdr = csv::Reader::from_reader(a.as_slice());
            let h = rdr.headers().unwrap().clone();
            assert_eq!(&h[0], "Exposure_ID");
            assert!(h.iter().any(|x| x == "Current_Risk_Weight"));
            assert_eq!(rdr.records().count(), 300);
        }
    }
}
