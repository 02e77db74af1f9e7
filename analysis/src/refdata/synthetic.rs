//! The synthetic Spanish reference sets shipped as built-in defaults: about 3,000 public sector
//! entities (NIF key Q), about 6,000 regional governments and local authorities (key S for the
//! autonomous communities, P for local bodies) and 400 credit institutions with synthetic LEIs.
//!
//! Everything is generated from fixed seeds, so the sets are identical on every machine and in
//! every release. Synthetic NIFs use the province digits `99` (no INE province has that code, so
//! they cannot collide with real old-style NIFs) and carry a computed check character; synthetic
//! LEIs use the prefix `999900` and valid ISO 17442 check digits. Every synthetic name ends in
//! "(SINTETICO)". The real public bodies of `public_entities_es_sample.csv` are added as they are;
//! their treatment flags are **not** asserted (set to N) and must be confirmed against the EBA
//! lists before production use.

use super::{Country, Institution, Lei, Nif, PublicEntity};
use crate::rng::SplitMix64;

/// Seed of the synthetic PSE set.
pub const PSE_SEED: u64 = 0x5053_455f_4553_0001;
/// Seed of the synthetic RGLA set.
pub const RGLA_SEED: u64 = 0x5247_4c41_4553_0001;
/// Seed of the synthetic institution set.
pub const INSTITUTION_SEED: u64 = 0x494e_5354_0000_0001;
/// Number of synthetic PSEs.
pub const PSE_COUNT: usize = 3_000;
/// Source text written on synthetic entries.
pub const SYNTHETIC_SOURCE: &str = "synthetic set (SINTETICO), generated from a fixed seed";
/// Date written on synthetic entries.
pub const SYNTHETIC_AS_OF: &str = "2025-06-30";

const REAL_SAMPLE: &str = include_str!("../../data/refdata/public_entities_es_sample.csv");

const PREFIXES: &[&str] = &[
    "Villa", "Val", "Castil", "Torre", "Fuente", "Mon", "Alcal", "Bena", "Alba", "Cala", "Medina",
    "Puebla", "Aldea", "Navas", "Pozo", "Robla", "Sala", "Zara", "Vega", "Cabe", "Olme", "Campo",
    "Hoya", "Lagu", "Mira", "Peña", "Riba", "Sotil", "Tala", "Vall",
];
const SUFFIXES: &[&str] = &[
    "nueva", "franca", "mayor", "verde", "blanca", "rubia", "alta", "seca", "real", "lobos",
    "llana", "tejada", "rejo", "sierra", "mar", "dolid", "cilla", "lar", "rrubias", "ferrer",
    "hermosa", "quemada", "fría", "rosa",
];
const QUALIFIERS: &[&str] = &[
    "",
    "",
    "",
    "",
    "",
    " del Río",
    " de la Sierra",
    " del Campo",
    " de los Caballeros",
    " de Arriba",
    " del Monte",
    " de la Vega",
    " del Páramo",
    " de Abajo",
    " del Rey",
];
const SAINTS: &[&str] = &[
    "San Martín de ",
    "Santa María de ",
    "San Juan de ",
    "San Pedro de ",
    "Santiago de ",
];

fn place(rng: &mut SplitMix64) -> String {
    let mut s = String::new();
    if rng.below(8) == 0 {
        s.push_str(rng.pick::<&str>(SAINTS));
    }
    s.push_str(rng.pick::<&str>(PREFIXES));
    s.push_str(rng.pick::<&str>(SUFFIXES));
    s.push_str(rng.pick::<&str>(QUALIFIERS));
    s
}

/// A deterministic permutation of 0..100_000 (7919 is prime to 100,000).
fn nif_digits(i: usize, offset: u32) -> u32 {
    9_900_000 + ((i as u32).wrapping_mul(7919).wrapping_add(offset)) % 100_000
}

fn entity(
    nif: Nif,
    legal_name: String,
    rgla_type: &str,
    cqs: Option<u8>,
    cg: bool,
) -> PublicEntity {
    PublicEntity {
        nif,
        legal_name,
        rgla_type: rgla_type.to_string(),
        country: Country::ES,
        entity_cqs: cqs,
        own_gov_cqs: None,
        treated_as_central_government: cg,
        source: SYNTHETIC_SOURCE.to_string(),
        as_of: SYNTHETIC_AS_OF.to_string(),
    }
}

/// Real entities of the shipped sample whose candidate lever is `lever` ("PSE" or "RGLA").
fn real_entities(lever: &str) -> Vec<PublicEntity> {
    let mut rdr = csv::Reader::from_reader(REAL_SAMPLE.as_bytes());
    let mut out = Vec::new();
    for rec in rdr.records().flatten() {
        let (nif, name, kind, candidate) = (rec.get(0), rec.get(1), rec.get(2), rec.get(5));
        let (Some(nif), Some(name), Some(kind), Some(candidate)) = (nif, name, kind, candidate)
        else {
            continue;
        };
        let Ok(nif) = Nif::parse(nif) else { continue };
        if !candidate.trim().starts_with(lever) {
            continue;
        }
        let rgla_type = match kind {
            "municipality" => "municipio",
            "autonomous community" => "CCAA",
            _ => "",
        };
        out.push(PublicEntity {
            nif,
            legal_name: name.to_string(),
            rgla_type: if lever == "RGLA" { rgla_type.to_string() } else { String::new() },
            country: Country::ES,
            entity_cqs: None,
            own_gov_cqs: None,
            treated_as_central_government: false,
            source: "public material (public_entities_es_sample.csv); treatment flag not asserted, verify against the EBA lists"
                .to_string(),
            as_of: "2025-06-30".to_string(),
        });
    }
    out
}

/// The built-in PSE set: the real sample PSEs followed by [`PSE_COUNT`] synthetic ones.
pub fn pse_entities() -> Vec<PublicEntity> {
    let mut rng = SplitMix64::new(PSE_SEED);
    let mut out = real_entities("PSE");
    const FORMS: &[&str] = &[
        "Consorcio de Transportes de {}",
        "Consorcio Sanitario de {}",
        "Empresa Municipal de Aguas de {}",
        "Instituto Municipal de Deportes de {}",
        "Agencia de Desarrollo Local de {}",
        "Fundación Pública Hospital de {}",
        "Universidad de {}",
        "Autoridad Portuaria de {}",
        "Organismo Autónomo de Recaudación de {}",
        "Entidad Pública Empresarial de Vivienda de {}",
        "Instituto de Promoción Económica de {}",
        "Servicio Público de Empleo de {}",
        "Consorcio de Bomberos de {}",
        "Agencia de Medio Ambiente de {}",
        "Patronato de Turismo de {}",
    ];
    for i in 0..PSE_COUNT {
        let Some(nif) = Nif::from_parts(b'Q', nif_digits(i, 1)) else {
            continue;
        };
        let form = rng.pick(FORMS);
        let name = format!("{} (SINTETICO)", form.replace("{}", &place(&mut rng)));
        let cqs = match rng.below(100) {
            0..=3 => Some(1),
            4..=7 => Some(2),
            8..=9 => Some(3),
            _ => None,
        };
        let cg = rng.below(100) < 20;
        out.push(entity(nif, name, "", cqs, cg));
    }
    out
}

/// The built-in RGLA set: the real sample bodies followed by the synthetic ones.
pub fn rgla_entities() -> Vec<PublicEntity> {
    let mut rng = SplitMix64::new(RGLA_SEED);
    let mut out = real_entities("RGLA");
    // (type, key letter, count, name form, treated as central government, share rated in %)
    const KINDS: &[(&str, u8, usize, &str, bool, u64)] = &[
        ("CCAA", b'S', 17, "Comunidad Autónoma de {}", true, 90),
        (
            "diputacion",
            b'P',
            38,
            "Diputación Provincial de {}",
            true,
            20,
        ),
        ("cabildo", b'P', 11, "Cabildo Insular de {}", true, 10),
        ("municipio", b'P', 4_600, "Ayuntamiento de {}", true, 3),
        (
            "mancomunidad",
            b'P',
            700,
            "Mancomunidad de Municipios de {}",
            false,
            0,
        ),
        ("comarca", b'P', 60, "Comarca de {}", false, 0),
        ("EATIM", b'P', 574, "Entidad Local Menor de {}", false, 0),
    ];
    let mut n_p = 0usize;
    let mut n_s = 0usize;
    for &(kind, key, count, form, cg, rated) in KINDS {
        for _ in 0..count {
            let digits = if key == b'S' {
                n_s += 1;
                nif_digits(n_s, 3)
            } else {
                n_p += 1;
                nif_digits(n_p, 5)
            };
            let Some(nif) = Nif::from_parts(key, digits) else {
                continue;
            };
            let name = format!("{} (SINTETICO)", form.replace("{}", &place(&mut rng)));
            let cqs = if rng.below(100) < rated {
                Some(2 + rng.below(2) as u8)
            } else {
                None
            };
            out.push(entity(nif, name, kind, cqs, cg));
        }
    }
    out
}

/// The built-in synthetic institution set (400 banks across the EU and a few other countries).
pub fn institutions() -> Vec<Institution> {
    let mut rng = SplitMix64::new(INSTITUTION_SEED);
    const COUNTRIES: &[(&str, &str)] = &[
        ("ES", "Caja Rural de {}"),
        ("ES", "Banco de {}"),
        ("ES", "Caixa {}"),
        ("DE", "Volksbank {} eG"),
        ("DE", "Sparkasse {}"),
        ("FR", "Banque Régionale de {}"),
        ("IT", "Banca Popolare di {}"),
        ("PT", "Caixa de Crédito de {}"),
        ("NL", "{} Bank N.V."),
        ("BE", "Banque {} SA"),
        ("AT", "Raiffeisenbank {}"),
        ("IE", "{} Bank DAC"),
        ("FI", "{} Säästöpankki"),
        ("PL", "Bank Spółdzielczy {}"),
        ("GB", "{} Bank plc"),
        ("US", "{} Bancorp"),
        ("CH", "Kantonalbank {}"),
    ];
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut out = Vec::with_capacity(400);
    for _ in 0..400 {
        let (country, form) = *rng.pick(COUNTRIES);
        let mut base = String::from("999900");
        for _ in 0..12 {
            base.push(ALNUM[rng.below(ALNUM.len() as u64) as usize] as char);
        }
        let Some(lei) = Lei::with_check_digits(&base) else {
            continue;
        };
        if out.iter().any(|i: &Institution| i.lei == Some(lei)) {
            continue;
        }
        let cqs = match rng.below(100) {
            0..=14 => Some(1),
            15..=49 => Some(2),
            50..=74 => Some(3),
            75..=79 => Some(4),
            _ => None,
        };
        out.push(Institution {
            lei: Some(lei),
            legal_name: format!("{} (SINTETICO)", form.replace("{}", &place(&mut rng))),
            country: Country::parse(country),
            entity_cqs: cqs,
        });
    }
    out
}

/// Writes the built-in PSE, RGLA and institution sets as `pse.csv`, `rgla.csv` and
/// `institutions.csv` into `dir` (created if needed), in the layout [`super::RefData::load_dir`]
/// reads. Useful to inspect the defaults or to start a client's own lists from them. Writes
/// files: only with the `cli` feature.
#[cfg(feature = "cli")]
pub fn write_csvs(dir: &std::path::Path) -> crate::error::Result<()> {
    use super::load;
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join("pse.csv"))?);
    load::write_public_entities(&mut f, &pse_entities(), false)?;
    f.flush()?;
    let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join("rgla.csv"))?);
    load::write_public_entities(&mut f, &rgla_entities(), true)?;
    f.flush()?;
    let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join("institutions.csv"))?);
    load::write_institutions(&mut f, &institutions())?;
    f.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_deterministic_and_valid() {
        let a = pse_entities();
        let b = pse_entities();
        assert_eq!(a.len(), b.len());
        assert!(
            a.iter()
                .zip(&b)
                .all(|(x, y)| x.nif == y.nif && x.legal_name == y.legal_name)
        );
        assert!(a.len() > 2_890);
        for e in a.iter().chain(rgla_entities().iter()) {
            assert_eq!(Nif::parse(e.nif.as_str()), Ok(e.nif));
        }
        let r = rgla_entities();
        assert!(r.iter().any(|e| e.nif.as_str() == "P2807900B"));
        assert!(r.iter().filter(|e| e.nif.key_letter() == b'S').count() >= 17 + 4);
        assert!(institutions().len() >= 390);
    }

    #[cfg(feature = "cli")]
    #[test]
    fn exported_csvs_load_back() {
        let dir = std::env::temp_dir().join(format!("capopt-synth-{}", std::process::id()));
        write_csvs(&dir).unwrap();
        let r = super::super::RefData::load_dir(&dir).unwrap();
        assert_eq!(r.pse().len(), pse_entities().len());
        assert_eq!(r.rgla().len(), rgla_entities().len());
        assert_eq!(r.institutions().len(), institutions().len());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
