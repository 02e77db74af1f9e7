"""PSE lever rules applied with polars (lazy, streaming where it can): the same rules and tables
as pse_pandas.py (see there). Prints one JSON line: rows, seconds, peak memory (kB), saving."""
import argparse
import json
import resource
import time
from datetime import date

import polars as pl


def table(rules, key):
    t = rules[key]
    return t if isinstance(t, dict) else {}


def lookup(expr, mapping):
    return expr.replace_strict(mapping, default=None, return_dtype=pl.Float64)


def add_months(d, n):
    y, m = d.year + (d.month - 1 + n) // 12, (d.month - 1 + n) % 12 + 1
    for day in (d.day, 30, 29, 28):
        try:
            return date(y, m, day)
        except ValueError:
            continue


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True)
    ap.add_argument("--refdata", required=True)
    ap.add_argument("--output", required=True)
    a = ap.parse_args()
    t0 = time.perf_counter()
    rules = json.load(open(f"{a.refdata}/pse_rules.json"))
    ref = pl.read_csv(f"{a.refdata}/pse_ref.csv", infer_schema=False)
    sov = pl.read_csv(f"{a.refdata}/sovereigns_ref.csv", infer_schema=False)
    df = pl.read_csv(a.input, infer_schema=False)

    cur = pl.col("Current_Risk_Weight").str.replace("%", "", literal=True).cast(pl.Float64, strict=False)
    votes = df.select(
        ((cur > 0) & (cur <= 1)).sum().alias("frac"),
        (cur > 12.5).sum().alias("pct"),
    ).row(0)
    scale = 100.0 if votes[0] > votes[1] else 1.0
    limit = add_months(date.fromisoformat(rules["reporting_date"]), 3)

    nif = pl.col("NIF").fill_null("").str.to_uppercase().str.replace_all(r"[\s.\-]", "")
    nif = pl.when(nif.str.starts_with("ES") & (nif.str.len_chars() == 11)).then(nif.str.slice(2)).otherwise(nif)
    out = (
        df.with_columns(
            nif.alias("_nif"),
            (cur * scale).fill_null(100.0).alias("_cur"),
            pl.col("Exposure_Amount").cast(pl.Float64, strict=False).alias("_amt"),
            pl.col("Maturity").str.to_date("%Y-%m-%d", strict=False).alias("_mat"),
            pl.col("Currency").fill_null("").str.strip_chars().str.to_uppercase().alias("_ccy"),
        )
        .join(ref.rename({"nif": "_nif"}), on="_nif", how="left", maintain_order="left")
        .join(sov.rename({"cqs": "_sov_cqs"}), on="country", how="left", maintain_order="left")
    )
    key = (
        pl.when(pl.col("own_gov_cqs").fill_null("") != "").then(pl.col("own_gov_cqs"))
        .otherwise(pl.col("_sov_cqs")).fill_null("")
    )
    key = pl.when(key == "").then(pl.lit("U")).otherwise(key)
    domestic = (pl.col("eu_member") == "Y") & (pl.col("_ccy") == pl.col("domestic_currency"))
    rw_cg = pl.when(domestic).then(pl.lit(float(rules["sov_domestic"]))).otherwise(lookup(key, table(rules, "sov_t1")))
    rule = (
        pl.when(pl.col("treated_as_cg") == "Y").then(rw_cg)
        .when(pl.col("_mat") <= limit).then(pl.lit(float(rules["pse_short"])))
        .when(pl.col("entity_cqs").fill_null("") != "").then(lookup(pl.col("entity_cqs"), table(rules, "pse_rated")))
        .otherwise(lookup(key, table(rules, "pse_unrated")))
    )
    matched = pl.col("country").is_not_null()
    sugg = pl.when(matched & rule.is_not_null()).then(pl.min_horizontal(pl.col("_cur"), rule)).otherwise(pl.col("_cur"))
    out = out.with_columns(sugg.alias("_sugg"), matched.alias("_matched"))
    saving = (pl.col("_amt").fill_null(0.0) * (pl.col("_cur") - pl.col("_sugg")) / 100.0)
    out = out.with_columns(
        (pl.col("_sugg") / scale).alias("Suggested_Risk_Weight"),
        ((pl.col("_cur") - pl.col("_sugg")) / scale).alias("RW_Delta"),
        saving.round(2).alias("Capital_Saving"),
        pl.lit("PSE").alias("Analysis_Type"),
        pl.when(pl.col("_matched")).then(pl.lit("matched")).otherwise(pl.lit("not_matched")).alias("Match_Status"),
        saving.alias("_saving"),
    )
    total = out.select(pl.col("_saving").sum()).item()
    n_matched = out.select(pl.col("_matched").sum()).item()
    out.select(df.columns + ["Suggested_Risk_Weight", "RW_Delta", "Capital_Saving", "Analysis_Type", "Match_Status"]).write_csv(a.output)
    secs = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "cpu_secs": ru.ru_utime + ru.ru_stime,
        "rows": out.height,
        "secs": secs,
        "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "matched": int(n_matched),
        "total_saving": round(float(total), 2),
    }))


if __name__ == "__main__":
    main()
