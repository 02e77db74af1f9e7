"""PSE lever rules (the regulatory rule set in force on the reporting date, as exported by the
benchmark from the analysis crate) applied to an exposure CSV with vectorised pandas: read, match,
write the processed file. Prints one JSON line: rows, seconds, peak memory (kB), total saving.

Rules, in the order of CRR Art. 116 (the same as the Rust engine):
  1. NIF normalised (upper case, no spaces, dots or dashes, optional ES prefix); not in the
     reference list -> not matched, current weight kept;
  2. treated as central government (116(4)) -> 0 % in the sovereign's domestic currency for EU
     Member States (114(4)), else sovereign Table 1 by the CQS;
  3. maturity on or before reporting date + 3 months -> short-term weight (116(3));
  4. entity rated -> rated table (116(2)); else unrated table by the sovereign's CQS (116(1));
  5. suggestion = min(current, rule); saving = amount x (current - suggestion) / 100.
The risk-weight notation (percent or fraction) is detected by majority as in the engine. A NIF
with a wrong control character is not matched, as in the engine. The output has the engine's
columns and texts: Suggested_Risk_Weight, RW_Delta, Capital_Saving, Analysis_Type,
Match_Status, Match_Details, Applied_Rule, Regulatory_Reference (other NIF errors than a wrong
control character, which the generated files do not hold, are reported as not found).
"""
import argparse
import json
import resource
import time

import numpy as np
import pandas as pd


def table(rules, key):
    t = rules[key]
    return t if isinstance(t, dict) else {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True)
    ap.add_argument("--refdata", required=True)
    ap.add_argument("--output", required=True)
    a = ap.parse_args()
    t0 = time.perf_counter()
    rules = json.load(open(f"{a.refdata}/pse_rules.json"))
    ref = pd.read_csv(f"{a.refdata}/pse_ref.csv", dtype=str, keep_default_na=False)
    sov = pd.read_csv(f"{a.refdata}/sovereigns_ref.csv", dtype=str, keep_default_na=False)
    df = pd.read_csv(a.input, dtype=str, keep_default_na=False)

    raw = df["NIF"].str.strip()
    nif = df["NIF"].str.upper().str.replace(r"[\s.\-/]", "", regex=True)
    nif = nif.where(~(nif.str.startswith("ES") & (nif.str.len() == 11)), nif.str[2:])
    cur = pd.to_numeric(df["Current_Risk_Weight"].str.replace("%", "", regex=False), errors="coerce")
    frac = int(((cur > 0) & (cur <= 1)).sum())
    pct = int((cur > 12.5).sum())
    scale = 100.0 if frac > pct else 1.0
    cur_pct = (cur * scale).fillna(100.0)
    amount = pd.to_numeric(df["Exposure_Amount"], errors="coerce")

    # NIF control character of legal-entity NIFs (key letter, 7 digits, control), as the engine
    # checks it: a letter for keys N, P, Q, R, S, W, a digit for A, B, E, H, either otherwise.
    shaped = nif.str.fullmatch(r"[A-HJ-NP-SUVW][0-9]{7}[0-9A-J]").fillna(False)
    digits = nif.str[1:8].where(shaped, "0000000")
    total = 0
    for i in range(7):
        d = digits.str[i].astype(int)
        total = total + (d if i % 2 == 1 else (d * 2) // 10 + (d * 2) % 10)
    ctl = (10 - total % 10) % 10
    letter = ctl.map(lambda c: "JABCDEFGHI"[c])
    key = nif.str[0]
    last = nif.str[8]
    want_letter = key.isin(list("NPQRSW"))
    want_digit = key.isin(list("ABEH"))
    ok = np.where(want_letter, last == letter,
                  np.where(want_digit, last == ctl.astype(str), (last == letter) | (last == ctl.astype(str))))
    expected = np.where(want_digit, ctl.astype(str), letter)
    bad_check = shaped.to_numpy() & ~ok
    missing = (nif == "").to_numpy()

    m = pd.DataFrame({"nif": nif}).merge(ref, on="nif", how="left")
    matched = m["country"].notna().to_numpy() & ~bad_check & ~missing
    s = m[["country"]].merge(sov, on="country", how="left")
    sov_cqs = m["own_gov_cqs"].where(m["own_gov_cqs"].fillna("") != "", s["cqs"]).fillna("")
    ccy = df["Currency"].str.strip().str.upper()
    domestic = ((s["eu_member"] == "Y") & (ccy == s["domestic_currency"])).to_numpy()

    sov_t1 = table(rules, "sov_t1")
    rated = table(rules, "pse_rated")
    unrated = table(rules, "pse_unrated")
    key = sov_cqs.where(sov_cqs != "", "U")
    rw_sov = key.map(sov_t1).astype(float)
    rw_cg = np.where(domestic, float(rules["sov_domestic"]), rw_sov)
    mat = pd.to_datetime(df["Maturity"], errors="coerce", format="%Y-%m-%d")
    limit = pd.Timestamp(rules["reporting_date"]) + pd.DateOffset(months=3)
    short = (mat <= limit).to_numpy()
    rw_rated = m["entity_cqs"].map(rated).astype(float)
    rw_unrated = key.map(unrated).astype(float)
    is_cg = (m["treated_as_cg"] == "Y").to_numpy()
    has_rating = m["entity_cqs"].fillna("").ne("").to_numpy()
    branch = np.select([is_cg & domestic, is_cg, short, has_rating], [0, 1, 2, 3], default=4)
    rule = np.select(
        [is_cg, short, has_rating],
        [rw_cg, float(rules["pse_short"]), rw_rated],
        default=rw_unrated,
    )
    rule = np.where(np.isnan(rule), cur_pct, rule)
    sugg = np.where(matched, np.minimum(cur_pct, rule), cur_pct)
    saving = np.where(amount.notna(), amount.fillna(0) * (cur_pct - sugg) / 100.0, 0.0)

    # The engine's texts: Applied_Rule, Regulatory_Reference, Match_Details.
    ids, refs = rules["ids"], rules["refs"]
    applied = np.select(
        [branch == 0, branch == 1, branch == 2, branch == 3],
        [f"{ids['pse_as_cg']} > {ids['sov_domestic']}", f"{ids['pse_as_cg']} > {ids['sov_t1']}",
         ids["pse_short"], ids["pse_rated"]],
        default=ids["pse_unrated"],
    )
    reference = np.select(
        [branch == 0, branch == 1, branch == 2, branch == 3],
        [f"{refs['pse_as_cg']}; {refs['sov_domestic']}", f"{refs['pse_as_cg']}; {refs['sov_t1']}",
         refs["pse_short"], refs["pse_rated"]],
        default=refs["pse_unrated"],
    )
    applied = np.where(matched, applied, "")
    reference = np.where(matched, reference, "")

    def pct_text(v):
        v = pd.Series(v)
        whole = (v - v.round()).abs() < 1e-9
        return np.where(whole, v.round().astype("Int64").astype(str) + "%",
                        v.map(lambda x: f"{x:.4f}".rstrip("0").rstrip(".") + "%"))

    country = m["country"].fillna("")
    cqs_text = np.where(sov_cqs != "", "CQS " + sov_cqs, "unrated")
    reason = np.select(
        [branch == 0, branch == 1, branch == 2, branch == 3],
        ["treated as central government " + country + ", exposure in its domestic currency",
         "treated as central government " + country + " (" + cqs_text + ")",
         "original maturity of three months or less",
         "own rating CQS " + m["entity_cqs"].fillna("")],
        default="unrated; central government " + country + " " + cqs_text,
    )
    rule_text = pct_text(rule)
    cur_text = pct_text(cur_pct.to_numpy())
    clamp = np.where(rule > cur_pct, "; current RW " + cur_text + " is below the regulatory RW " + rule_text + ": current kept", "")
    note = np.where(branch == 2, "; the Maturity given was taken as the original maturity (no Origination_Date): check it", "")
    matched_text = ("PSE " + m["legal_name"].fillna("") + " (NIF " + nif + "): " + reason
                    + "; regulatory RW " + rule_text + clamp + note)
    details = np.select(
        [missing, bad_check, matched],
        ["Missing required fields: NIF",
         "Invalid NIF " + raw + ": invalid check character (expected " + pd.Series(expected) + ")",
         matched_text],
        default="NIF " + nif + " not found in Spanish PSE database",
    )

    df["Suggested_Risk_Weight"] = sugg / scale
    df["RW_Delta"] = (cur_pct - sugg) / scale
    # Cents rounded half away from zero, as the engine writes them.
    df["Capital_Saving"] = np.sign(saving) * np.floor(np.abs(saving) * 100.0 + 0.5) / 100.0
    df["Analysis_Type"] = "PSE"
    df["Match_Status"] = np.where(matched, "matched", "not_matched")
    df["Match_Details"] = details
    df["Applied_Rule"] = applied
    df["Regulatory_Reference"] = reference
    df.to_csv(a.output, index=False)
    secs = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "cpu_secs": ru.ru_utime + ru.ru_stime,
        "rows": len(df),
        "secs": secs,
        "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "matched": int(matched.sum()),
        "total_saving": round(float(saving.sum()), 2),
    }))


if __name__ == "__main__":
    main()
