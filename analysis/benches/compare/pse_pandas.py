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
The risk-weight notation (percent or fraction) is detected by majority as in the engine.
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

    nif = df["NIF"].str.upper().str.replace(r"[\s.\-]", "", regex=True)
    nif = nif.where(~(nif.str.startswith("ES") & (nif.str.len() == 11)), nif.str[2:])
    cur = pd.to_numeric(df["Current_Risk_Weight"].str.replace("%", "", regex=False), errors="coerce")
    frac = int(((cur > 0) & (cur <= 1)).sum())
    pct = int((cur > 12.5).sum())
    scale = 100.0 if frac > pct else 1.0
    cur_pct = (cur * scale).fillna(100.0)
    amount = pd.to_numeric(df["Exposure_Amount"], errors="coerce")

    m = pd.DataFrame({"nif": nif}).merge(ref, on="nif", how="left")
    matched = m["country"].notna().to_numpy()
    s = m[["country"]].merge(sov, on="country", how="left")
    sov_cqs = m["own_gov_cqs"].where(m["own_gov_cqs"].fillna("") != "", s["cqs"]).fillna("")
    ccy = df["Currency"].str.strip().str.upper()
    domestic = (s["eu_member"] == "Y") & (ccy == s["domestic_currency"])

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
    rule = np.select(
        [is_cg, short, has_rating],
        [rw_cg, float(rules["pse_short"]), rw_rated],
        default=rw_unrated,
    )
    rule = np.where(np.isnan(rule), cur_pct, rule)
    sugg = np.where(matched, np.minimum(cur_pct, rule), cur_pct)
    saving = np.where(amount.notna(), amount.fillna(0) * (cur_pct - sugg) / 100.0, 0.0)

    df["Suggested_Risk_Weight"] = sugg / scale
    df["RW_Delta"] = (cur_pct - sugg) / scale
    df["Capital_Saving"] = np.round(saving, 2)
    df["Analysis_Type"] = "PSE"
    df["Match_Status"] = np.where(matched, "matched", "not_matched")
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
