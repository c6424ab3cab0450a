"""Turns bench/run_bench.py's measurements into results.md and decode_vs_context.png.

  .venv/bin/python bench/report.py [bench/results/results.json]   (re-renders only)
"""
import json
import math
import os
import statistics
import sys


def pct(xs, q):
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def ok_runs(runs):
    return [r for r in runs if r.get("ok")]


def why(runs):
    for r in runs:
        if not r.get("ok"):
            e = r.get("error", "failed")
            return "unsupported" if "support" in e.lower() or "delegate" in e.lower() or "backend" in e.lower() else "error"
    return "not run"


def first_error(runs):
    for r in runs:
        if not r.get("ok"):
            return r.get("error", "")
    return ""


class Stat:
    def __init__(self, xs):
        self.xs = [x for x in xs if x is not None and not (isinstance(x, float) and math.isnan(x))]

    @property
    def ok(self):
        return bool(self.xs)

    @property
    def med(self):
        return statistics.median(self.xs)

    def fmt(self, unit="", digits=None):
        if not self.ok:
            return "-"
        m = self.med
        d = digits if digits is not None else (3 if m < 1 else 2 if m < 10 else 1 if m < 1000 else 0)
        if len(self.xs) >= 3:
            return f"{m:.{d}f}{unit} ({pct(self.xs, 0.25):.{d}f}-{pct(self.xs, 0.75):.{d}f})"
        return f"{m:.{d}f}{unit}"


def metrics(row):
    """Per runtime: name -> Stat (lower is better unless the name ends in '/s')."""
    out = {}
    for who in ("pte", "et", "pte_t1"):
        if who not in row:
            continue
        runs = ok_runs(row[who])
        m = {}
        if not runs:
            out[who] = None
            continue
        m["load ms"] = Stat([r["load_ms"] for r in runs])
        if all("load_cold_ms" in r for r in runs):
            m["load ms, first in the process"] = Stat([r["load_cold_ms"] for r in runs])
        if not any(r.get("in_server") for r in runs):
            m["peak RSS MiB"] = Stat([r["peak_rss_kb"] / 1024 for r in runs])
        if who == "et" and "peak RSS MiB" in m:
            m["peak RSS over interpreter MiB"] = Stat([(r["peak_rss_kb"] - r.get("base_rss_kb", 0)) / 1024 for r in runs])
        if row["group"] == "generate":
            m["prompt tokens"] = Stat([r["prompt_tokens"] for r in runs])
            m["generated tokens"] = Stat([r["generated_tokens"] for r in runs])
            m["prefill tokens/s"] = Stat([r["prompt_tokens"] * 1000 / r["prefill_ms"] for r in runs if r["prefill_ms"] > 0])
            m["time to first token ms"] = Stat([r["ttft_ms"] for r in runs])
            m["decode tokens/s"] = Stat([(r["generated_tokens"] - 1) * 1000 / r["decode_ms"] for r in runs
                                         if r["decode_ms"] > 0 and r["generated_tokens"] > 1])
        elif row["group"] != "smollm2":
            m["execute ms"] = Stat(sum((r["execute_ms"] for r in runs), []))
        else:
            S = runs[0]["prefill_tokens"]
            m[f"forward {S} tokens ms"] = Stat(sum((r["prefill_ms"] for r in runs), []))
            m["prefill tokens/s"] = Stat([S * 1000 / x for r in runs for x in r["prefill_ms"]])
            m["time to first token ms"] = Stat([r["ttft_cold_ms"][0] for r in runs])
            positions = [d["pos"] for d in runs[0]["decode"]]
            if positions:
                m["forward 1 token ms"] = Stat([x for r in runs for x in r["decode"][0]["ms"]])
            for i, p in enumerate(positions):
                m[f"decode tokens/s @{p}"] = Stat([1000 / x for r in runs for x in r["decode"][i]["ms"]])
            m["_positions"] = positions
            m["_profile"] = next((r["profile"] for r in runs if "profile" in r), None)
            m["_profile_steps"] = next((r.get("profile_steps") for r in runs if "profile" in r), None)
            m["_prefill_profile"] = next((r["prefill_profile"] for r in runs if "prefill_profile" in r), None)
        out[who] = m
    return out


def ratio(name, pte, et):
    """pte-run's advantage: >1 means pte-run is better (faster / smaller)."""
    if not pte or not et or not pte.ok or not et.ok or pte.med <= 0 or et.med <= 0:
        return None
    if name.endswith("/s") or "tokens/s" in name:
        return pte.med / et.med
    return et.med / pte.med


def write(res, outdir):
    md = []
    mach = res["machine"]
    md.append("# pte-run vs ExecuTorch 1.5.1 (official runtime, Python bindings)\n")
    md.append(f"Run {res['started']} to {res.get('finished', '?')} by `bench/run_bench.py` (see bench/README.md)"
              + (f"; cases not re-run are kept from the run of {res['merged_from']}" if res.get("merged_from") else "") + ".\n")
    md.append(f"- CPU: {mach.get('cpu')} ({mach.get('physical_cores')} physical cores, {mach.get('logical_cpus')} logical; "
              f"L2 {mach.get('L2 cache', '?')}, L3 {mach.get('L3 cache', '?')}; hypervisor {mach.get('Hypervisor vendor', 'none')})")
    md.append(f"- ISA flags: {mach.get('isa')}")
    md.append(f"- Memory: {mach.get('mem_total_gb', '?')} GB; {mach.get('platform')}")
    bw = None  # the copy bandwidth (the STREAM-style limit)
    rd_all = None  # the fastest all-core read measured in this run (the stricter limit)

    def med(st, k):
        return ((st or {}).get(k) or {}).get("median")

    for key, when in (("stream", "at the start"), ("stream_end", "after the SmolLM2 cases")):
        st = res.get(key)
        if not st or not med(st, "copy_gbs"):
            continue
        c = st["copy_gbs"]
        if bw is None:
            bw = c["median"]
        line = (f"- Memory bandwidth {when}: STREAM-style copy (2 x 256 MiB, read + write bytes, 1 thread) "
                f"**{c['median']:.1f} GB/s** median ({c['p25']:.1f}-{c['p75']:.1f}), scale {med(st, 'scale_gbs'):.1f}; "
                f"read-only sum, 1 thread {med(st, 'read_gbs'):.1f}")
        if med(st, "read_mt8_gbs"):
            line += (f"; read-only on all {st.get('threads', '?')} cores: {med(st, 'read_mt1_gbs'):.1f} GB/s with one stream "
                     f"per thread, **{med(st, 'read_mt8_gbs'):.1f} GB/s** with eight")
            rd_all = max(rd_all or 0.0, med(st, "read_mt8_gbs"))
        md.append(line)
    la0, la1 = res.get("loadavg_start"), res.get("loadavg_end")
    if la0:
        md.append(f"- Load average (1/5/15 min) at start {la0[0]:.1f}/{la0[1]:.1f}/{la0[2]:.1f}"
                  + (f", at end {la1[0]:.1f}/{la1[1]:.1f}/{la1[2]:.1f}" if la1 else "") + " on 2 cores")
    md.append(f"- pte-run threads: {res.get('pte_threads') or 'default (physical cores)'}; ExecuTorch: its defaults "
              "(portable kernels single-threaded, XNNPACK on its own thread pool)")
    md.append("- Shared 2-core VM with other jobs running: figures are medians with the interquartile range "
              "in parentheses; each runtime ran in its own process per repetition, alternating which went first.")
    md.append("- Ratio: pte-run's advantage (ExecuTorch time / pte-run time; for tokens/s pte-run / ExecuTorch); "
              "> 1 means pte-run is better. For load time and RSS the targets are stated as pte-run / ExecuTorch.\n")

    rows = res.get("rows", {})
    groups = [("smollm2", "SmolLM2-135M (method driven directly: forward and decode at a context position)"),
              ("generate", "SmolLM2-135M generation through each runtime's LLM runner (greedy)"), ("fixture", "Tiny fixtures (one forward)"), ("op", "Operator microbenchmarks")]
    plot = {}
    targets = []
    for g, title in groups:
        keys = [k for k, r in rows.items() if r["group"] == g]
        if not keys:
            continue
        md.append(f"## {title}\n")
        md.append("| case | variant | metric | pte-run | ExecuTorch | ratio |")
        md.append("| --- | --- | --- | --- | --- | --- |")
        for k in keys:
            row = rows[k]
            m = metrics(row)
            pte, et = m["pte"], m["et"]
            names = list((pte or et or {}).keys())
            if pte and et:
                names = [n for n in pte if not n.startswith("_")] + [n for n in et if n not in pte and not n.startswith("_")]
            names = [n for n in names if not n.startswith("_")]
            if not names:
                names = ["load ms"]
            if m.get("pte_t1"):
                t1 = m["pte_t1"]
                for n in [n for n in t1 if not n.startswith("_") and (n.startswith("decode") or n.startswith("prefill")
                                                                       or n.startswith("forward"))]:
                    r = ratio(n, t1[n], et.get(n) if et else None)
                    md.append(f"| {row['case']} | {row['variant']} | {n}, pte-run 1 thread | {t1[n].fmt()} | "
                              f"{et[n].fmt() if et and n in et else '-'} | {f'{r:.2f}x' if r is not None else '-'} |")
            for n in names:
                a = pte.get(n) if pte else None
                b = et.get(n) if et else None
                af = a.fmt() if a else f"{why(row['pte'])}"
                bf = b.fmt() if b else f"{why(row['et'])}"
                r = ratio(n, a, b)
                rs = f"{r:.2f}x" if r is not None else "-"
                md.append(f"| {row['case']} | {row['variant']} | {n} | {af} | {bf} | {rs} |")
            errs = [f"{who}: {first_error(row[who])}" for who in ("pte", "et") if not ok_runs(row[who]) and row[who]]
            for e in errs:
                md.append(f"| {row['case']} | {row['variant']} | note | {e[:160].replace('|', '/')} | | |")
            if g == "smollm2":
                v = row["variant"]
                for who in ("pte", "et"):
                    if m[who]:
                        plot[(v, who)] = [(p, m[who][f"decode tokens/s @{p}"]) for p in m[who]["_positions"]]
                targets.append((row, m))
        md.append("")

    if targets:
        md.append("## Targets (SmolLM2-135M, same run)\n")
        md.append("| variant | target | figure | met |")
        md.append("| --- | --- | --- | --- |")
        for row, m in targets:
            v = row["variant"]
            pte, et = m["pte"], m["et"]
            if not pte or not et:
                md.append(f"| {v} | all | pte-run: {why(row['pte']) if not pte else 'ok'}, ExecuTorch: {why(row['et']) if not et else 'ok'} | no |")
                if pte and bw:
                    pass
                else:
                    continue
            if pte and et:
                for p in pte["_positions"]:
                    n = f"decode tokens/s @{p}"
                    r = ratio(n, pte.get(n), et.get(n))
                    if r is not None:
                        md.append(f"| {v} | decode @{p} >= 1.25x | {r:.2f}x | {'yes' if r >= 1.25 else 'no'} |")
                r = ratio("prefill tokens/s", pte["prefill tokens/s"], et["prefill tokens/s"])
                if r is not None:
                    md.append(f"| {v} | prefill >= 1.0x | {r:.2f}x | {'yes' if r >= 1.0 else 'no'} |")
                t1 = m.get("pte_t1")
                if t1:
                    for p in t1["_positions"]:
                        n = f"decode tokens/s @{p}"
                        r = ratio(n, t1.get(n), et.get(n))
                        if r is not None:
                            md.append(f"| {v} | decode @{p} >= 1.25x (pte-run 1 thread) | {r:.2f}x | {'yes' if r >= 1.25 else 'no'} |")
                    r = ratio("prefill tokens/s", t1["prefill tokens/s"], et["prefill tokens/s"])
                    if r is not None:
                        md.append(f"| {v} | prefill >= 1.0x (pte-run 1 thread) | {r:.2f}x | {'yes' if r >= 1.0 else 'no'} |")
                lr = pte["load ms"].med / et["load ms"].med
                md.append(f"| {v} | load time <= 0.5x | {lr:.3f}x ({pte['load ms'].med:.1f} vs {et['load ms'].med:.1f} ms) | {'yes' if lr <= 0.5 else 'no'} |")
                rr = pte["peak RSS MiB"].med / et["peak RSS MiB"].med
                rr2 = pte["peak RSS MiB"].med / max(et["peak RSS over interpreter MiB"].med, 1e-9)
                md.append(f"| {v} | peak RSS <= 1.0x | {rr:.2f}x of the ExecuTorch process; {rr2:.2f}x of its RSS above the Python+torch baseline | {'yes' if rr <= 1.0 else 'no'}{'' if rr2 <= 1.0 else ' (no over baseline)'} |")
            if pte and bw and ("fp32" in v or v.startswith("portable")):
                wb = row.get("weight_bytes", 0)
                db = row.get("decode_bytes") or wb  # weights read per token: embedding tables give one row
                p0 = pte["_positions"][0] if pte["_positions"] else None
                cands = [("", pte)] + ([(" (1 thread)", m["pte_t1"])] if m.get("pte_t1") else [])
                for label, src in cands:
                  if p0 is not None and db and src.get(f"decode tokens/s @{p0}") and src[f"decode tokens/s @{p0}"].ok:
                    tps = src[f"decode tokens/s @{p0}"].med
                    gbs = tps * db / 1e9
                    # bandwidths measured just before and after this variant's runs (the higher
                    # of the two), else the run's start and end
                    near = [x for x in row.get("stream_near") or [] if x and x.get("copy_gbs")]
                    cbw = max(x["copy_gbs"] for x in near) if near else bw
                    rd = max((x["read_mt8_gbs"] or 0) for x in near) if near else rd_all
                    when = "beside this variant" if near else "at the run's start and end"
                    frac = gbs / cbw
                    strict = f"; vs the all-core read ({rd:.1f} GB/s): {100 * gbs / rd:.0f}%" if rd else ""
                    met = frac >= 0.7 and (not rd or gbs / rd >= 0.7)
                    md.append(f"| {v} | decode @{p0}{label} >= 70% of bandwidth limit | {tps:.2f} tok/s x {db / 1e6:.0f} MB read "
                              f"per token (of {wb / 1e6:.0f} MB weights) = {gbs:.1f} GB/s: {100 * frac:.0f}% of the copy "
                              f"({cbw:.1f} GB/s){strict}; bandwidth measured {when} | {'yes' if met else 'no'} |")
        md.append("")
        prof_rows = [(row, m["pte"]) for row, m in targets if m["pte"] and m["pte"].get("_profile")]
        for row, pm in prof_rows:
            steps = pm["_profile_steps"] or 1
            total = sum(p["ms"] for p in pm["_profile"])
            md.append(f"### pte-run decode profile, {row['variant']} (per token at position {pm['_positions'][0]}, "
                      f"{total / steps:.2f} ms in kernels)\n")
            md.append("| operator | ms per token | share | calls per token |")
            md.append("| --- | --- | --- | --- |")
            for p in pm["_profile"][:12]:
                md.append(f"| {p['op']} | {p['ms'] / steps:.3f} | {100 * p['ms'] / total:.1f}% | {p['calls'] // steps} |")
            md.append("")
            if pm.get("_prefill_profile"):
                pp = pm["_prefill_profile"]
                tot = sum(p["ms"] for p in pp)
                md.append(f"### pte-run prefill profile, {row['variant']} (one forward of the prefill chunk, {tot:.0f} ms in kernels)\n")
                md.append("| operator | ms | share | calls |")
                md.append("| --- | --- | --- | --- |")
                for p in pp[:10]:
                    md.append(f"| {p['op']} | {p['ms']:.2f} | {100 * p['ms'] / tot:.1f}% | {p['calls']} |")
                md.append("")

    if plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots(figsize=(7, 4.5))
            for (v, who), pts in sorted(plot.items()):
                xs = [p for p, s in pts if s.ok]
                ys = [s.med for p, s in pts if s.ok]
                if xs:
                    ax.plot(xs, ys, marker="o", linestyle="-" if who == "pte" else "--",
                            label=f"{'pte-run' if who == 'pte' else 'ExecuTorch'} {v}")
            ax.set_xlabel("context position (tokens in the KV cache)")
            ax.set_ylabel("decode tokens/s (median)")
            ax.set_title("SmolLM2-135M decode speed vs context")
            ax.set_yscale("log")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(os.path.join(outdir, "decode_vs_context.png"), dpi=110)
            md.append("![decode tokens/s vs context](decode_vs_context.png)\n")
        except ImportError:
            md.append("(matplotlib missing: `pip install -r bench/requirements.txt` for the plot)\n")

    if res.get("llm3"):
        write_llm3(md, res, outdir)

    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")


LLM3_WHO = (("pte", "pte-run CLI"), ("et", "ExecuTorch TextLLMRunner"), ("llama", "llama.cpp"))


def llm3_values(res, who, metric, arg):
    """One repetition's figure of a runtime for a metric, or None."""
    if not res.get("ok"):
        return None
    runs = res.get("runs", [])
    if metric == "prefill_first":  # the first call of a process: pte-run's and the runner's
        # shortest prompt is their first (one pte-run process per prompt; the runner's
        # prompts in order of length); llama.cpp's from its run without a warm-up
        key = "prefill_first_tps" if who == "llama" else "prefill_tps"
        if who != "llama" and runs and arg != min(r["L"] for r in runs):
            return None
        for r in runs:
            if r.get("L") == arg and r.get(key):
                return r[key]
        return None
    if metric in ("decode", "prefill"):
        key = f"{metric}_tps"
        for r in runs:
            if r.get("L") == arg and r.get(key):
                return r[key]
        return None
    # the shortest prompt's run: the first call of its process (the runner's prompts in order)
    first = min(runs, key=lambda r: r["L"]) if runs else None
    if metric == "ttft":  # load + that first call's prefill (llama.cpp: llama-completion's
        # load, which ends with its warm-up run, + its evaluation of the same prompt)
        load = llm3_values(res, who, "load", None)
        if who == "llama":
            call = res.get("prompt_eval_ms")
        else:
            call = first["prompt_tokens"] * 1000 / first["prefill_tps"] if first and first.get("prefill_tps") else None
        return None if load is None or call is None else load + call
    if metric == "rss_over_base" and who != "et":
        return None  # only the ExecuTorch process carries Python and torch
    if who == "llama":
        x = res.get("load_ms" if metric == "load" else "peak_rss_kb")
        return None if x is None else (x if metric == "load" else x / 1024)
    if not first:
        return None
    if metric == "load":
        return first.get("load_ms")
    rss = first.get("peak_rss_kb")
    if rss is None:
        return None
    if metric == "rss_over_base":
        return (rss - res.get("base_rss_kb", 0)) / 1024 if who == "et" else None
    return rss / 1024


def llm3_best(v, who, metric, arg):
    """(Stat, thread count) at the thread count with the better median."""
    best = None
    for t, reps in sorted(v["runs"].get(who, {}).items(), key=lambda kv: int(kv[0])):
        st = Stat([llm3_values(r, who, metric, arg) for r in reps])
        if not st.ok:
            continue
        higher = metric in ("decode", "prefill", "prefill_first")
        if best is None or (st.med > best[0].med if higher else st.med < best[0].med):
            best = (st, int(t))
    return best


def llm3_keys(res):
    """The llm3 runs in report order: SmolLM2 idle, loaded, then other model sets."""
    return sorted(res["llm3"], key=lambda k: ("/" in k, k))


def llm3_bandwidth(md, r, v, name):
    """fp32 decode against the bandwidth limit: bytes read per token (the weights a step reads
    plus the KV cache up to the context) / the bandwidth measured beside the runs."""
    near = [x for x in r.get("stream_near") or [] if x and x.get("copy_gbs")]
    db = v.get("decode_bytes")
    if not near or not db:
        return
    cbw = max(x["copy_gbs"] for x in near)
    rd = max((x.get("read_mt8_gbs") or 0) for x in near) or None
    kv = v.get("kv_bytes_per_position") or {}
    label = v.get("model_label", "SmolLM2-135M")
    md.append(f"Bandwidth limit of {label} fp32 decode: bytes read per token = {db / 1e6:.0f} MB of weights (the "
              f"program's {v.get('weight_bytes', 0) / 1e6:.0f} MB of constant data, less the embedding table but the "
              f"row a token reads) + the KV cache up to the context"
              + (f" ({kv['fp32'] / 1e3:.0f} KB per position in fp32, {kv['f16'] / 1e3:.0f} KB in llama.cpp's f16)"
                 if kv.get("fp32") else " (unknown: no config.json beside the model; weights only)")
              + f"; divided by the highest bandwidth `pte-bench stream` measured before the run and after each "
              f"repetition: STREAM-style copy {cbw:.1f} GB/s"
              + (f", all-core eight-stream read {rd:.1f} GB/s" if rd else "")
              + f" ({len(near)} measurements). The issue's target: pte-run's fp32 decode >= 85% of the limit at 0.6 B.\n")
    md.append("| context | MB read per token (.pte / llama.cpp) | limit tok/s, copy" + (" / all-core read" if rd else "")
              + " | pte-run tok/s (% of limit) | ExecuTorch tok/s (%) | llama.cpp F32 tok/s (%) | pte-run >= 85% |")
    md.append("| --- | --- | --- | --- | --- | --- | --- |")
    for c in r["decode_ctx"]:
        if c in v.get("skipped_prompts", []):
            continue
        b32 = db + (kv.get("fp32") or 0) * c
        b16 = db + (kv.get("f16") or 0) * c
        lim = lambda b: (cbw * 1e9 / b, rd * 1e9 / b if rd else None)
        l32 = lim(b32)
        cells = []
        met = "-"
        for who, nbytes in (("pte", b32), ("et", b32), ("llama", b16)):
            best = llm3_best(v, who, "decode", c)
            if not best:
                cells.append("-")
                continue
            tps = best[0].med
            lc, lr = lim(nbytes)
            pc = 100 * tps / lc
            pr = 100 * tps / lr if lr else None
            cells.append(f"{tps:.2f} ({pc:.0f}%" + (f" / {pr:.0f}%" if pr is not None else "") + ")")
            if who == "pte":
                met = "yes" if pc >= 85 and (pr is None or pr >= 85) else "no"
        md.append(f"| {c} | {b32 / 1e6:.0f} / {b16 / 1e6:.0f} | {l32[0]:.2f}" + (f" / {l32[1]:.2f}" if l32[1] else "")
                  + f" | {' | '.join(cells)} | {met} |")
    md.append("")


def write_llm3(md, res, outdir):
    md.append("## LLMs end to end: pte-run, ExecuTorch's LLM runner and llama.cpp (`--only llm3`)\n")
    md.append("Each runtime as a user runs it, one interleaved run per load state (bench/llm3.py, bench/README.md): "
              "pte-run's CLI (`pte-run MODEL.pte --prompt-file F -n N --ignore-eos --json --threads T`, a process per "
              "prompt); ExecuTorch's C++ `TextLLMRunner` (one process per repetition and thread count, one `generate` "
              "per prompt); llama.cpp's `llama-bench` for prefill and decode (`-p S -n 0`, `-p 0 -n N -d C`) and "
              "`llama-completion` for load time (its own figure, which ends with its warm-up evaluation) and peak RSS. Decode at context C: the N new tokens after a C-token "
              "prompt (llama-bench: N tokens at depth C, without sampling). Each cell is the median over repetitions "
              "at the runtime's better thread count (`tN`); the ratio columns are pte-run / the other runtime "
              "(> 1 is better for tokens/s, < 1 for ms and MiB). SmolLM2-135M is the pretrained model; Qwen3-0.6B "
              "and Llama-3.2-1B have their published shapes and seeded random weights (bench/make_scaled.py), "
              "so their generated text means nothing and only their speed is measured.\n")
    for key in llm3_keys(res):
        r = res["llm3"].get(key)
        mode = key.split("/")[0]
        if not r:
            continue
        models = key.split("/", 1)[1] if "/" in key else "smollm2"
        if r.get("error"):
            md.append(f"### {mode} ({models}): not run ({r['error']})\n")
            continue
        la0, la1, dur = r.get("loadavg_start"), r.get("loadavg_end"), r.get("loadavg_1min_during")
        title = "no background load" if mode == "idle" else "with a background load"
        labels = sorted({v.get("model_label", "SmolLM2-135M") for v in r["variants"].values()})
        md.append(f"### {', '.join(labels)}, {title}: run {r['started']} to {r.get('finished', '?')}\n")
        if r.get("quick"):
            md.append("**Smoke run** (`--quick`: one repetition, 16 new tokens) on a machine shared with builds and "
                      "tests: it shows that the harness runs end to end; its figures are contended and say nothing "
                      "about how the runtimes compare.\n")
        state = [f"- Machine state: load average (1/5/15 min) {la0[0]:.1f}/{la0[1]:.1f}/{la0[2]:.1f} at the start"]
        if la1:
            state[0] += f", {la1[0]:.1f}/{la1[1]:.1f}/{la1[2]:.1f} at the end"
        if dur:
            state[0] += f"; 1-minute load average between {dur[0]:.1f} and {dur[1]:.1f} during the measurements"
        if r.get("cpu"):
            state.append(f"- CPU: {r['cpu']}")
        state.append(f"- Background load: {r.get('background_load') or 'none started by the harness'}")
        state.append(f"- {r['reps']} repetition(s), threads tried {', '.join(map(str, r['threads']))}, "
                     f"{r['new_tokens']} new tokens per generation; prompt lengths (tokenizer count) "
                     + ", ".join(f"{k}" for k in r.get("prompt_tokens", {}).values()))
        if r.get("llama_cpp_commit"):
            state.append(f"- llama.cpp {r['llama_cpp_commit']} (vendored by llama-cpp-python 0.3.36, built by "
                         "bench/peers/llama_cpp.sh: Release, native CPU, CPU backend only); its KV cache is f16 "
                         "(the default), the .pte files' caches are fp32 (fp16 in the fp16 exports)")
        md.extend(state)
        md.append("")
        plots = {}  # model -> label -> points
        for vkey, v in r["variants"].items():
            name = v.get("variant", vkey)
            mlabel = v.get("model_label", "SmolLM2-135M")
            plot = plots.setdefault(v.get("model", "smollm2"), {})
            if v.get("pte"):
                md.append(f"#### {mlabel} {name}: `{v['pte']}` (context {v.get('max_context') or '?'}) against "
                          f"`{v.get('gguf') or '-'}`\n")
            elif v.get("pte_file"):
                md.append(f"#### {mlabel} {name}: `{v['pte_file']}` not present (bench/README.md says how to make it); "
                          f"llama.cpp alone, `{v.get('gguf') or '-'}`\n")
            else:
                md.append(f"#### {mlabel} {name}: llama.cpp alone, `{v.get('gguf') or '-'}` (no .pte counterpart)\n")
            if v.get("skipped_prompts"):
                md.append(f"Prompts of {', '.join(map(str, v['skipped_prompts']))} tokens do not fit the .pte's cache: "
                          "its cells are empty there.\n")
            md.append(f"| {mlabel} {name} | pte-run CLI | ExecuTorch TextLLMRunner | llama.cpp {v.get('gguf_type')} "
                      "| pte-run / ExecuTorch | pte-run / llama.cpp |")
            md.append("| --- | --- | --- | --- | --- | --- |")
            rows = ([("decode", c, f"decode tok/s at context {c}") for c in r["decode_ctx"]]
                    + [("prefill", s, f"prefill tok/s, {s} tokens") for s in r["prefill"]]
                    + [("prefill_first", s, f"prefill tok/s, {s} tokens, first call of a process (llama.cpp: "
                        "without its warm-up)") for s in r["prefill"][:1]]
                    + [("load", None, "load ms")]
                    + [("ttft", s, f"load + first {s}-token prefill ms (time to first token)") for s in r["prefill"][:1]]
                    + [("rss", None, "peak RSS MiB"), ("rss_over_base", None, "peak RSS above Python+torch MiB")])
            for metric, arg, label in rows:
                cells, meds = [], {}
                for who, _ in LLM3_WHO:
                    b = llm3_best(v, who, metric, arg)
                    if b:
                        meds[who] = b[0].med
                        cells.append(f"{b[0].fmt()} (t{b[1]})")
                    else:
                        cells.append("-")
                    if metric == "decode" and b:
                        lab = f"llama.cpp {v.get('gguf_type')}" if who == "llama" else f"{dict(LLM3_WHO)[who]} {name}"
                        plot.setdefault(lab, {"who": who, "pts": []})["pts"].append((arg, b[0].med))
                if metric == "rss_over_base" and "et" not in meds:
                    continue
                ratios = []
                for other in ("et", "llama"):
                    if "pte" in meds and other in meds and meds[other] > 0 and metric != "rss_over_base":
                        ratios.append(f"{meds['pte'] / meds[other]:.2f}x")
                    else:
                        ratios.append("-")
                md.append(f"| {label} | {' | '.join(cells)} | {' | '.join(ratios)} |")
            errs = []
            for who, wname in LLM3_WHO:
                for t, reps in v["runs"].get(who, {}).items():
                    for x in reps:
                        if not x.get("ok") and x.get("error"):
                            errs.append(f"{wname} t{t}: {x['error']}")
                        if x.get("load_error"):
                            errs.append(f"{wname} t{t}: {x['load_error']}")
            for e in sorted(set(errs))[:6]:
                md.append(f"\n- error: {e[:200]}")
            md.append("")
            if name == "fp32":
                llm3_bandwidth(md, r, v, name)
        for model, plot in plots.items():
            if not plot:
                continue
            mlabel = next((v.get("model_label", "SmolLM2-135M") for v in r["variants"].values() if v.get("model", "smollm2") == model),
                          "SmolLM2-135M")
            try:
                import matplotlib

                matplotlib.use("Agg")
                import matplotlib.pyplot as plt

                fig, ax = plt.subplots(figsize=(7, 4.5))
                styles = {"pte": "-", "et": "--", "llama": ":"}
                for lab, c in sorted(plot.items()):
                    ax.plot([p for p, _ in c["pts"]], [y for _, y in c["pts"]], marker="o",
                            linestyle=styles[c["who"]], label=lab)
                ax.set_xscale("log", base=2)
                ax.set_xlabel("context (tokens in the KV cache)")
                ax.set_ylabel("decode tokens/s (median, better thread count)")
                ax.set_title(f"{mlabel} decode vs context, {title}" + (" (smoke run)" if r.get("quick") else ""))
                ax.grid(True, alpha=0.3)
                ax.legend(fontsize=8)
                fig.tight_layout()
                only = key.split(":", 1)[1].replace(",", "-") if ":" in key else ""  # --llm3-variants runs
                png = (f"llm3_decode_vs_context_{mode}.png" if model == "smollm2" and not only
                       else f"llm3_{model}{'-' + only if only else ''}_decode_vs_context_{mode}.png")
                fig.savefig(os.path.join(outdir, png), dpi=110)
                plt.close(fig)
                md.append(f"![{mlabel} decode tokens/s vs context, {title}]({png})\n")
            except ImportError:
                md.append("(matplotlib missing: `pip install -r bench/requirements.txt` for the plot)\n")


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "results.json")
    with open(path) as f:
        write(json.load(f), os.path.dirname(path))
