//! CSV loaders for the reference lists. Strict: any invalid row fails the load with the file name
//! and line, so bad reference data is never half applied.

use std::path::Path;

use csv::StringRecord;

use super::{
    Country, Currency, Institution, Lei, MdbEntity, MdbKind, Nif, PublicEntity, Sovereign,
};
use crate::error::{Error, Result};

/// A parsed CSV with a case-insensitive header lookup.
struct Sheet {
    label: String,
    kind: &'static str,
    headers: Vec<String>,
    rows: Vec<(u64, StringRecord)>,
}

impl Sheet {
    fn parse(text: &str, label: &str, kind: &'static str) -> Result<Sheet> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // The CSV reader counts lines wrongly after a CRLF header; reference files are small, so
        // read them with plain line feeds and report true line numbers.
        let unix;
        let text = if text.contains('\r') {
            unix = text.replace("\r\n", "\n");
            unix.as_str()
        } else {
            text
        };
        let mut rdr = csv::ReaderBuilder::new()
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let headers: Vec<String> = rdr
            .headers()
            .map_err(|e| Error::RefData {
                kind,
                message: format!("{label}: {e}"),
            })?
            .iter()
            .map(|h| h.trim().to_ascii_lowercase())
            .collect();
        let mut rows = Vec::new();
        for rec in rdr.records() {
            let rec = rec.map_err(|e| Error::RefData {
                kind,
                message: format!("{label}: {e}"),
            })?;
            if rec.iter().all(|f| f.is_empty()) {
                continue;
            }
            let line = rec.position().map(|p| p.line()).unwrap_or(0);
            rows.push((line, rec));
        }
        Ok(Sheet {
            label: label.to_string(),
            kind,
            headers,
            rows,
        })
    }

    fn col(&self, names: &[&str]) -> Option<usize> {
        names
            .iter()
            .find_map(|n| self.headers.iter().position(|h| h == n))
    }

    fn require(&self, names: &[&str]) -> Result<usize> {
        self.col(names).ok_or_else(|| Error::RefData {
            kind: self.kind,
            message: format!("{}: missing column {}", self.label, names[0]),
        })
    }

    fn err(&self, line: u64, msg: impl std::fmt::Display) -> Error {
        Error::RefData {
            kind: self.kind,
            message: format!("{} line {line}: {msg}", self.label),
        }
    }
}

fn field(rec: &StringRecord, col: Option<usize>) -> &str {
    col.and_then(|c| rec.get(c)).unwrap_or("")
}

fn read_text(path: &Path, kind: &'static str) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::RefData {
        kind,
        message: format!("{}: {e}", path.display()),
    })?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let (cow, _, _) = encoding_rs::WINDOWS_1252.decode(e.as_bytes());
            cow.into_owned()
        }
    })
}

fn file_label(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn parse_flag(sheet: &Sheet, line: u64, name: &str, v: &str) -> Result<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "true" | "1" | "s" | "si" | "sí" => Ok(true),
        "n" | "no" | "false" | "0" | "" => Ok(false),
        _ => Err(sheet.err(line, format!("{name} must be Y or N, found \"{v}\""))),
    }
}

fn parse_cqs(sheet: &Sheet, line: u64, name: &str, v: &str) -> Result<Option<u8>> {
    let t = v.trim();
    if t.is_empty() {
        return Ok(None);
    }
    match t.parse::<f64>() {
        Ok(x) if x.fract() == 0.0 && (1.0..=6.0).contains(&x) => Ok(Some(x as u8)),
        _ => Err(sheet.err(
            line,
            format!("{name} must be a credit quality step 1 to 6 or empty, found \"{v}\""),
        )),
    }
}

fn parse_country(
    sheet: &Sheet,
    line: u64,
    v: &str,
    default: Option<Country>,
) -> Result<Option<Country>> {
    if v.trim().is_empty() {
        return Ok(default);
    }
    Country::parse(v).map(Some).ok_or_else(|| {
        sheet.err(
            line,
            format!("country must be an ISO alpha-2 code, found \"{v}\""),
        )
    })
}

fn parse_opt_lei(sheet: &Sheet, line: u64, v: &str) -> Result<Option<Lei>> {
    if v.trim().is_empty() {
        return Ok(None);
    }
    Lei::parse(v)
        .map(Some)
        .map_err(|e| sheet.err(line, format!("LEI {v}: {e}")))
}

/// Reads `pse.csv` or `rgla.csv`.
pub(super) fn public_entities_from_path(
    path: &Path,
    kind: &'static str,
) -> Result<Vec<PublicEntity>> {
    let text = read_text(path, kind)?;
    public_entities_from_str(&text, &file_label(path), kind)
}

pub(super) fn public_entities_from_str(
    text: &str,
    label: &str,
    kind: &'static str,
) -> Result<Vec<PublicEntity>> {
    let sh = Sheet::parse(text, label, kind)?;
    let c_nif = sh.require(&["nif"])?;
    let c_name = sh.col(&["legal_name", "name"]);
    let c_type = sh.col(&["rgla_type", "entity_type"]);
    let c_country = sh.col(&["country", "own_gvmt", "own_gov_country"]);
    let c_cqs = sh.col(&["entity_cqs", "ecai_cqs"]);
    let c_gov = sh.col(&["own_gov_cqs", "default_gvmt_ecai_creditqualitystep"]);
    let c_cg = sh.col(&["treated_as_central_government", "treated_as_cg"]);
    let c_src = sh.col(&["source"]);
    let c_asof = sh.col(&["as_of"]);
    let mut out = Vec::with_capacity(sh.rows.len());
    for (line, rec) in &sh.rows {
        let line = *line;
        let raw = field(rec, Some(c_nif));
        let nif = Nif::parse(raw).map_err(|e| sh.err(line, format!("NIF \"{raw}\": {e}")))?;
        let country = parse_country(&sh, line, field(rec, c_country), Some(Country::ES))?
            .unwrap_or(Country::ES);
        out.push(PublicEntity {
            nif,
            legal_name: field(rec, c_name).to_string(),
            rgla_type: field(rec, c_type).to_string(),
            country,
            entity_cqs: parse_cqs(&sh, line, "entity_cqs", field(rec, c_cqs))?,
            own_gov_cqs: parse_cqs(&sh, line, "own_gov_cqs", field(rec, c_gov))?,
            treated_as_central_government: parse_flag(
                &sh,
                line,
                "treated_as_central_government",
                field(rec, c_cg),
            )?,
            source: field(rec, c_src).to_string(),
            as_of: field(rec, c_asof).to_string(),
        });
    }
    Ok(out)
}

/// Reads `mdb.csv` (or the `mdb_io_list.csv` layout) and says, row by row, whether the file stated the CRR article
/// (`crr_article`) or only the Art. 117(2) flag.
pub(super) fn mdb_from_path_with_articles(path: &Path) -> Result<(Vec<MdbEntity>, Vec<bool>)> {
    let text = read_text(path, "MDB")?;
    mdb_from_str_with_articles(&text, &file_label(path))
}

/// Removes parenthetical remarks: "IDB (ambiguous with IsDB)" gives "IDB".
fn strip_parens(s: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut inner = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => {
                depth += 1;
                if depth == 1 {
                    cur.clear();
                }
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    inner.push(cur.trim().to_string());
                }
            }
            _ if depth > 0 => cur.push(c),
            _ => out.push(c),
        }
    }
    (out.trim().to_string(), inner)
}

pub(super) fn mdb_from_str(text: &str, label: &str) -> Result<Vec<MdbEntity>> {
    Ok(mdb_from_str_with_articles(text, label)?.0)
}

fn mdb_from_str_with_articles(text: &str, label: &str) -> Result<(Vec<MdbEntity>, Vec<bool>)> {
    let sh = Sheet::parse(text, label, "MDB")?;
    let c_name = sh
        .col(&["legal_name", "full_name", "full_legal_name", "name"])
        .ok_or_else(|| Error::RefData {
            kind: "MDB",
            message: format!("{label}: missing column legal_name"),
        })?;
    let c_lei = sh.col(&["lei", "lei_code"]);
    let c_acr = sh.col(&["acronym"]);
    let c_alias = sh.col(&["aliases"]);
    let c_es = sh.col(&["spanish_name"]);
    let c_listed = sh.col(&["art_117_2_listed", "listed_0pct"]);
    let c_art = sh.col(&["crr_article"]);
    let c_cqs = sh.col(&["entity_cqs", "credit_quality_step", "ecai_cqs"]);
    if c_listed.is_none() && c_art.is_none() {
        return Err(Error::RefData {
            kind: "MDB",
            message: format!("{label}: missing column art_117_2_listed"),
        });
    }
    let mut out = Vec::with_capacity(sh.rows.len());
    let mut stated = Vec::with_capacity(sh.rows.len());
    for (line, rec) in &sh.rows {
        let line = *line;
        let listed = match c_listed {
            Some(_) => Some(parse_flag(
                &sh,
                line,
                "art_117_2_listed",
                field(rec, c_listed),
            )?),
            None => None,
        };
        let art = field(rec, c_art).replace(' ', "").to_ascii_lowercase();
        let art = art.trim_start_matches("art.").trim_start_matches("art");
        stated.push(!art.is_empty());
        let kind = match art {
            "117(2)" => MdbKind::Listed117_2,
            "117(1)" => MdbKind::Other117_1,
            "118" => MdbKind::InternationalOrg118,
            "114(3)" => MdbKind::Ecb114_3,
            "" => match listed {
                Some(true) => MdbKind::Listed117_2,
                _ => MdbKind::Other117_1,
            },
            other => {
                return Err(sh.err(
                    line,
                    format!("crr_article must be 117(2), 117(1), 118 or 114(3), found \"{other}\""),
                ));
            }
        };
        let legal_name = field(rec, Some(c_name)).to_string();
        if legal_name.is_empty() {
            return Err(sh.err(line, "legal_name is empty"));
        }
        let mut aliases = Vec::new();
        for a in field(rec, c_alias).split(';') {
            let (clean, _) = strip_parens(a);
            if !clean.is_empty() {
                aliases.push(clean);
            }
        }
        let es = field(rec, c_es);
        if !es.is_empty() {
            let (clean, inner) = strip_parens(es);
            aliases.push(clean);
            aliases.extend(inner.into_iter().filter(|s| !s.is_empty()));
        }
        let (name_clean, _) = strip_parens(&legal_name);
        if name_clean != legal_name && !name_clean.is_empty() {
            aliases.push(name_clean);
        }
        out.push(MdbEntity {
            lei: parse_opt_lei(&sh, line, field(rec, c_lei))?,
            legal_name,
            acronym: field(rec, c_acr).to_string(),
            aliases,
            kind,
            entity_cqs: parse_cqs(&sh, line, "entity_cqs", field(rec, c_cqs))?,
        });
    }
    Ok((out, stated))
}

/// Reads `institutions.csv`.
pub(super) fn institutions_from_path(path: &Path) -> Result<Vec<Institution>> {
    let text = read_text(path, "institution")?;
    institutions_from_str(&text, &file_label(path))
}

pub(super) fn institutions_from_str(text: &str, label: &str) -> Result<Vec<Institution>> {
    let sh = Sheet::parse(text, label, "institution")?;
    let c_lei = sh.require(&["lei", "lei_code"])?;
    let c_name = sh.col(&["legal_name", "name"]);
    let c_country = sh.col(&["country"]);
    let c_cqs = sh.col(&["entity_cqs", "credit_quality_step"]);
    let mut out = Vec::with_capacity(sh.rows.len());
    for (line, rec) in &sh.rows {
        let line = *line;
        let lei = parse_opt_lei(&sh, line, field(rec, Some(c_lei)))?;
        let legal_name = field(rec, c_name).to_string();
        if lei.is_none() && legal_name.is_empty() {
            return Err(sh.err(line, "an institution needs a LEI or a legal_name"));
        }
        out.push(Institution {
            lei,
            legal_name,
            country: parse_country(&sh, line, field(rec, c_country), None)?,
            entity_cqs: parse_cqs(&sh, line, "entity_cqs", field(rec, c_cqs))?,
        });
    }
    Ok(out)
}

/// Reads `sovereigns.csv`.
pub(super) fn sovereigns_from_path(path: &Path) -> Result<Vec<Sovereign>> {
    let text = read_text(path, "sovereign")?;
    sovereigns_from_str(&text, &file_label(path))
}

pub(super) fn sovereigns_from_str(text: &str, label: &str) -> Result<Vec<Sovereign>> {
    let sh = Sheet::parse(text, label, "sovereign")?;
    let c_country = sh.require(&["country", "iso_country"])?;
    let c_ccy = sh.col(&["domestic_currency"]);
    let c_cqs = sh.col(&["cqs", "credit_quality_step"]);
    let c_eu = sh.col(&["eu_member"]);
    let mut out = Vec::with_capacity(sh.rows.len());
    for (line, rec) in &sh.rows {
        let line = *line;
        let country = parse_country(&sh, line, field(rec, Some(c_country)), None)?
            .ok_or_else(|| sh.err(line, "country is empty"))?;
        let ccy_raw = field(rec, c_ccy);
        let domestic_currency = if ccy_raw.is_empty() {
            None
        } else {
            Some(Currency::parse(ccy_raw).ok_or_else(|| {
                sh.err(
                    line,
                    format!("domestic_currency must be an ISO 4217 code, found \"{ccy_raw}\""),
                )
            })?)
        };
        out.push(Sovereign {
            country,
            domestic_currency,
            cqs: parse_cqs(&sh, line, "cqs", field(rec, c_cqs))?,
            eu_member: parse_flag(&sh, line, "eu_member", field(rec, c_eu))?,
        });
    }
    Ok(out)
}

/// Writes PSE or RGLA entities in the `pse.csv` / `rgla.csv` layout.
#[cfg(feature = "cli")]
pub(super) fn write_public_entities<W: std::io::Write>(
    w: W,
    items: &[PublicEntity],
    rgla: bool,
) -> Result<()> {
    let mut wr = csv::Writer::from_writer(w);
    if rgla {
        wr.write_record([
            "nif",
            "legal_name",
            "rgla_type",
            "country",
            "entity_cqs",
            "own_gov_cqs",
            "treated_as_central_government",
            "source",
            "as_of",
        ])?;
    } else {
        wr.write_record([
            "nif",
            "legal_name",
            "country",
            "entity_cqs",
            "own_gov_cqs",
            "treated_as_central_government",
            "source",
            "as_of",
        ])?;
    }
    for e in items {
        let cqs = e.entity_cqs.map(|c| c.to_string()).unwrap_or_default();
        let gov = e.own_gov_cqs.map(|c| c.to_string()).unwrap_or_default();
        let flag = if e.treated_as_central_government {
            "Y"
        } else {
            "N"
        };
        if rgla {
            wr.write_record([
                e.nif.as_str(),
                &e.legal_name,
                &e.rgla_type,
                e.country.as_str(),
                &cqs,
                &gov,
                flag,
                &e.source,
                &e.as_of,
            ])?;
        } else {
            wr.write_record([
                e.nif.as_str(),
                &e.legal_name,
                e.country.as_str(),
                &cqs,
                &gov,
                flag,
                &e.source,
                &e.as_of,
            ])?;
        }
    }
    wr.flush()?;
    Ok(())
}

/// Writes institutions in the `institutions.csv` layout.
#[cfg(feature = "cli")]
pub(super) fn write_institutions<W: std::io::Write>(w: W, items: &[Institution]) -> Result<()> {
    let mut wr = csv::Writer::from_writer(w);
    wr.write_record(["lei", "legal_name", "country", "entity_cqs"])?;
    for e in items {
        wr.write_record([
            e.lei.as_ref().map(|l| l.as_str()).unwrap_or(""),
            &e.legal_name,
            e.country.as_ref().map(|c| c.as_str()).unwrap_or(""),
            &e.entity_cqs.map(|c| c.to_string()).unwrap_or_default(),
        ])?;
    }
    wr.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pse_rows_validate_strictly() {
        let ok = "nif,legal_name,country,entity_cqs,own_gov_cqs,treated_as_central_government,source,as_of\n\
                  Q9900001J,Test,ES,,2,N,test,2025-01-01\n";
        let v = public_entities_from_str(ok, "pse.csv", "PSE").unwrap();
        assert_eq!(v[0].own_gov_cqs, Some(2));
        let bad_nif = ok.replace("Q9900001J", "Q9900001A");
        let e = public_entities_from_str(&bad_nif, "pse.csv", "PSE")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Failed to load PSE reference data: pse.csv line 2"),
            "{e}"
        );
        assert!(e.contains("expected J"), "{e}");
        // Windows line endings: the same line number.
        let crlf = bad_nif.replace('\n', "\r\n");
        let e = public_entities_from_str(&crlf, "pse.csv", "PSE")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Failed to load PSE reference data: pse.csv line 2"),
            "{e}"
        );
        let bad_flag = ok.replace(",N,test", ",maybe,test");
        assert!(
            public_entities_from_str(&bad_flag, "pse.csv", "PSE")
                .unwrap_err()
                .to_string()
                .contains("Y or N")
        );
        let bad_cqs = ok.replace(",,2,", ",7,2,");
        assert!(public_entities_from_str(&bad_cqs, "pse.csv", "PSE").is_err());
        let no_nif = "legal_name\nX\n";
        assert!(
            public_entities_from_str(no_nif, "pse.csv", "PSE")
                .unwrap_err()
                .to_string()
                .contains("missing column nif")
        );
    }

    #[test]
    fn mdb_both_layouts() {
        let simple = "lei,legal_name,acronym,aliases,art_117_2_listed,entity_cqs\n\
                      5493006YXS1U5GIHE750,European Investment Bank,EIB,BEI;Banco Europeo de Inversiones,Y,1\n\
                      ,Black Sea Trade and Development Bank,BSTDB,,N,3\n";
        let v = mdb_from_str(simple, "mdb.csv").unwrap();
        assert_eq!(v[0].kind, MdbKind::Listed117_2);
        assert_eq!(v[1].kind, MdbKind::Other117_1);
        assert_eq!(v[1].entity_cqs, Some(3));
        let bad = simple.replace("5493006YXS1U5GIHE750", "5493006YXS1U5GIHE751");
        assert!(
            mdb_from_str(&bad, "mdb.csv")
                .unwrap_err()
                .to_string()
                .contains("check digits")
        );
    }
}
