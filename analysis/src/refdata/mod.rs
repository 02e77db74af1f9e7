//! Reference data: the entity lists the engine matches exposures against.
//!
//! [`RefData`] is immutable once built and indexed for per-row lookups: NIFs and LEIs are
//! normalised and validated at load, packed into integer keys and kept in `FxHashMap`s; names are
//! folded (case, accents, punctuation) and indexed together with acronyms and aliases; sovereigns
//! sit in a 26 x 26 array keyed by the ISO alpha-2 code. No lookup scans a list.
//!
//! Sources:
//! - [`RefData::builtin`]: the defaults shipped with the crate: the MDB / international
//!   organisation list (`data/refdata/mdb_io_list.csv`), sovereigns with their domestic currency
//!   and CQS (`data/refdata/sovereigns.csv`), and synthetic Spanish PSE, RGLA and institution sets
//!   generated from a fixed seed ([`synthetic`]) that also hold the real public bodies of
//!   `data/refdata/public_entities_es_sample.csv`.
//! - [`RefData::load_dir`]: a directory with `pse.csv`, `rgla.csv`, `mdb.csv`, `institutions.csv`
//!   and `sovereigns.csv`. **A missing file falls back to the built-in list of that kind**, so a
//!   directory holding only `pse.csv` still has sovereigns and MDBs; a file that is present but
//!   has no rows gives an empty list (and the engine then reports, for example, "PSE reference
//!   data is empty"). [`RefData::sources`] tells which list came from where.
//!
//! File formats (headers are matched case-insensitively, extra columns are ignored, files may be
//! UTF-8 or Windows-1252):
//! - `pse.csv`: nif, legal_name, country, entity_cqs, own_gov_cqs, treated_as_central_government,
//!   source, as_of
//! - `rgla.csv`: nif, legal_name, rgla_type, country, entity_cqs, treated_as_central_government,
//!   source, as_of (own_gov_cqs is accepted too)
//! - `mdb.csv`: lei, legal_name, acronym, aliases, art_117_2_listed, entity_cqs; an optional
//!   `crr_article` column (`117(2)`, `117(1)`, `118`, `114(3)`) marks international organisations
//!   and the ECB. The shipped `mdb_io_list.csv` layout (full_name, spanish_name, ...) is accepted.
//! - `institutions.csv`: lei, legal_name, country, entity_cqs
//! - `sovereigns.csv`: country, domestic_currency, cqs, eu_member
//!
//! Flags are `Y` or `N` (yes/no/true/false/1/0 and blank = N are accepted); an empty CQS means
//! unrated; aliases are separated by `;`; a blank country in the Spanish PSE and RGLA lists means
//! `ES`. Invalid NIFs or LEIs (bad check characters), unknown flag values, CQS outside 1..6 and
//! duplicate keys are load errors naming the file and line: bad reference data is never half
//! loaded.

pub mod ids;
mod load;
pub mod synthetic;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use crate::error::Result;
pub use ids::{Lei, LeiError, Nif, NifError, fold_name};

/// Every two-letter code from `AA` to `ZZ`, in order.
const COUNTRY_CODES: &str = {
    const BYTES: [u8; 2 * 26 * 26] = {
        let mut a = [0u8; 2 * 26 * 26];
        let mut i = 0;
        while i < 26 * 26 {
            a[2 * i] = b'A' + (i / 26) as u8;
            a[2 * i + 1] = b'A' + (i % 26) as u8;
            i += 1;
        }
        a
    };
    match std::str::from_utf8(&BYTES) {
        Ok(s) => s,
        Err(_) => "",
    }
};

/// An ISO 3166 alpha-2 country code (upper case).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Country([u8; 2]);

impl Country {
    /// Spain, the default client country.
    pub const ES: Country = Country(*b"ES");

    /// Parses a two-letter code, trimming spaces and upper-casing.
    pub fn parse(s: &str) -> Option<Country> {
        let b = s.trim().as_bytes();
        if b.len() == 2 && b[0].is_ascii_alphabetic() && b[1].is_ascii_alphabetic() {
            Some(Country([
                b[0].to_ascii_uppercase(),
                b[1].to_ascii_uppercase(),
            ]))
        } else {
            None
        }
    }

    /// Parses a two-letter code, or a country name in English or Spanish (case and accents
    /// ignored) for the EU Member States and the main other markets, or an ISO alpha-3 code of
    /// those: "Spain", "España", "ESP" and "es" all give ES. The specification stores the client's
    /// home country as a name ("Spain").
    pub fn parse_loose(s: &str) -> Option<Country> {
        if let Some(c) = Country::parse(s) {
            return Some(c);
        }
        let mut buf = [0u8; ids::NAME_BUF];
        let key = ids::fold_name_into(s, &mut buf)?;
        COUNTRY_NAMES
            .iter()
            .find(|(_, names)| names.contains(&key))
            .and_then(|(code, _)| Country::parse(code))
    }

    /// The code as text.
    pub fn as_str(&self) -> &str {
        let [a, b] = self.0;
        if a.is_ascii_uppercase() && b.is_ascii_uppercase() {
            // From the table of all codes: no UTF-8 check per call.
            let i = 2 * self.slot();
            return COUNTRY_CODES.get(i..i + 2).unwrap_or("");
        }
        std::str::from_utf8(&self.0).unwrap_or("")
    }

    fn slot(&self) -> usize {
        (self.0[0] - b'A') as usize * 26 + (self.0[1] - b'A') as usize
    }
}

impl fmt::Debug for Country {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Country {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Folded names (see [`ids::fold_name`]) and alpha-3 codes accepted by [`Country::parse_loose`].
const COUNTRY_NAMES: &[(&str, &[&str])] = &[
    ("AT", &["austria", "aut"]),
    ("BE", &["belgium", "belgica", "bel"]),
    ("BG", &["bulgaria", "bgr"]),
    ("HR", &["croatia", "croacia", "hrv"]),
    ("CY", &["cyprus", "chipre", "cyp"]),
    (
        "CZ",
        &[
            "czechia",
            "czech republic",
            "republica checa",
            "chequia",
            "cze",
        ],
    ),
    ("DK", &["denmark", "dinamarca", "dnk"]),
    ("EE", &["estonia", "est"]),
    ("FI", &["finland", "finlandia", "fin"]),
    ("FR", &["france", "francia", "fra"]),
    ("DE", &["germany", "alemania", "deu"]),
    ("GR", &["greece", "grecia", "grc"]),
    ("HU", &["hungary", "hungria", "hun"]),
    ("IE", &["ireland", "irlanda", "irl"]),
    ("IT", &["italy", "italia", "ita"]),
    ("LV", &["latvia", "letonia", "lva"]),
    ("LT", &["lithuania", "lituania", "ltu"]),
    ("LU", &["luxembourg", "luxemburgo", "lux"]),
    ("MT", &["malta", "mlt"]),
    (
        "NL",
        &[
            "netherlands",
            "the netherlands",
            "paises bajos",
            "holanda",
            "nld",
        ],
    ),
    ("PL", &["poland", "polonia", "pol"]),
    ("PT", &["portugal", "prt"]),
    ("RO", &["romania", "rumania", "rou"]),
    ("SK", &["slovakia", "eslovaquia", "svk"]),
    ("SI", &["slovenia", "eslovenia", "svn"]),
    (
        "ES",
        &[
            "spain",
            "espana",
            "esp",
            "kingdom of spain",
            "reino de espana",
        ],
    ),
    ("SE", &["sweden", "suecia", "swe"]),
    (
        "GB",
        &[
            "united kingdom",
            "reino unido",
            "great britain",
            "uk",
            "gbr",
        ],
    ),
    (
        "US",
        &[
            "united states",
            "united states of america",
            "estados unidos",
            "usa",
        ],
    ),
    ("CH", &["switzerland", "suiza", "che"]),
    ("NO", &["norway", "noruega", "nor"]),
    ("CA", &["canada", "can"]),
    ("AU", &["australia", "aus"]),
    ("JP", &["japan", "japon", "jpn"]),
    ("CN", &["china", "chn"]),
    ("MX", &["mexico", "mex"]),
    ("IN", &["india", "ind"]),
    ("BR", &["brazil", "brasil", "bra"]),
    ("TR", &["turkey", "turquia", "turkiye", "tur"]),
    ("AR", &["argentina", "arg"]),
];

/// An ISO 4217 currency code (upper case).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Currency([u8; 3]);

impl Currency {
    /// Parses a three-letter code, trimming spaces and upper-casing.
    pub fn parse(s: &str) -> Option<Currency> {
        let b = s.trim().as_bytes();
        if b.len() == 3 && b.iter().all(u8::is_ascii_alphabetic) {
            Some(Currency([
                b[0].to_ascii_uppercase(),
                b[1].to_ascii_uppercase(),
                b[2].to_ascii_uppercase(),
            ]))
        } else {
            None
        }
    }

    /// The code as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl fmt::Debug for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A Spanish public sector entity (PSE list) or regional government / local authority (RGLA list).
#[derive(Debug, Clone)]
pub struct PublicEntity {
    /// Normalised NIF.
    pub nif: Nif,
    /// Legal name.
    pub legal_name: String,
    /// RGLA type (CCAA, diputación, municipio, ...); empty in the PSE list.
    pub rgla_type: String,
    /// Jurisdiction (its central government is the "own government").
    pub country: Country,
    /// The entity's own ECAI credit quality step; `None` when unrated.
    pub entity_cqs: Option<u8>,
    /// CQS of the own central government when the list states it; otherwise the sovereign list
    /// is used.
    pub own_gov_cqs: Option<u8>,
    /// On the EBA list of entities treated as the central government (Art. 115(2)/(4), 116(4)).
    pub treated_as_central_government: bool,
    /// Where the entry comes from.
    pub source: String,
    /// Date of the source.
    pub as_of: String,
}

impl PublicEntity {
    /// The normalised NIF as text.
    pub fn nif_str(&self) -> &str {
        self.nif.as_str()
    }
}

/// How the CRR treats an entry of the MDB / international organisation list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MdbKind {
    /// One of the multilateral development banks listed in Art. 117(2): 0 %.
    Listed117_2,
    /// Another MDB (Art. 117(1)): rating-based table.
    Other117_1,
    /// An international organisation of Art. 118: 0 %.
    InternationalOrg118,
    /// The European Central Bank (Art. 114(3)): 0 %.
    Ecb114_3,
}

/// An entry of the MDB / international organisation list.
#[derive(Debug, Clone)]
pub struct MdbEntity {
    /// LEI, when known.
    pub lei: Option<Lei>,
    /// Full legal name.
    pub legal_name: String,
    /// Acronym(s), `;`-separated as in the source.
    pub acronym: String,
    /// Aliases (English/Spanish names, other acronyms).
    pub aliases: Vec<String>,
    /// CRR treatment.
    pub kind: MdbKind,
    /// ECAI credit quality step; `None` when unrated.
    pub entity_cqs: Option<u8>,
}

impl MdbEntity {
    /// A short label: the first acronym, or the legal name.
    pub fn label(&self) -> &str {
        let a = self.acronym.split(';').next().unwrap_or("").trim();
        if a.is_empty() || a == "-" {
            &self.legal_name
        } else {
            a
        }
    }
}

/// A credit institution from `institutions.csv`.
#[derive(Debug, Clone)]
pub struct Institution {
    /// LEI, when given.
    pub lei: Option<Lei>,
    /// Legal name.
    pub legal_name: String,
    /// Country of incorporation.
    pub country: Option<Country>,
    /// ECAI credit quality step; `None` when unrated.
    pub entity_cqs: Option<u8>,
}

/// A central government.
#[derive(Debug, Clone)]
pub struct Sovereign {
    /// ISO alpha-2 country.
    pub country: Country,
    /// Domestic currency (Art. 114(4)).
    pub domestic_currency: Option<Currency>,
    /// Credit quality step; `None` when unrated.
    pub cqs: Option<u8>,
    /// EU Member State.
    pub eu_member: bool,
}

/// Where a list came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Shipped with the crate.
    Builtin,
    /// Loaded from this file.
    File(PathBuf),
    /// Not given: the directory had no file for this list, so the list is empty.
    Missing(PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Builtin => f.write_str("built-in"),
            Source::File(p) => write!(f, "{}", p.display()),
            Source::Missing(p) => write!(f, "none ({} not found)", p.display()),
        }
    }
}

/// Result of a name lookup.
#[derive(Debug, Clone, Copy)]
pub enum NameMatch<'a, T> {
    /// Exactly one entity carries this name, acronym or alias.
    Found(&'a T),
    /// Two or more entities share it (for example "IDB": IADB and IsDB).
    Ambiguous(&'a T, &'a T),
    /// Nobody carries it.
    NotFound,
}

#[derive(Debug, Clone, Copy)]
enum NameHit {
    One(u32),
    Ambiguous(u32, u32),
}

#[derive(Debug, Default, Clone)]
struct NameIndex(FxHashMap<Box<str>, NameHit>);

impl NameIndex {
    fn insert(&mut self, raw: &str, idx: u32) {
        let key = fold_name(raw);
        if key.is_empty() {
            return;
        }
        match self.0.get_mut(key.as_str()) {
            None => {
                self.0.insert(key.into_boxed_str(), NameHit::One(idx));
            }
            Some(NameHit::One(i)) if *i == idx => {}
            Some(hit) => {
                if let NameHit::One(i) = *hit {
                    *hit = NameHit::Ambiguous(i, idx);
                }
            }
        }
    }

    fn get(&self, raw: &str) -> Option<NameHit> {
        let mut buf = [0u8; ids::NAME_BUF];
        match ids::fold_name_into(raw, &mut buf) {
            Some(k) => self.0.get(k).copied(),
            None => self.0.get(fold_name(raw).as_str()).copied(),
        }
    }
}

/// An indexed list of PSEs or RGLAs, keyed by NIF.
#[derive(Debug, Clone)]
pub struct EntityList {
    items: Vec<PublicEntity>,
    by_nif: FxHashMap<u64, u32>,
    source: Source,
}

impl EntityList {
    fn new(items: Vec<PublicEntity>, source: Source, kind: &'static str) -> Result<EntityList> {
        let mut by_nif = FxHashMap::default();
        by_nif.reserve(items.len());
        for (i, e) in items.iter().enumerate() {
            if by_nif.insert(e.nif.key(), i as u32).is_some() {
                return Err(crate::error::Error::RefData {
                    kind,
                    message: format!("{source}: duplicate NIF {}", e.nif),
                });
            }
        }
        Ok(EntityList {
            items,
            by_nif,
            source,
        })
    }

    /// The entity with this NIF.
    #[inline]
    pub fn get(&self, nif: &Nif) -> Option<&PublicEntity> {
        self.by_nif
            .get(&nif.key())
            .map(|&i| &self.items[i as usize])
    }

    /// Number of entities.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the list has no entity.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// All entities, in file order.
    pub fn entities(&self) -> &[PublicEntity] {
        &self.items
    }

    /// Where the list came from.
    pub fn source(&self) -> &Source {
        &self.source
    }
}

/// The indexed MDB / international organisation list.
#[derive(Debug, Clone)]
pub struct MdbList {
    items: Vec<MdbEntity>,
    by_lei: FxHashMap<u128, u32>,
    by_name: NameIndex,
    source: Source,
}

impl MdbList {
    fn new(items: Vec<MdbEntity>, source: Source) -> Result<MdbList> {
        let mut by_lei = FxHashMap::default();
        let mut by_name = NameIndex::default();
        for (i, e) in items.iter().enumerate() {
            let idx = i as u32;
            if let Some(lei) = e.lei
                && by_lei.insert(lei.key(), idx).is_some()
            {
                return Err(crate::error::Error::RefData {
                    kind: "MDB",
                    message: format!("{source}: duplicate LEI {lei}"),
                });
            }
            by_name.insert(&e.legal_name, idx);
            for a in e.acronym.split(';') {
                if a.trim() != "-" {
                    by_name.insert(a, idx);
                }
            }
            for a in &e.aliases {
                by_name.insert(a, idx);
            }
        }
        Ok(MdbList {
            items,
            by_lei,
            by_name,
            source,
        })
    }

    /// The entry with this LEI.
    #[inline]
    pub fn by_lei(&self, lei: &Lei) -> Option<&MdbEntity> {
        self.by_lei
            .get(&lei.key())
            .map(|&i| &self.items[i as usize])
    }

    /// The entry with this legal name, acronym or alias (folded: case, accents, punctuation).
    pub fn by_name(&self, name: &str) -> NameMatch<'_, MdbEntity> {
        match self.by_name.get(name) {
            Some(NameHit::One(i)) => NameMatch::Found(&self.items[i as usize]),
            Some(NameHit::Ambiguous(a, b)) => {
                NameMatch::Ambiguous(&self.items[a as usize], &self.items[b as usize])
            }
            None => NameMatch::NotFound,
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the list has no entry.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// All entries.
    pub fn entities(&self) -> &[MdbEntity] {
        &self.items
    }

    /// Where the list came from.
    pub fn source(&self) -> &Source {
        &self.source
    }
}

/// The indexed institution list.
#[derive(Debug, Clone)]
pub struct InstitutionList {
    items: Vec<Institution>,
    by_lei: FxHashMap<u128, u32>,
    by_name: NameIndex,
    source: Source,
}

impl InstitutionList {
    fn new(items: Vec<Institution>, source: Source) -> Result<InstitutionList> {
        let mut by_lei = FxHashMap::default();
        let mut by_name = NameIndex::default();
        for (i, e) in items.iter().enumerate() {
            if let Some(lei) = e.lei
                && by_lei.insert(lei.key(), i as u32).is_some()
            {
                return Err(crate::error::Error::RefData {
                    kind: "institution",
                    message: format!("{source}: duplicate LEI {lei}"),
                });
            }
            by_name.insert(&e.legal_name, i as u32);
        }
        Ok(InstitutionList {
            items,
            by_lei,
            by_name,
            source,
        })
    }

    /// The institution with this LEI.
    #[inline]
    pub fn by_lei(&self, lei: &Lei) -> Option<&Institution> {
        self.by_lei
            .get(&lei.key())
            .map(|&i| &self.items[i as usize])
    }

    /// The institution with this (folded) legal name.
    pub fn by_name(&self, name: &str) -> NameMatch<'_, Institution> {
        match self.by_name.get(name) {
            Some(NameHit::One(i)) => NameMatch::Found(&self.items[i as usize]),
            Some(NameHit::Ambiguous(a, b)) => {
                NameMatch::Ambiguous(&self.items[a as usize], &self.items[b as usize])
            }
            None => NameMatch::NotFound,
        }
    }

    /// Number of institutions.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the list is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// All institutions.
    pub fn entities(&self) -> &[Institution] {
        &self.items
    }

    /// Where the list came from.
    pub fn source(&self) -> &Source {
        &self.source
    }
}

/// The sovereign list, indexed by country.
#[derive(Debug, Clone)]
pub struct SovereignList {
    items: Vec<Sovereign>,
    slots: Box<[u16; 676]>,
    source: Source,
}

impl SovereignList {
    fn new(items: Vec<Sovereign>, source: Source) -> Result<SovereignList> {
        let mut slots = Box::new([u16::MAX; 676]);
        if items.len() >= u16::MAX as usize {
            return Err(crate::error::Error::RefData {
                kind: "sovereign",
                message: format!("{source}: too many rows"),
            });
        }
        for (i, s) in items.iter().enumerate() {
            let slot = &mut slots[s.country.slot()];
            if *slot != u16::MAX {
                return Err(crate::error::Error::RefData {
                    kind: "sovereign",
                    message: format!("{source}: duplicate country {}", s.country),
                });
            }
            *slot = i as u16;
        }
        Ok(SovereignList {
            items,
            slots,
            source,
        })
    }

    /// The sovereign of this country.
    #[inline]
    pub fn get(&self, country: Country) -> Option<&Sovereign> {
        match self.slots[country.slot()] {
            u16::MAX => None,
            i => self.items.get(i as usize),
        }
    }

    /// Number of sovereigns.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the list is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// All sovereigns.
    pub fn entities(&self) -> &[Sovereign] {
        &self.items
    }

    /// Where the list came from.
    pub fn source(&self) -> &Source {
        &self.source
    }
}

/// What [`RefData::identify`] found for an identifier.
#[derive(Debug, Clone, Copy)]
pub struct Identified<'a> {
    /// The lever the entity belongs to.
    pub lever: crate::model::Lever,
    /// The list it was found in: `pse`, `rgla`, `mdb` or `institution`.
    pub entity_type: &'static str,
    /// Its legal name.
    pub name: &'a str,
    /// The article that governs it.
    pub regulatory_reference: &'static str,
    /// The normalised identifier.
    pub id: &'a str,
}

/// All reference lists, immutable and indexed. `Send + Sync`; share it behind an `Arc`.
#[derive(Debug, Clone)]
pub struct RefData {
    pse: EntityList,
    rgla: EntityList,
    mdb: MdbList,
    institutions: InstitutionList,
    sovereigns: SovereignList,
}

/// Where each list of a [`RefData`] came from, with its size.
#[derive(Debug, Clone)]
pub struct Sources {
    /// `(list name, source, rows)` for pse, rgla, mdb, institutions, sovereigns.
    pub lists: Vec<(&'static str, Source, usize)>,
}

impl fmt::Display for Sources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, src, n)) in self.lists.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{name}: {n} rows ({src})")?;
        }
        Ok(())
    }
}

/// A file in the short `mdb.csv` layout (only the Art. 117(2) flag, no `crr_article`) cannot
/// say that an entry is the ECB (Art. 114(3)) or an Art. 118 international organisation; read
/// as "not listed" they would fall to the Art. 117(1) tables. Such entries are recognised in
/// the built-in list, by LEI, then by legal name or acronym, and take its article. An article
/// stated in the file is always kept.
fn adopt_builtin_articles(entities: &mut [MdbEntity], stated: &[bool], builtin: &MdbList) {
    for (e, stated) in entities.iter_mut().zip(stated) {
        if *stated {
            continue;
        }
        let found = e.lei.as_ref().and_then(|l| builtin.by_lei(l)).or_else(|| {
            std::iter::once(e.legal_name.as_str())
                .chain(e.acronym.split(';'))
                .map(str::trim)
                .filter(|n| !n.is_empty() && *n != "-")
                .find_map(|n| match builtin.by_name(n) {
                    NameMatch::Found(b) => Some(b),
                    _ => None,
                })
        });
        if let Some(b) = found
            && matches!(b.kind, MdbKind::Ecb114_3 | MdbKind::InternationalOrg118)
        {
            e.kind = b.kind;
        }
    }
}

const MDB_IO_CSV: &str = include_str!("../../data/refdata/mdb_io_list.csv");
const SOVEREIGNS_CSV: &str = include_str!("../../data/refdata/sovereigns.csv");

impl RefData {
    /// The defaults shipped with the crate (see the module documentation). Builds fresh indexes
    /// each call (a few milliseconds); use [`RefData::builtin_shared`] to share one copy.
    pub fn builtin() -> RefData {
        // The shipped data is validated by the crate's tests; a failure here is a build defect.
        match Self::try_builtin() {
            Ok(r) => r,
            Err(e) => panic!("shipped reference data is invalid: {e}"),
        }
    }

    /// The built-in MDB and international-organisation list (of [`RefData::builtin_shared`]).
    pub fn builtin_mdb() -> &'static MdbList {
        static SHARED: OnceLock<Arc<RefData>> = OnceLock::new();
        &SHARED.get_or_init(RefData::builtin_shared).mdb
    }

    /// One process-wide copy of [`RefData::builtin`].
    pub fn builtin_shared() -> Arc<RefData> {
        static SHARED: OnceLock<Arc<RefData>> = OnceLock::new();
        SHARED.get_or_init(|| Arc::new(RefData::builtin())).clone()
    }

    fn try_builtin() -> Result<RefData> {
        let pse = EntityList::new(synthetic::pse_entities(), Source::Builtin, "PSE")?;
        let rgla = EntityList::new(synthetic::rgla_entities(), Source::Builtin, "RGLA")?;
        let institutions = InstitutionList::new(synthetic::institutions(), Source::Builtin)?;
        let mdb = MdbList::new(
            load::mdb_from_str(MDB_IO_CSV, "built-in mdb_io_list.csv")?,
            Source::Builtin,
        )?;
        let sovereigns = SovereignList::new(
            load::sovereigns_from_str(SOVEREIGNS_CSV, "built-in sovereigns.csv")?,
            Source::Builtin,
        )?;
        Ok(RefData {
            pse,
            rgla,
            mdb,
            institutions,
            sovereigns,
        })
    }

    /// Loads a directory of reference CSVs; a present file replaces the built-in list of its
    /// kind entirely. A missing `mdb.csv` or `sovereigns.csv` falls back to the built-in list (the
    /// regulation's MDBs and international organisations, the EU sovereigns); a missing
    /// `pse.csv`, `rgla.csv` or `institutions.csv` leaves that list empty, because the built-in
    /// ones are synthetic and must never stand in for a bank's own reference data. Any invalid
    /// row fails the whole load with a message naming the file and line.
    pub fn load_dir(dir: &Path) -> Result<RefData> {
        if !dir.is_dir() {
            return Err(crate::error::Error::RefDataDir(format!(
                "{} is not a directory",
                dir.display()
            )));
        }
        let builtin = RefData::builtin_shared();
        let file = |name: &str| -> Option<PathBuf> {
            let p = dir.join(name);
            p.is_file().then_some(p)
        };
        let pse = match file("pse.csv") {
            Some(p) => EntityList::new(
                load::public_entities_from_path(&p, "PSE")?,
                Source::File(p),
                "PSE",
            )?,
            None => EntityList::new(Vec::new(), Source::Missing(dir.join("pse.csv")), "PSE")?,
        };
        let rgla = match file("rgla.csv") {
            Some(p) => EntityList::new(
                load::public_entities_from_path(&p, "RGLA")?,
                Source::File(p),
                "RGLA",
            )?,
            None => EntityList::new(Vec::new(), Source::Missing(dir.join("rgla.csv")), "RGLA")?,
        };
        let mdb = match file("mdb.csv") {
            Some(p) => {
                let (mut entities, stated) = load::mdb_from_path_with_articles(&p)?;
                adopt_builtin_articles(&mut entities, &stated, &builtin.mdb);
                MdbList::new(entities, Source::File(p))?
            }
            None => builtin.mdb.clone(),
        };
        let institutions = match file("institutions.csv") {
            Some(p) => InstitutionList::new(load::institutions_from_path(&p)?, Source::File(p))?,
            None => {
                InstitutionList::new(Vec::new(), Source::Missing(dir.join("institutions.csv")))?
            }
        };
        let sovereigns = match file("sovereigns.csv") {
            Some(p) => SovereignList::new(load::sovereigns_from_path(&p)?, Source::File(p))?,
            None => builtin.sovereigns.clone(),
        };
        Ok(RefData {
            pse,
            rgla,
            mdb,
            institutions,
            sovereigns,
        })
    }

    /// Builds reference data from lists already in memory (tests, API uploads).
    pub fn from_parts(
        pse: Vec<PublicEntity>,
        rgla: Vec<PublicEntity>,
        mdb: Vec<MdbEntity>,
        institutions: Vec<Institution>,
        sovereigns: Vec<Sovereign>,
    ) -> Result<RefData> {
        Ok(RefData {
            pse: EntityList::new(pse, Source::Builtin, "PSE")?,
            rgla: EntityList::new(rgla, Source::Builtin, "RGLA")?,
            mdb: MdbList::new(mdb, Source::Builtin)?,
            institutions: InstitutionList::new(institutions, Source::Builtin)?,
            sovereigns: SovereignList::new(sovereigns, Source::Builtin)?,
        })
    }

    /// The Spanish PSE list.
    pub fn pse(&self) -> &EntityList {
        &self.pse
    }

    /// The Spanish RGLA list.
    pub fn rgla(&self) -> &EntityList {
        &self.rgla
    }

    /// The MDB / international organisation list.
    pub fn mdb(&self) -> &MdbList {
        &self.mdb
    }

    /// The institution list.
    pub fn institutions(&self) -> &InstitutionList {
        &self.institutions
    }

    /// The sovereign list.
    pub fn sovereigns(&self) -> &SovereignList {
        &self.sovereigns
    }

    /// Finds the entity behind a NIF or a LEI in any list (the specification's "NIF detection":
    /// entity type, name and regulatory reference). `None` for an invalid or unknown identifier.
    pub fn identify(&self, id: &str) -> Option<Identified<'_>> {
        use crate::model::Lever;
        if let Ok(nif) = Nif::parse(id) {
            if let Some(e) = self.pse.get(&nif) {
                return Some(Identified {
                    lever: Lever::Pse,
                    entity_type: "pse",
                    name: &e.legal_name,
                    regulatory_reference: "CRR Art. 116",
                    id: e.nif_str(),
                });
            }
            if let Some(e) = self.rgla.get(&nif) {
                return Some(Identified {
                    lever: Lever::Rgla,
                    entity_type: "rgla",
                    name: &e.legal_name,
                    regulatory_reference: "CRR Art. 115",
                    id: e.nif_str(),
                });
            }
            return None;
        }
        let lei = Lei::parse(id).ok()?;
        if let Some(e) = self.mdb.by_lei(&lei) {
            let reference = match e.kind {
                MdbKind::Listed117_2 => "CRR Art. 117(2)",
                MdbKind::Other117_1 => "CRR Art. 117(1)",
                MdbKind::InternationalOrg118 => "CRR Art. 118",
                MdbKind::Ecb114_3 => "CRR Art. 114(3)",
            };
            let lever = if e.kind == MdbKind::Ecb114_3 {
                Lever::Sovereigns
            } else {
                Lever::Mdb
            };
            return Some(Identified {
                lever,
                entity_type: "mdb",
                name: &e.legal_name,
                regulatory_reference: reference,
                id: e.lei.as_ref().map(|l| l.as_str()).unwrap_or(""),
            });
        }
        let e = self.institutions.by_lei(&lei)?;
        Some(Identified {
            lever: Lever::Institutions,
            entity_type: "institution",
            name: &e.legal_name,
            regulatory_reference: "CRR Art. 120-121",
            id: e.lei.as_ref().map(|l| l.as_str()).unwrap_or(""),
        })
    }

    /// Where each list came from.
    pub fn sources(&self) -> Sources {
        Sources {
            lists: vec![
                ("pse", self.pse.source.clone(), self.pse.len()),
                ("rgla", self.rgla.source.clone(), self.rgla.len()),
                ("mdb", self.mdb.source.clone(), self.mdb.len()),
                (
                    "institutions",
                    self.institutions.source.clone(),
                    self.institutions.len(),
                ),
                (
                    "sovereigns",
                    self.sovereigns.source.clone(),
                    self.sovereigns.len(),
                ),
            ],
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn country_codes_read_as_written() {
        for a in b'A'..=b'Z' {
            for b in b'A'..=b'Z' {
                let c = Country([a, b]);
                assert_eq!(c.as_str().as_bytes(), [a, b]);
            }
        }
        assert_eq!(Country(*b"e1").as_str(), "e1");
    }

    use super::*;

    #[test]
    fn builtin_loads_and_is_indexed() {
        let r = RefData::builtin();
        assert!(
            r.pse().len() > 2890,
            "PSE set has {} entities",
            r.pse().len()
        );
        assert_eq!(
            (r.pse().len(), r.rgla().len(), r.institutions().len()),
            (3002, 6006, 400)
        );
        assert_eq!(r.mdb().len(), 27);
        let madrid = r.rgla().get(&Nif::parse("P2807900B").unwrap()).unwrap();
        assert_eq!(madrid.legal_name, "Ayuntamiento de Madrid");
        assert!(r.pse().get(&Nif::parse("Q2826000H").unwrap()).is_some());
        for s in ["Spain", "españa", "ESP", " es ", "Reino de España"] {
            assert_eq!(Country::parse_loose(s), Some(Country::ES), "{s}");
        }
        assert_eq!(Country::parse_loose("Narnia"), None);
        let es = r.sovereigns().get(Country::ES).unwrap();
        assert_eq!(es.cqs, Some(2));
        assert_eq!(es.domestic_currency.unwrap().as_str(), "EUR");
        let eib = r
            .mdb()
            .by_lei(&Lei::parse("5493006YXS1U5GIHE750").unwrap())
            .unwrap();
        assert_eq!(eib.kind, MdbKind::Listed117_2);
        assert!(
            matches!(r.mdb().by_name("Banco Europeo de Inversiones"), NameMatch::Found(e) if e.label() == "EIB")
        );
        assert!(
            matches!(r.mdb().by_name(" world bank "), NameMatch::Found(e) if e.label() == "IBRD")
        );
        assert!(matches!(r.mdb().by_name("BIRF"), NameMatch::Found(e) if e.label() == "IBRD"));
        assert!(matches!(r.mdb().by_name("IDB"), NameMatch::Ambiguous(..)));
        assert!(
            matches!(r.mdb().by_name("IMF"), NameMatch::Found(e) if e.kind == MdbKind::InternationalOrg118)
        );
        assert!(
            matches!(r.mdb().by_name("CAF"), NameMatch::Found(e) if e.kind == MdbKind::Other117_1)
        );
        assert!(
            matches!(r.mdb().by_name("Banco Central Europeo"), NameMatch::Found(e) if e.kind == MdbKind::Ecb114_3)
        );
    }

    #[test]
    fn identify_finds_the_list() {
        let r = RefData::builtin();
        let madrid = r.identify("p-28079.00-b").unwrap();
        assert_eq!(
            (madrid.entity_type, madrid.name, madrid.id),
            ("rgla", "Ayuntamiento de Madrid", "P2807900B")
        );
        assert_eq!(
            r.identify("Q2826000H").unwrap().lever,
            crate::model::Lever::Pse
        );
        let eib = r.identify("5493006YXS1U5GIHE750").unwrap();
        assert_eq!(
            (eib.entity_type, eib.regulatory_reference),
            ("mdb", "CRR Art. 117(2)")
        );
        assert_eq!(
            r.identify("549300DTUYXVMJXZNY75").unwrap().lever,
            crate::model::Lever::Sovereigns
        );
        assert!(r.identify("Q2826000A").is_none());
        assert!(r.identify("").is_none());
        let inst = r.institutions().entities()[0].lei.unwrap();
        assert_eq!(
            r.identify(inst.as_str()).unwrap().entity_type,
            "institution"
        );
    }

    #[test]
    fn refdata_is_send_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<RefData>();
    }
}
