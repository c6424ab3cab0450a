"""The `llm3` section of bench/run_bench.py: LLMs as users run them, three runtimes in one
interleaved run (issue 13). Models (`--llm3-models`, default smollm2): SmolLM2-135M, and
Qwen3-0.6B and Llama-3.2-1B at their real sizes with random weights (bench/make_scaled.py):

  pte-run     its CLI, `pte-run MODEL.pte --prompt-file F -n N --ignore-eos --json --threads T`
              (one process per prompt)
  ExecuTorch  its C++ LLM runner TextLLMRunner (bench/et_worker.py `runner`: one process
              per repetition and thread count, loads once, one generate per prompt)
  llama.cpp   llama-bench (prefill: -p S -n 0; decode at a depth: -p 0 -n N -d C) and
              llama-completion (load time and peak RSS, short prompt), built by
              bench/peers/llama_cpp.sh from the llama.cpp source in llama-cpp-python's sdist

on the same weights: the 8da4w .pte against the Q4_1 GGUF it was made from, the fp32
XNNPACK .pte against the F32 GGUF (llama-quantize's dequantisation of the Q4_1 one), the
fp16 XNNPACK .pte (SmolLM2 only: make_smollm2's smollm2_xnnpack_fp16) against the F16 GGUF.
Each runtime runs at 1 and at 2 threads; the report takes, per row, the better of the two.
Repetitions alternate the runtimes' order. For the fp32 programs the report also gives the
bandwidth limit of decode (bytes read per token / the bandwidth `pte-bench stream`
measures before the run and after every repetition).
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTE_RUN = os.path.join(ROOT, "build", "bin", "pte-run")
ET_WORKER = os.path.join(ROOT, "bench", "et_worker.py")
SMOL_DIR = os.environ.get("SMOLLM2_DIR", os.path.join(ROOT, "models", "smollm2"))
# .pte files with a context long enough for 2048 (fixtures/make_smollm2.py --max-seq-len 2304)
CTX_DIR = os.environ.get("SMOLLM2_CTX_DIR", os.path.join(ROOT, "models", "smollm2-ctx2k"))
PEERS_DIR = os.environ.get("PEERS_DIR", os.path.join(ROOT, "models", "peers"))
LLAMA_BIN = os.path.join(PEERS_DIR, "llama.cpp-build", "bin")
# Qwen3-0.6B and Llama-3.2-1B with random weights, made by bench/make_scaled.py
SCALED_DIR = os.environ.get("SCALED_DIR", os.path.join(ROOT, "models", "scaled"))

# (name, .pte file, GGUF type of the llama.cpp peer); Q8_0 has no .pte counterpart here
# (llama.cpp alone, for reference)
PAIRS = [("8da4w", "smollm2_xnnpack_8da4w.pte", "Q4_1"), ("fp32", "smollm2_xnnpack.pte", "F32"),
         ("fp16", "smollm2_xnnpack_fp16.pte", "F16"), ("q8_0", None, "Q8_0")]


def scaled_model(key, label, gguf_name):
    d = os.path.join(SCALED_DIR, key)
    return {"label": label, "dirs": [d], "tokenizer": os.path.join(d, "tokenizer.json"),
            "config": os.path.join(d, "hf", "config.json"),
            "pairs": [("8da4w", f"{key}_xnnpack_8da4w.pte", "Q4_1"), ("fp32", f"{key}_xnnpack.pte", "F32"),
                      ("fp16", f"{key}_xnnpack_fp16.pte", "F16"), ("q8_0", None, "Q8_0")],
            "gguf": lambda qtype: [os.path.join(d, "gguf", f"{gguf_name}.{qtype}.gguf")]}


def smollm2_gguf(qtype):
    pats = [os.path.join(PEERS_DIR, "gguf", f"*.{qtype}.gguf")]
    if qtype == "Q4_1":
        pats.insert(0, os.path.join(SMOL_DIR, "gguf", "*.Q4_1.gguf"))
    return pats


MODELS = {
    "smollm2": {"label": "SmolLM2-135M", "dirs": [CTX_DIR, SMOL_DIR], "tokenizer": os.path.join(SMOL_DIR, "tokenizer.json"),
                "config": os.path.join(SMOL_DIR, "hf", "config.json"), "pairs": PAIRS, "gguf": smollm2_gguf},
    "qwen3-0.6b": scaled_model("qwen3-0.6b", "Qwen3-0.6B", "Qwen3-0.6B"),
    "llama-3.2-1b": scaled_model("llama-3.2-1b", "Llama-3.2-1B", "Llama-3.2-1B"),
}

DECODE_CTX = [16, 128, 512, 2048]
PREFILL = [16, 150, 512]
LOAD_PROMPT = 16  # load time and peak RSS come from the run with this prompt length

TEXT = ("The history of the printing press begins in the fifteenth century, when movable type changed how "
        "books were made, how ideas travelled and who could read them. Workshops spread from Mainz to Venice, "
        "Paris and London within a few decades; printers became publishers, editors and booksellers, and the "
        "price of a book fell to a fraction of a manuscript's. Scholars argued about what this meant for memory, "
        "authority and error, since a mistake could now be copied a thousand times in a week. ")


def shown(path):
    """A path as the results record it: never this machine's absolute path."""
    for var, base in (("$SMOLLM2_CTX_DIR", CTX_DIR), ("$SMOLLM2_DIR", SMOL_DIR), ("$PEERS_DIR", PEERS_DIR),
                      ("$SCALED_DIR", SCALED_DIR)):
        if path.startswith(base.rstrip("/") + "/"):
            return var + "/" + os.path.relpath(path, base)
    return os.path.basename(path)


def find_pte(fname, model="smollm2"):
    if not fname:
        return None
    for d in MODELS[model]["dirs"]:
        p = os.path.join(d, fname)
        if os.path.exists(p):
            return p
    return None


def find_gguf(qtype, model="smollm2"):
    for pat in MODELS[model]["gguf"](qtype):
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[0]
    return None


def run_proc(cmd, timeout, raw_log):
    """Runs a process; returns rc, stdout, stderr, its peak RSS (KiB, wait4) and wall time.
    Output that is not UTF-8 (a random model's byte tokens in a runner's log) reads with U+FFFD."""
    t0 = time.time()
    out_f = open(os.path.join(os.path.dirname(raw_log), "llm3_stdout.tmp"), "w+", encoding="utf-8", errors="replace")
    err_f = open(os.path.join(os.path.dirname(raw_log), "llm3_stderr.tmp"), "w+", encoding="utf-8", errors="replace")
    try:
        p = subprocess.Popen(cmd, stdout=out_f, stderr=err_f, stdin=subprocess.DEVNULL)
    except OSError as e:
        return {"rc": -1, "out": "", "err": str(e), "maxrss_kb": 0, "wall_s": 0.0}
    rc, ru = None, None
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            rc = os.waitstatus_to_exitcode(status)
            p.returncode = rc
            break
        if time.time() - t0 > timeout:
            p.kill()
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = rc = -9
            break
        time.sleep(0.02)
    out_f.seek(0)
    err_f.seek(0)
    res = {"rc": rc, "out": out_f.read(), "err": err_f.read(), "maxrss_kb": ru.ru_maxrss if ru else 0,
           "wall_s": time.time() - t0}
    out_f.close()
    err_f.close()
    with open(raw_log, "a") as f:
        f.write(json.dumps({"cmd": [os.path.basename(c) if c.startswith("/") else c for c in cmd],
                            "rc": rc, "wall_s": res["wall_s"], "maxrss_kb": res["maxrss_kb"],
                            "stdout": res["out"][-4000:], "stderr": res["err"][-2000:]}) + "\n")
    return res


def make_prompts(tokenizer, lengths, outdir):
    """Prompt files of about L tokens (the tokenizer's own count, as the runtimes see them)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(tokenizer)
    ids = []
    text = TEXT
    while len(ids) < max(lengths) + 8:
        text += TEXT
        ids = tok.encode(text, add_special_tokens=False).ids
    files = {}
    os.makedirs(outdir, exist_ok=True)
    for L in lengths:
        s = tok.decode(ids[:L])
        n = len(tok.encode(s, add_special_tokens=False).ids)
        path = os.path.join(outdir, f"prompt_{L}.txt")
        with open(path, "w") as f:
            f.write(s)
        files[L] = {"file": path, "tokens": n}
    return files


def err_line(r):
    lines = [x for x in (r["err"] or r["out"]).strip().splitlines() if x.strip()]
    return (lines[-1] if lines else f"exit {r['rc']}")[:300]


def measure_pte(pte, tok, prompts, n_new, threads, raw):
    runs = []
    for L, pf in sorted(prompts.items()):
        r = run_proc([PTE_RUN, pte, "--prompt-file", pf["file"], "--tokenizer", tok, "-n", str(n_new),
                      "--ignore-eos", "--json", "--threads", str(threads)], 1800, raw)
        try:
            st = json.loads(r["out"])["stats"]
        except (json.JSONDecodeError, KeyError, TypeError):
            return {"ok": False, "error": f"pte-run, prompt {L}: {err_line(r)}"}
        runs.append({"L": L, "prompt_tokens": st["prompt_tokens"], "generated_tokens": st["generated_tokens"],
                     "prefill_tps": st["prefill_tokens_per_s"], "decode_tps": st["decode_tokens_per_s"],
                     "load_ms": st["load_ms"], "peak_rss_kb": r["maxrss_kb"]})
    return {"ok": True, "runs": runs}


def measure_et(pte, et_tok, prompts, n_new, threads, raw, timeout=3600):
    files = sum((["--prompt-file", pf["file"]] for L, pf in sorted(prompts.items())), [])
    r = run_proc([sys.executable, ET_WORKER, "runner", pte, "--tokenizer", et_tok, "--max-new-tokens", str(n_new),
                  "--threads", str(threads)] + files, timeout, raw)
    try:
        j = json.loads(r["out"].strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        why = f"timed out after {timeout} s" if r["rc"] == -9 else err_line(r)
        return {"ok": False, "error": f"ExecuTorch: {why}"}
    if not j.get("ok"):
        return {"ok": False, "error": f"ExecuTorch: {j.get('error')}"}
    runs = []
    for L, x in zip(sorted(prompts), j["runs"]):
        g = x["generated_tokens"]
        runs.append({"L": L, "prompt_tokens": x["prompt_tokens"], "generated_tokens": g,
                     "prefill_tps": x["prompt_tokens"] * 1000 / x["prefill_ms"] if x["prefill_ms"] > 0 else None,
                     "decode_tps": (g - 1) * 1000 / x["decode_ms"] if g > 1 and x["decode_ms"] > 0 else None,
                     "load_ms": x["load_ms"], "peak_rss_kb": x["peak_rss_kb"]})
    return {"ok": True, "runs": runs, "base_rss_kb": j.get("base_rss_kb"), "threads_seen": j.get("threads"),
            "process_peak_rss_kb": r["maxrss_kb"]}


# llama.cpp's own load time (the context's t_load_ms, printed by common_perf_print, or by
# llama_perf_context_print in other versions): from the start of the model load to the end
# of its first evaluation, the warm-up run llama-completion does by default
LOAD_RE = re.compile(r"(?:common_perf_print|llama_perf_context_print):\s+load time\s*=\s*([0-9.]+)\s*ms")
# ... and its evaluation of the prompt after that warm-up: load + this is its time to first token
PROMPT_EVAL_RE = re.compile(r"(?:common_perf_print|llama_perf_context_print):\s+prompt eval time\s*=\s*([0-9.]+)\s*ms")


# llama.cpp 0c1e57098 built with GGML_NATIVE on an AMX machine (this VM: amx_int8/amx_tile)
# crashes (SIGSEGV in ggml_backend_amx_mul_mat) on the first matrix multiply when its
# extra weight buffers (AMX, repacked layouts) are on, the default: they are turned off.
LLAMA_BENCH_FLAGS = ["--repack", "0"]
LLAMA_COMPLETION_FLAGS = ["--no-repack"]


def measure_llama(gguf, prompts, n_new, threads, raw, decode_ctx, prefill=PREFILL, n_ctx=0):
    bench = os.path.join(LLAMA_BIN, "llama-bench")
    res = {"ok": True, "runs": []}
    pp = [L for L in sorted(prompts) if L in prefill]
    jobs = [("prefill", ["-p", ",".join(map(str, pp)), "-n", "0"]),
            ("decode", ["-p", "0", "-n", str(n_new), "-d", ",".join(map(str, decode_ctx))])]
    # the shortest prefill once more as the first call of a fresh process (no warm-up run), as
    # pte-run's CLI and the runner's first prompt are: the CPU is not yet up to speed then
    if pp:
        jobs.append(("prefill_first", ["-p", str(pp[0]), "-n", "0", "--no-warmup"]))
    for kind, a in jobs:
        r = run_proc([bench, "-m", gguf, "-t", str(threads), "-r", "1", "-o", "json"] + LLAMA_BENCH_FLAGS + a, 3600, raw)
        try:
            tests = json.loads(r["out"])
        except json.JSONDecodeError:
            return {"ok": False, "error": f"llama-bench: {err_line(r)}"}
        for t in tests:
            res["commit"] = t.get("build_commit")
            res["kv_type"] = t.get("type_k")
            res["flash_attn"] = t.get("flash_attn")
            tps = statistics.median(t["samples_ts"]) if t.get("samples_ts") else t.get("avg_ts")
            if kind == "prefill_first":
                res["runs"].append({"L": t["n_prompt"], "prefill_first_tps": tps})
            elif t["n_gen"] == 0:
                res["runs"].append({"L": t["n_prompt"], "prefill_tps": tps})
            else:
                res["runs"].append({"L": t["n_depth"], "decode_tps": tps})
    # load time and peak RSS: the completion tool, a short prompt, the same new tokens
    comp = os.path.join(LLAMA_BIN, "llama-completion")
    r = run_proc([comp, "-m", gguf, "-f", prompts[LOAD_PROMPT]["file"], "-n", str(n_new), "-t", str(threads),
                  "--temp", "0", "--ignore-eos", "-no-cnv", "--no-display-prompt"] + LLAMA_COMPLETION_FLAGS
                 + (["-c", str(n_ctx)] if n_ctx else []), 600, raw)
    m = LOAD_RE.search(r["err"])
    if r["rc"] != 0 or not m:
        res["load_error"] = f"llama-completion: {err_line(r)}"
    else:
        res["load_ms"] = float(m.group(1))
        res["peak_rss_kb"] = r["maxrss_kb"]
        pe = PROMPT_EVAL_RE.search(r["err"])
        if pe:
            res["prompt_eval_ms"] = float(pe.group(1))
    return res


def machine_load():
    return list(os.getloadavg())


def kv_bytes_per_position(config_path, elem_bytes=4):
    """Bytes of K and V cache one position holds over all layers (what attention reads per
    cached position in a decode step), from the Hugging Face config; None if unknown."""
    try:
        with open(config_path) as f:
            c = json.load(f)
        head_dim = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
        kv_heads = c.get("num_key_value_heads") or c["num_attention_heads"]
        return c["num_hidden_layers"] * 2 * kv_heads * head_dim * elem_bytes
    except (OSError, KeyError, ValueError, TypeError, ZeroDivisionError):
        return None


def run(args, log, raw_dir, program_info, et_tokenizer, gathered_bytes=None, stream_near=None):
    """Runs the section; returns its JSON (one load state: idle or with a background load).
    gathered_bytes(pte) -> (embedding table bytes, bytes of one row) and stream_near() ->
    {copy_gbs, read_mt8_gbs} (run_bench.py's) give the fp32 programs' bandwidth limit."""
    raw = os.path.join(raw_dir, "llm3_runs.jsonl")
    models = [m for m in (getattr(args, "llm3_models", "") or "smollm2").split(",") if m]
    for m in models:
        if m not in MODELS:
            return {"error": f"unknown model {m} (have {', '.join(MODELS)})"}
    n_new = 16 if args.quick else 64
    reps = args.llm3_reps or (1 if args.quick else 3)
    threads = [int(t) for t in args.llm3_threads.split(",")]
    max_ctx_arg = getattr(args, "llm3_max_ctx", 0) or 0
    decode_ctx = [c for c in DECODE_CTX if not max_ctx_arg or c <= max_ctx_arg]
    prefill = [c for c in PREFILL if not max_ctx_arg or c <= max_ctx_arg]
    lengths = sorted(set(decode_ctx) | set(prefill))
    have_llama = all(os.path.exists(os.path.join(LLAMA_BIN, b)) for b in ("llama-bench", "llama-completion"))
    if not have_llama:
        log("llm3: llama.cpp is not built (bash bench/peers/llama_cpp.sh): its column stays empty")
    out = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "loadavg_start": machine_load(),
           "background_load": args.background_load_desc, "quick": bool(args.quick), "reps": reps, "threads": threads,
           "new_tokens": n_new, "models": models, "decode_ctx": decode_ctx, "prefill": prefill, "variants": {}}
    samples = []
    plan = []
    for model in models:
        spec = MODELS[model]
        tok = spec["tokenizer"]
        if not os.path.exists(tok):
            log(f"llm3/{model}: {shown(tok)} missing ({'fixtures/make_smollm2.py' if model == 'smollm2' else 'bench/make_scaled.py'}), skipped")
            out.setdefault("missing", []).append(f"{spec['label']}: {shown(tok)}")
            continue
        pdir = os.path.join(raw_dir, "llm3_prompts" if model == "smollm2" else f"llm3_prompts_{model}")
        prompts = make_prompts(tok, lengths, pdir)
        if model == "smollm2":
            out["prompt_tokens"] = {str(L): p["tokens"] for L, p in prompts.items()}
        et_tok = et_tokenizer(tok)
        only_variants = [x for x in (getattr(args, "llm3_variants", "") or "").split(",") if x]
        for name, fname, qtype in spec["pairs"]:
            if only_variants and name not in only_variants:
                continue
            pte, gguf = find_pte(fname, model), find_gguf(qtype, model)
            key = name if model == "smollm2" else f"{model}/{name}"
            if not pte and not gguf:
                log(f"llm3/{key}: neither {fname or 'a .pte'} nor a {qtype} GGUF present, skipped")
                continue
            wbytes, max_ctx = program_info(pte) if pte else (0, 0)
            # a prompt fits when it and the new tokens stay inside the .pte's cache
            fit = {L: p for L, p in prompts.items() if not max_ctx or p["tokens"] + n_new + 1 < max_ctx}
            v = {"model": model, "model_label": spec["label"], "variant": name,
                 "pte": shown(pte) if pte else None, "pte_file": fname, "gguf": shown(gguf) if gguf else None,
                 "gguf_type": qtype, "max_context": max_ctx, "runs": {"pte": {}, "et": {}, "llama": {}},
                 "skipped_prompts": sorted(set(prompts) - set(fit)),
                 "prompt_tokens": {str(L): p["tokens"] for L, p in prompts.items()}}
            if pte and name == "fp32":
                # weights a decode step reads: all constant data, less each embedding table
                # but the one row a token reads (run_bench.py's SmolLM2 bandwidth target)
                table, row = gathered_bytes(pte) if gathered_bytes else (0, 0)
                v["weight_bytes"] = wbytes
                v["decode_bytes"] = wbytes - table + row
                v["embedding_table_bytes"] = table
                v["kv_bytes_per_position"] = {"fp32": kv_bytes_per_position(spec["config"], 4),
                                              "f16": kv_bytes_per_position(spec["config"], 2)}
            out["variants"][key] = v
            plan.append((key, pte, gguf, fit, prompts, tok, et_tok))
    if not plan:
        return {"error": "no model files present: " + "; ".join(out.get("missing", [])) if out.get("missing")
                else "no .pte or GGUF of the chosen models present"}
    if "prompt_tokens" not in out:
        out["prompt_tokens"] = out["variants"][plan[0][0]]["prompt_tokens"]
    # llama-completion's KV cache as long as the .pte files' (its default is the model's
    # training context: 40960 positions, 4.7 GB of f16 cache for Qwen3-0.6B); SmolLM2 keeps
    # the default its earlier runs used
    llama_ctx = {}
    for v in out["variants"].values():
        if v["model"] != "smollm2" and v.get("max_context"):
            llama_ctx[v["model"]] = max(llama_ctx.get(v["model"], 0), v["max_context"])
    bw = []
    need_bw = stream_near and any(v.get("decode_bytes") for v in out["variants"].values())

    def measure_bw(when):
        if need_bw:
            x = stream_near()
            x["when"] = when
            x["loadavg"] = machine_load()
            bw.append(x)
            log(f"llm3: bandwidth {when}: {x}")

    measure_bw("before the runs")
    for rep in range(reps):
        for vi, (key, pte, gguf, fit, prompts, tok, et_tok) in enumerate(plan):
            v = out["variants"][key]
            for t in threads:
                order = ["pte", "et", "llama"]
                k = (rep + vi) % 3
                order = order[k:] + order[:k]
                for who in order:
                    log(f"llm3/{key} rep {rep + 1}/{reps} threads {t}: {who}")
                    if who == "pte":
                        if not pte or not os.path.exists(PTE_RUN):
                            continue
                        r = measure_pte(pte, tok, fit, n_new, t, raw)
                    elif who == "et":
                        if not pte:
                            continue
                        r = measure_et(pte, et_tok, fit, n_new, t, raw, 900 if args.quick else 3600)
                    else:
                        if not gguf or not have_llama:
                            continue
                        r = measure_llama(gguf, prompts, n_new, t, raw, decode_ctx, prefill, llama_ctx.get(v["model"], 0))
                    if not r.get("ok"):
                        log(f"  {r.get('error')}")
                    r["loadavg"] = machine_load()
                    samples.append(r["loadavg"][0])
                    v["runs"][who].setdefault(str(t), []).append(r)
        measure_bw(f"after repetition {rep + 1}")
    if bw:
        out["stream_near"] = bw
    if have_llama:
        for v in out["variants"].values():
            for runs in v["runs"]["llama"].values():
                for r in runs:
                    if r.get("commit"):
                        out["llama_cpp_commit"] = r["commit"]
    out["loadavg_end"] = machine_load()
    out["loadavg_1min_during"] = [min(samples), max(samples)] if samples else None
    out["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    return out


class BackgroundLoad:
    """One busy process on one core (the last CPU this process may use), for the loaded runs."""

    def __init__(self):
        cpus = sorted(os.sched_getaffinity(0))
        self.cpu = cpus[-1]
        def pin_and_tie():
            os.sched_setaffinity(0, {self.cpu})
            try:  # dies with the driver, whatever way the driver ends (PR_SET_PDEATHSIG, SIGKILL)
                import ctypes

                ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)
            except Exception:
                pass

        self.p = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=pin_and_tie)
        import atexit

        atexit.register(self.stop)
        self.desc = f"one busy-loop process pinned to CPU {self.cpu} (of {len(cpus)})"

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
