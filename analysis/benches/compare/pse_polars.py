"""PSE lever rules applied with polars: the same rules, tables, NIF check and output columns and
texts as pse_pandas.py (see there). Prints one JSON line: rows, seconds, peak memory (kB), saving."""
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

    nif = pl.col("NIF").fill_null("").str.to_uppercase().str.replace_all(r"[\s.\-/]", "")
    nif = pl.when(nif.str.starts_with("ES") & (nif.str.len_chars() == 11)).then(nif.str.slice(2)).otherwise(nif)
    out = df.with_columns(
        nif.alias("_nif"),
        pl.col("NIF").fill_null("").str.strip_chars().alias("_raw"),
        (cur * scale).fill_null(100.0).alias("_cur"),
        pl.col("Exposure_Amount").cast(pl.Float64, strict=False).alias("_amt"),
        pl.col("Maturity").str.to_date("%Y-%m-%d", strict=False).alias("_mat"),
        pl.col("Currency").fill_null("").str.strip_chars().str.to_uppercase().alias("_ccy"),
    )
    # NIF control character of legal-entity NIFs, as the engine checks it (see pse_pandas.py).
    shaped = pl.col("_nif").str.contains(r"^[A-HJ-NP-SUVW][0-9]{7}[0-9A-J]$")
    d = [pl.col("_nif").str.slice(1 + i, 1).cast(pl.Int64, strict=False).fill_null(0) for i in range(7)]
    total = pl.sum_horizontal([d[i] if i % 2 == 1 else (d[i] * 2) // 10 + (d[i] * 2) % 10 for i in range(7)])
    ctl = (10 - total % 10) % 10
    letter = ctl.replace_strict({i: "JABCDEFGHI"[i] for i in range(10)}, return_dtype=pl.Utf8)
    key_l = pl.col("_nif").str.slice(0, 1)
    last = pl.col("_nif").str.slice(8, 1)
    want_letter = key_l.is_in(list("NPQRSW"))
    want_digit = key_l.is_in(list("ABEH"))
    ok = (pl.when(want_letter).then(last == letter)
          .when(want_digit).then(last == ctl.cast(pl.Utf8))
          .otherwise((last == letter) | (last == ctl.cast(pl.Utf8))))
    out = out.with_columns(
        (shaped & ~ok).alias("_bad"),
        pl.when(want_digit).then(ctl.cast(pl.Utf8)).otherwise(letter).alias("_expected"),
        (pl.col("_nif") == "").alias("_missing"),
    )
    out = (
        out.join(ref.rename({"nif": "_nif"}), on="_nif", how="left", maintain_order="left")
        .join(sov.rename({"cqs": "_sov_cqs"}), on="country", how="left", maintain_order="left")
    )
    key = (
        pl.when(pl.col("own_gov_cqs").fill_null("") != "").then(pl.col("own_gov_cqs"))
        .otherwise(pl.col("_sov_cqs")).fill_null("")
    )
    out = out.with_columns(key.alias("_cqs"))
    key = pl.when(pl.col("_cqs") == "").then(pl.lit("U")).otherwise(pl.col("_cqs"))
    domestic = (pl.col("eu_member") == "Y") & (pl.col("_ccy") == pl.col("domestic_currency"))
    is_cg = pl.col("treated_as_cg") == "Y"
    short = pl.col("_mat") <= limit
    has_rating = pl.col("entity_cqs").fill_null("") != ""
    branch = (pl.when(is_cg & domestic).then(0).when(is_cg).then(1).when(short).then(2)
              .when(has_rating).then(3).otherwise(4))
    rw_cg = pl.when(domestic).then(pl.lit(float(rules["sov_domestic"]))).otherwise(lookup(key, table(rules, "sov_t1")))
    rule = (
        pl.when(is_cg).then(rw_cg)
        .when(short).then(pl.lit(float(rules["pse_short"])))
        .when(has_rating).then(lookup(pl.col("entity_cqs"), table(rules, "pse_rated")))
        .otherwise(lookup(key, table(rules, "pse_unrated")))
    )
    matched = pl.col("country").is_not_null() & ~pl.col("_bad") & ~pl.col("_missing")
    out = out.with_columns(branch.alias("_branch"), pl.coalesce(rule, pl.col("_cur")).alias("_rule"), matched.alias("_matched"))
    sugg = pl.when(pl.col("_matched")).then(pl.min_horizontal(pl.col("_cur"), pl.col("_rule"))).otherwise(pl.col("_cur"))
    out = out.with_columns(sugg.alias("_sugg"))
    saving = (pl.col("_amt").fill_null(0.0) * (pl.col("_cur") - pl.col("_sugg")) / 100.0)

    # The engine's texts.
    ids, refs = rules["ids"], rules["refs"]

    def lit(v):
        return pl.lit(v) if isinstance(v, str) else v

    def pick(values, default):
        e = pl.when(pl.col("_branch") == 0).then(lit(values[0]))
        for i, v in enumerate(values[1:], start=1):
            e = e.when(pl.col("_branch") == i).then(lit(v))
        return e.otherwise(lit(default))

    applied = pick([f"{ids['pse_as_cg']} > {ids['sov_domestic']}", f"{ids['pse_as_cg']} > {ids['sov_t1']}",
                    ids["pse_short"], ids["pse_rated"]], ids["pse_unrated"])
    reference = pick([f"{refs['pse_as_cg']}; {refs['sov_domestic']}", f"{refs['pse_as_cg']}; {refs['sov_t1']}",
                      refs["pse_short"], refs["pse_rated"]], refs["pse_unrated"])

    def pct_text(e):
        whole = (e - e.round(0)).abs() < 1e-9
        frac = e.round(4).cast(pl.Utf8).str.replace(r"\.?0+$", "")
        return pl.when(whole).then(e.round(0).cast(pl.Int64).cast(pl.Utf8)).otherwise(frac) + pl.lit("%")

    country = pl.col("country").fill_null("")
    cqs_text = pl.when(pl.col("_cqs") != "").then(pl.lit("CQS ") + pl.col("_cqs")).otherwise(pl.lit("unrated"))
    reason = pick([
        pl.lit("treated as central government ") + country + pl.lit(", exposure in its domestic currency"),
        pl.lit("treated as central government ") + country + pl.lit(" (") + cqs_text + pl.lit(")"),
        "original maturity of three months or less",
        pl.lit("own rating CQS ") + pl.col("entity_cqs").fill_null(""),
    ], pl.lit("unrated; central government ") + country + pl.lit(" ") + cqs_text)
    rule_text = pct_text(pl.col("_rule"))
    clamp = pl.when(pl.col("_rule") > pl.col("_cur")).then(
        pl.lit("; current RW ") + pct_text(pl.col("_cur")) + pl.lit(" is below the regulatory RW ") + rule_text + pl.lit(": current kept")
    ).otherwise(pl.lit(""))
    note = pl.when(pl.col("_branch") == 2).then(
        pl.lit("; the Maturity given was taken as the original maturity (no Origination_Date): check it")
    ).otherwise(pl.lit(""))
    details = (
        pl.when(pl.col("_missing")).then(pl.lit("Missing required fields: NIF"))
        .when(pl.col("_bad")).then(pl.lit("Invalid NIF ") + pl.col("_raw") + pl.lit(": invalid check character (expected ") + pl.col("_expected") + pl.lit(")"))
        .when(pl.col("_matched")).then(
            pl.lit("PSE ") + pl.col("legal_name").fill_null("") + pl.lit(" (NIF ") + pl.col("_nif") + pl.lit("): ")
            + reason + pl.lit("; regulatory RW ") + rule_text + clamp + note)
        .otherwise(pl.lit("NIF ") + pl.col("_nif") + pl.lit(" not found in Spanish PSE database"))
    )
    out = out.with_columns(
        (pl.col("_sugg") / scale).alias("Suggested_Risk_Weight"),
        ((pl.col("_cur") - pl.col("_sugg")) / scale).alias("RW_Delta"),
        # Cents rounded half away from zero, as the engine writes them.
        ((saving.abs() * 100.0 + 0.5).floor() / 100.0 * saving.sign()).alias("Capital_Saving"),
        pl.lit("PSE").alias("Analysis_Type"),
        pl.when(pl.col("_matched")).then(pl.lit("matched")).otherwise(pl.lit("not_matched")).alias("Match_Status"),
        details.alias("Match_Details"),
        pl.when(pl.col("_matched")).then(applied).otherwise(pl.lit("")).alias("Applied_Rule"),
        pl.when(pl.col("_matched")).then(reference).otherwise(pl.lit("")).alias("Regulatory_Reference"),
        saving.alias("_saving"),
    )
    total = out.select(pl.col("_saving").sum()).item()
    n_matched = out.select(pl.col("_matched").sum()).item()
    out.select(df.columns + ["Suggested_Risk_Weight", "RW_Delta", "Capital_Saving", "Analysis_Type",
                             "Match_Status", "Match_Details", "Applied_Rule", "Regulatory_Reference"]).write_csv(a.output)
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
