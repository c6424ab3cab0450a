"""pte-run vs the official ExecuTorch runtime, side by side on this machine.

  .venv/bin/python bench/run_bench.py [--quick] [--only ops,fixtures,smollm2,llm3] [--reps N]
      [--background-load] [--merge]

Each case runs the same .pte through `build/bench/pte-bench` (C++, in-process timing)
and through `bench/et_worker.py` (executorch.runtime bindings), each runtime in its
own subprocess per repetition (load time and peak RSS per process), alternating which
runtime goes first. Medians are over all timed calls of all repetitions; spread is
the interquartile range (p25-p75). Writes bench/results/results.md, results.json,
decode_vs_context.png and the raw JSON lines under bench/results/raw/ (git-ignored).
The `llm3` section (bench/llm3.py) adds ExecuTorch's TextLLMRunner and llama.cpp, end to end.
See bench/README.md.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
RAW = os.path.join(RESULTS, "raw")
PTE_BENCH = os.path.join(ROOT, "build", "bench", "pte-bench")
PTE_RUN = os.path.join(ROOT, "build", "bin", "pte-run")
ET_WORKER = os.path.join(ROOT, "bench", "et_worker.py")
SMOL_DIR = os.environ.get("SMOLLM2_DIR", os.path.join(ROOT, "models", "smollm2"))


def smol_shown(path):
    """A SmolLM2 file as the results record it: relative to $SMOLLM2_DIR, never this machine's path."""
    return "$SMOLLM2_DIR/" + os.path.relpath(path, SMOL_DIR)
SMOL_VARIANTS = [
    ("portable", "smollm2_portable.pte"),
    ("portable_custom", "smollm2_portable_custom.pte"),
    ("xnnpack_fp32", "smollm2_xnnpack.pte"),
    ("xnnpack_8da4w", "smollm2_xnnpack_8da4w.pte"),
]


PROMPT_SHORT = "Once upon a time, in a small village by the sea, there lived"
PROMPT_LONG = (" ".join(["The history of the printing press begins in the fifteenth century, when movable type "
                         "changed how books were made, how ideas travelled and who could read them."] * 5)
               + " In summary,")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


STREAM_KEYS = ("copy_gbs", "scale_gbs", "read_gbs", "read_mt1_gbs", "read_mt8_gbs")


def stream_near():
    """A short bandwidth measurement (copy and the eight-stream all-core read, GB/s medians)."""
    r = run_json([PTE_BENCH, "stream", "--mb", "256", "--reps", "3"], 300)
    med = lambda k: statistics.median(r[k]) if r.get(k) else None
    return {"copy_gbs": med("copy_gbs"), "read_mt8_gbs": med("read_mt8_gbs")}


def summary(xs):
    if not xs:
        return None
    return {"median": statistics.median(xs), "p25": pct(xs, 0.25), "p75": pct(xs, 0.75), "n": len(xs),
            "min": min(xs), "max": max(xs)}


def run_json(cmd, timeout):
    """Runs a worker; returns (its JSON or an error dict, peak RSS of the child in KiB)."""
    t0 = time.time()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            return {"ok": False, "error": f"timed out after {timeout} s"}
    except OSError as e:
        return {"ok": False, "error": str(e)}
    line = out.strip().splitlines()[-1] if out.strip() else ""
    try:
        res = json.loads(line)
    except json.JSONDecodeError:
        res = {"ok": False, "error": (err.strip().splitlines() or ["no output"])[-1][:300]}
    res["wall_s"] = time.time() - t0
    with open(os.path.join(RAW, "runs.jsonl"), "a") as f:
        f.write(json.dumps({"cmd": cmd, "result": res}) + "\n")
    return res


def machine():
    info = {"platform": platform.platform()}
    model, flags, phys = "", [], set()
    with open("/proc/cpuinfo") as f:
        cur = {}
        for line in f:
            if ":" not in line:
                if cur:
                    phys.add((cur.get("physical id"), cur.get("core id")))
                cur = {}
                continue
            k, v = (s.strip() for s in line.split(":", 1))
            cur[k] = v
            if k == "model name":
                model = v
            if k == "flags":
                flags = v.split()
    interesting = [f for f in flags if f.startswith(("avx", "amx")) or f in ("fma", "f16c", "sse4_2", "bmi2", "vnni")]
    info.update(cpu=model, logical_cpus=os.cpu_count(), physical_cores=len(phys) or os.cpu_count(),
                isa=" ".join(interesting))
    try:
        with open("/proc/meminfo") as f:
            info["mem_total_gb"] = round(int(f.readline().split()[1]) / 2**20, 1)
    except OSError:
        pass
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith(("L2 cache", "L3 cache", "Hypervisor vendor")):
            k, v = line.split(":", 1)
            info[k.strip()] = v.strip()
    return info


class EtServer:
    """One long-lived et_worker.py (torch is imported once) for the small cases."""

    def __init__(self):
        self.p = None

    def run(self, argv, timeout):
        if self.p is None or self.p.poll() is not None:
            self.p = subprocess.Popen([sys.executable, ET_WORKER, "serve"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            ready = self.p.stdout.readline()
            if not ready:
                return {"ok": False, "error": "the ExecuTorch worker did not start"}
        t0 = time.time()
        self.p.stdin.write(json.dumps(argv) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            self.p = None
            return {"ok": False, "error": "the ExecuTorch worker died (crash in the official runtime?)"}
        res = json.loads(line)
        res["wall_s"] = time.time() - t0
        res["in_server"] = True
        with open(os.path.join(RAW, "runs.jsonl"), "a") as f:
            f.write(json.dumps({"cmd": ["et_worker serve"] + argv, "result": res}) + "\n")
        return res

    def close(self):
        if self.p and self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait(timeout=60)


SERVER = EtServer()


class Bench:
    def __init__(self, args):
        self.args = args
        self.rows = {}  # key -> {"case":..., "pte": [results], "et": [results]}

    def pair(self, key, meta, pte_cmd, et_cmd, reps, timeout):
        """et_cmd: a command line (own process) or ("serve", argv) for the shared worker."""
        row = self.rows.setdefault(key, dict(meta, pte=[], et=[]))
        for r in range(reps):
            order = [("pte", pte_cmd), ("et", et_cmd)]
            if r % 2:
                order.reverse()
            for who, cmd in order:
                if cmd is None:
                    continue
                # A runtime that failed once (unsupported file) is not retried.
                if row[who] and not row[who][-1].get("ok"):
                    continue
                if isinstance(cmd, tuple):
                    res = SERVER.run(cmd[1], timeout)
                else:
                    res = run_json(cmd, timeout)
                row[who].append(res)
                if not res.get("ok"):
                    log(f"  {key} [{who}]: {res.get('error')}")
        return row


def et_cmd(mode, model, extra):
    return [sys.executable, ET_WORKER, mode, model] + extra


def et_serve(mode, model, extra):
    return ("serve", [mode, model] + extra)


def load_manifest():
    with open(os.path.join(ROOT, "fixtures", "data", "manifest.json")) as f:
        return json.load(f)


def program_info(model):
    """(weight bytes, max context) from `pte-run info --json`: constant, named and external
    data bytes; get_max_context_len, else get_max_seq_len (0 when unknown)."""
    try:
        out = subprocess.run([PTE_RUN, "info", model, "--json"], capture_output=True, text=True, timeout=300).stdout
        j = json.loads(out)
        wb = j["constants"]["bytes"] + j["named_data"]["bytes"] + j["external_data"]["bytes"]
        consts = {m["name"]: m["outputs"][0].get("value") for m in j["methods"]
                  if m.get("kind") == "constant" and m.get("outputs")}
        ctx = consts.get("get_max_context_len") or consts.get("get_max_seq_len") or 0
        return int(wb), int(ctx)
    except Exception as e:
        log(f"pte-run info {model}: {e}")
        return os.path.getsize(model), 0


ELEM_BYTES = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1, 15: 2}  # ExecuTorch ScalarType -> bytes


def gathered_bytes(model):
    """(bytes of constant tensors that only embedding lookups read, bytes they read per token)
    from the program itself (ExecuTorch's deserializer): a decode step reads one row of
    those tables, not the table. (0, 0) when the program cannot be read here. Runs in a
    child process: the deserialized program takes ~2 GB, and Linux carries a parent's peak
    RSS into the ru_maxrss of every child forked after it (the workers' RSS figures)."""
    try:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--gathered-bytes", model],
                             capture_output=True, text=True, timeout=600).stdout
        table, row = json.loads(out.strip().splitlines()[-1])
        return int(table), int(row)
    except Exception as e:
        log(f"embedding tables of {model}: {e}")
        return 0, 0


def gathered_bytes_here(model):
    try:
        from executorch.exir._serialize._program import deserialize_pte_binary

        with open(model, "rb") as f:
            p = deserialize_pte_binary(f.read())
        prog = getattr(p, "program", p)
        table, per_token = 0, 0
        for plan in prog.execution_plan:
            vals = plan.values
            readers = {}  # value index -> set of op names (a delegate counts as "delegate")
            for chain in plan.chains:
                for ins in chain.instructions:
                    a = ins.instr_args
                    kind = type(a).__name__
                    if kind == "KernelCall":
                        name = plan.operators[a.op_index].name
                        for v in a.args:
                            readers.setdefault(v, set()).add(name)
                    elif kind == "DelegateCall":
                        for v in a.args:
                            readers.setdefault(v, set()).add("delegate")
            for v, ops in readers.items():
                t = vals[v].val
                if type(t).__name__ != "Tensor" or t.data_buffer_idx == 0 or not t.sizes:
                    continue
                if not all("embedding" in op for op in ops):
                    continue
                n = ELEM_BYTES.get(int(t.scalar_type), 4)
                for d in t.sizes:
                    n *= d
                table += n
                per_token += n // max(1, t.sizes[0])
        return table, per_token
    except Exception as e:  # the report then counts every weight byte
        log(f"embedding tables of {model}: {e}")
        return 0, 0


def et_tokenizer(path):
    """ExecuTorch's HF tokenizer (pytorch_tokenizers) rejects an empty normalizer
    Sequence, which the GGUF conversion writes; an empty Sequence is the identity, so
    ExecuTorch gets a copy with `"normalizer": null` (same tokens)."""
    with open(path) as f:
        j = json.load(f)
    n = j.get("normalizer")
    if not (isinstance(n, dict) and n.get("type") == "Sequence" and not n.get("normalizers")):
        return path
    # one copy per model folder (the folder holding the tokenizer names it)
    sub = os.path.basename(os.path.dirname(os.path.abspath(path)))
    out_dir = os.path.join(RAW, "et_tokenizer") if sub == "smollm2" else os.path.join(RAW, "et_tokenizer", sub)
    os.makedirs(out_dir, exist_ok=True)
    j["normalizer"] = None
    out = os.path.join(out_dir, "tokenizer.json")
    with open(out, "w") as f:
        json.dump(j, f)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="stream,ops,fixtures,smollm2,llm3")
    ap.add_argument("--reps", type=int, default=3, help="interleaved subprocess pairs per case")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions and positions (a smoke run)")
    ap.add_argument("--variants", default="", help="SmolLM2 variants to run (default: all present)")
    ap.add_argument("--positions", default="", help="decode context positions (default per variant)")
    ap.add_argument("--profile", action="store_true", help="per-operator time of pte-run's SmolLM2 decode")
    ap.add_argument("--merge", action="store_true", help="keep the cases of the previous results.json not run now")
    ap.add_argument("--also-one-thread", action="store_true",
                    help="SmolLM2: also run pte-run with 1 thread (a busy machine makes worker threads expensive)")
    ap.add_argument("--pte-threads", type=int, default=0,
                    help="pte-run worker threads (default 0: physical cores, the library default)")
    ap.add_argument("--background-load", action="store_true",
                    help="run one busy process on one core during all measurements (the loaded run)")
    ap.add_argument("--llm3-reps", type=int, default=0, help="llm3: interleaved repetitions (default 3, --quick 1)")
    ap.add_argument("--llm3-threads", default="1,2", help="llm3: thread counts each runtime tries")
    ap.add_argument("--llm3-models", default="smollm2",
                    help="llm3: models, of smollm2,qwen3-0.6b,llama-3.2-1b (the last two: bench/make_scaled.py)")
    ap.add_argument("--llm3-variants", default="",
                    help="llm3: only these pairs, of 8da4w,fp32,fp16,q8_0 (default all; a filtered run is "
                         "kept under its own key, e.g. idle/smollm2:fp16, beside the full one)")
    ap.add_argument("--llm3-max-ctx", type=int, default=0,
                    help="llm3: leave out decode contexts and prefills longer than this (a shorter smoke run)")
    args = ap.parse_args()
    only = set(args.only.split(","))
    os.makedirs(RAW, exist_ok=True)
    if not os.path.exists(PTE_BENCH):
        sys.exit(f"{PTE_BENCH} is missing: build it first (ninja -C build bench/pte-bench bin/pte-run)")
    reps = 1 if args.quick else args.reps
    b = Bench(args)
    out = {"machine": machine(), "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
           "pte_threads": args.pte_threads, "loadavg_start": os.getloadavg()}
    thr = ["--threads", str(args.pte_threads)] if args.pte_threads else []
    log(json.dumps(out["machine"]))
    bg = None
    args.background_load_desc = None
    if args.background_load:
        bg = llm3.BackgroundLoad()
        args.background_load_desc = bg.desc
        out["background_load"] = bg.desc
        log(f"background load: {bg.desc}")
        time.sleep(2)

    def stream():
        r = run_json([PTE_BENCH, "stream", "--mb", "256", "--reps", "5" if args.quick else "10"], 600)
        res = {k: summary(r.get(k, [])) for k in STREAM_KEYS}
        res["threads"] = r.get("threads")
        log("stream", res)
        return res

    if "stream" in only:
        out["stream"] = stream()

    if "ops" in only:
        ops_dir = os.path.join(RAW, "ops")
        if not os.path.exists(os.path.join(ops_dir, "ops.json")):
            log("exporting the operator microbenchmarks ...")
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "export_ops.py"), ops_dir], check=True)
        with open(os.path.join(ops_dir, "ops.json")) as f:
            for c in json.load(f):
                key = f"op/{c['name']}/{c['backend']}"
                log(key)
                ins = sum((["--input", p] for p in c["inputs"]), [])
                n = ["--warmup", "1", "--reps", "5" if args.quick else "10"]
                b.pair(key, {"group": "op", "case": c["name"], "variant": c["backend"], "description": c["description"]},
                       [PTE_BENCH, "forward", c["file"]] + ins + n + thr, et_serve("forward", c["file"], ins + n), reps, 300)

    if "fixtures" in only:
        man = load_manifest()
        for c in man["cases"]:
            step = c["steps"][0]
            if any(i["kind"] != "tensor" for i in step["inputs"]) or not step["inputs"]:
                continue  # constant methods (get_max_seq_len, ...) have nothing to time
            f = os.path.join(ROOT, "fixtures", "data", c["file"])
            ins = sum((["--input", os.path.join(ROOT, "fixtures", "data", i["file"])] for i in step["inputs"]), [])
            if c.get("data_files"):
                continue  # external weights: the ET bindings here take one file
            n = ["--method", c.get("method", "forward"), "--warmup", "3", "--reps", "20" if args.quick else "50"]
            key = f"fixture/{c['name']}"
            log(key)
            b.pair(key, {"group": "fixture", "case": c["name"], "variant": c.get("delegate", "none"),
                         "description": c.get("description", "")},
                   [PTE_BENCH, "forward", f] + ins + n + thr, et_serve("forward", f, ins + n), reps, 300)

    if "smollm2" in only:
        want = set(args.variants.split(",")) if args.variants else None
        for variant, fname in SMOL_VARIANTS:
            f = os.path.join(SMOL_DIR, fname)
            if (want and variant not in want) or not os.path.exists(f):
                if not want or variant in want:
                    log(f"smollm2/{variant}: {f} not present, skipped")
                continue
            slow = variant.startswith("portable")  # ExecuTorch's portable kernels are naive loops
            wb, max_ctx = program_info(f)
            table, table_row = gathered_bytes(f)
            steps = 2 if slow else 8
            want_pos = [int(x) for x in (args.positions or ("8,128" if slow else "8,64,128,192,240,500,1000")).split(",")]
            pos_l = [p for p in want_pos if not max_ctx or p + steps < max_ctx]
            if args.quick:
                pos_l = pos_l[:1] + pos_l[-1:]
            pos = ",".join(str(p) for p in pos_l)
            common = ["--prefill", "128", "--positions", pos, "--steps", str(steps),
                      "--reps", "0" if slow else "1" if args.quick else "2"]
            key = f"smollm2/{variant}"
            log(key)
            pte = [PTE_BENCH, "llm", f] + common + thr + (["--profile"] if args.profile else [])
            near = [stream_near()]  # the host's bandwidth moves within minutes: measured beside each variant
            row = b.pair(key, {"group": "smollm2", "case": "SmolLM2-135M", "variant": variant, "file": smol_shown(f),
                               "weight_bytes": wb, "decode_bytes": wb - table + table_row, "max_context": max_ctx},
                         pte, et_cmd("llm", f, common), 1 if slow else reps, 3600)
            row["stream_near"] = near + [stream_near()]
            if args.also_one_thread and not args.pte_threads:
                pte1 = [PTE_BENCH, "llm", f] + common + ["--threads", "1"]
                row["pte_t1"] = []
                for _ in range(1 if slow else reps):
                    row["pte_t1"].append(run_json(pte1, 3600))
            tok = os.path.join(SMOL_DIR, "tokenizer.json")
            et_tok = et_tokenizer(tok) if os.path.exists(tok) else None
            if os.path.exists(tok):
                for plen, label in ((PROMPT_SHORT, "short"),) + (() if slow else ((PROMPT_LONG, "long"),)):
                    g = ["--prompt", plen, "--tokenizer", tok, "--max-new-tokens", "4" if slow else "64"]
                    key = f"smollm2-gen/{variant}/{label}"
                    log(key)
                    g_et = list(g)
                    g_et[g_et.index("--tokenizer") + 1] = et_tok
                    b.pair(key, {"group": "generate", "case": f"SmolLM2-135M generate ({label} prompt)", "variant": variant},
                           [PTE_BENCH, "generate", f] + g + thr, et_serve("generate", f, g_et), 1 if (slow or args.quick) else 2, 3600)
    SERVER.close()
    if "llm3" in only:
        mode = "loaded" if args.background_load else "idle"
        # SmolLM2 alone keeps the keys "idle" / "loaded"; another set of models gets its own
        # entry ("idle/qwen3-0.6b,llama-3.2-1b"), so --merge keeps the SmolLM2 tables
        if args.llm3_models != "smollm2" or args.llm3_variants:
            mode += "/" + args.llm3_models + (":" + args.llm3_variants if args.llm3_variants else "")
        try:
            out["llm3"] = {mode: llm3.run(args, log, RAW, program_info, et_tokenizer,
                                          gathered_bytes=gathered_bytes, stream_near=stream_near)}
            m = out["machine"]  # each section names its machine: --merge keeps sections of other runs
            out["llm3"][mode]["cpu"] = f"{m.get('cpu')} ({m.get('physical_cores')} physical cores)"
        finally:
            if bg:
                bg.stop()
    if bg:
        bg.stop()
    if "stream" in only and "smollm2" in only:  # the host's bandwidth moves: measured again after the models
        out["stream_end"] = stream()
    out["rows"] = b.rows
    prev_path = os.path.join(RESULTS, "results.json")
    if args.merge and os.path.exists(prev_path):
        with open(prev_path) as f:
            prev = json.load(f)
        l3 = dict(prev.get("llm3", {}))
        l3.update(out.get("llm3", {}))  # the other load states and model sets are kept
        if not b.rows and "stream" not in out:
            # only llm3 ran: the other sections and the header describing their run stay as they were
            new_l3 = l3
            out = prev
            out["llm3"] = new_l3
            out["rows"] = prev.get("rows", {})
            with open(os.path.join(RESULTS, "results.json"), "w") as fo:
                json.dump(out, fo, indent=1)
            import report

            report.write(out, RESULTS)
            log(f"wrote {os.path.join(RESULTS, 'results.md')}")
            return
        if l3:
            out["llm3"] = l3
        rows = prev.get("rows", {})
        rows.update(b.rows)
        out["rows"] = rows
        if "stream" not in out and "stream" in prev:
            out["stream"] = prev["stream"]
            if "stream_end" in prev:
                out["stream_end"] = prev["stream_end"]
        out["merged_from"] = prev.get("started")
    out["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    out["loadavg_end"] = os.getloadavg()
    with open(os.path.join(RESULTS, "results.json"), "w") as fo:
        json.dump(out, fo, indent=1)
    import report

    report.write(out, RESULTS)
    log(f"wrote {os.path.join(RESULTS, 'results.md')}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--gathered-bytes"]:
        print(json.dumps(gathered_bytes_here(sys.argv[2])))
        sys.exit(0)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import llm3

    main()
