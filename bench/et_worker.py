"""The official ExecuTorch runtime side of the benchmark: the same measurements as
pte-bench (bench/pte_bench.cpp), through executorch.runtime's Python bindings.
Prints one JSON object; run by bench/run_bench.py in its own process (peak RSS).

  et_worker.py forward MODEL.pte [--method M] [--input X.npy]... [--warmup N] [--warmup-ms T] [--reps N]
  et_worker.py llm MODEL.pte [--method M] [--prefill S] [--positions P,...] [--steps K] [--reps N]
  et_worker.py generate MODEL.pte --prompt TEXT --tokenizer tokenizer.json [--max-new-tokens N]
      ExecuTorch's own LLM runner (executorch.extension.llm.runner.TextLLMRunner), greedy.
  et_worker.py runner MODEL.pte --tokenizer tokenizer.json --prompt-file F [--prompt-file F]...
      [--max-new-tokens N] [--threads T]
      The same runner, one process: loads once, then generates from each prompt file in
      turn (reset between them); per prompt: prefill and decode times, and the peak RSS
      after it. --threads resets ExecuTorch's shared thread pool (0: its default).
"""
import argparse
import json
import os
import resource
import sys
import time


def register_llm_custom_ops():
    """llama::custom_sdpa / llama::update_cache (the *_custom exports) are registered
    with the runtime only when their library is imported."""
    try:
        from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    except Exception:
        pass
    try:  # quantized_decomposed::embedding_byte and friends (the 8da4w exports)
        import executorch.kernels.quantized  # noqa: F401
    except Exception:
        pass


def now_ms():
    return time.perf_counter() * 1e3


def peak_rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def generate(a):
    base_rss = peak_rss_kb()
    from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner

    register_llm_custom_ops()

    base_rss = peak_rss_kb()
    t0 = now_ms()
    runner = TextLLMRunner(a.model, a.tokenizer)
    ctor_ms = now_ms() - t0
    stats = {}
    text = []

    def on_stats(s):
        stats.update(load=s.model_load_end_ms - s.model_load_start_ms, start=s.inference_start_ms,
                     prompt_end=s.prompt_eval_end_ms, first=s.first_token_ms, end=s.inference_end_ms,
                     prompt_tokens=s.num_prompt_tokens, generated=s.num_generated_tokens)

    cfg = GenerationConfig(echo=False, max_new_tokens=a.max_new_tokens, temperature=0.0)
    runner.generate(a.prompt, cfg, token_callback=text.append, stats_callback=on_stats)
    if not stats:
        raise RuntimeError("the runner reported no statistics")
    return ({"ok": True, "runtime": "executorch", "load_ms": ctor_ms + stats["load"],
                      "prefill_ms": stats["prompt_end"] - stats["start"], "decode_ms": stats["end"] - stats["prompt_end"],
                      "ttft_ms": stats["first"] - stats["start"], "prompt_tokens": stats["prompt_tokens"],
                      "generated_tokens": stats["generated"], "base_rss_kb": base_rss, "peak_rss_kb": peak_rss_kb(),
                      "text": "".join(text)})


def runner_prompts(a):
    """TextLLMRunner over several prompts in one process (bench/llm3.py)."""
    from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner

    register_llm_custom_ops()
    from executorch.extension.pybindings import portable_lib as pl

    if a.threads > 0:  # the runner and the bindings share libexecutorch_threadpool's pool
        pl._unsafe_reset_threadpool(a.threads)
    base_rss = peak_rss_kb()
    t0 = now_ms()
    runner = TextLLMRunner(a.model, a.tokenizer)
    ctor_ms = now_ms() - t0
    runs = []
    for i, path in enumerate(a.prompt_file):
        with open(path) as f:
            prompt = f.read()
        if i:
            runner.reset()
        stats = {}

        def on_stats(s):
            stats.update(load=s.model_load_end_ms - s.model_load_start_ms, start=s.inference_start_ms,
                         prompt_end=s.prompt_eval_end_ms, first=s.first_token_ms, end=s.inference_end_ms,
                         prompt_tokens=s.num_prompt_tokens, generated=s.num_generated_tokens)

        cfg = GenerationConfig(echo=False, max_new_tokens=a.max_new_tokens, temperature=0.0)
        # no token callback: pybind turns each piece into str, and a random model's byte
        # tokens (Llama-3.2-1B at bench scale) are not UTF-8, which aborted generate
        runner.generate(prompt, cfg, token_callback=None, stats_callback=on_stats)
        if not stats:
            raise RuntimeError("the runner reported no statistics")
        runs.append({"prompt_file": os.path.basename(path), "load_ms": ctor_ms + stats["load"] if i == 0 else None,
                     "prefill_ms": stats["prompt_end"] - stats["start"], "decode_ms": stats["end"] - stats["prompt_end"],
                     "ttft_ms": stats["first"] - stats["start"], "prompt_tokens": stats["prompt_tokens"],
                     "generated_tokens": stats["generated"], "peak_rss_kb": peak_rss_kb()})
    return {"ok": True, "runtime": "executorch", "runner": "TextLLMRunner", "threads": pl._threadpool_get_thread_count(),
            "base_rss_kb": base_rss, "load_ms": runs[0]["load_ms"] if runs else ctor_ms, "runs": runs,
            "peak_rss_kb": peak_rss_kb()}


def run(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["forward", "llm", "generate", "runner"])
    ap.add_argument("model")
    ap.add_argument("--method", default="forward")
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--warmup-ms", type=float, default=0.0, help="forward: warm up for at least this long too")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--prefill", type=int, default=128)
    ap.add_argument("--positions", default="")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--max-chunk", type=int, default=0, help="longest token chunk the method accepts")
    ap.add_argument("--prompt", default="")
    ap.add_argument("--tokenizer", default="")
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--prompt-file", action="append", default=[])
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args(argv)
    if a.mode == "generate":
        return generate(a)
    if a.mode == "runner":
        return runner_prompts(a)

    import numpy as np
    import torch
    from executorch.runtime import Runtime

    register_llm_custom_ops()
    base_rss = peak_rss_kb()  # the interpreter, torch and the bindings, before the model
    rt = Runtime.get()
    t0 = now_ms()
    program = rt.load_program(a.model)
    method = program.load_method(a.method)
    load_ms = now_ms() - t0
    res = {"ok": True, "runtime": "executorch", "load_ms": load_ms, "base_rss_kb": base_rss}

    if a.mode == "forward":
        inputs = [torch.from_numpy(np.load(p)) for p in a.input]
        first = None
        r, warm_from = 0, now_ms()
        while r < a.warmup or now_ms() - warm_from < a.warmup_ms:
            t = now_ms()
            method.execute(inputs)
            if r == 0:
                first = now_ms() - t
            r += 1
        times = []
        for _ in range(a.reps):
            t = now_ms()
            method.execute(inputs)
            times.append(now_ms() - t)
        res.update(first_execute_ms=first, execute_ms=times)
    else:
        meta = method.metadata
        pos_meta = meta.input_tensor_meta(1)
        pos_sizes = list(pos_meta.sizes())
        range_positions = pos_sizes[0] > 1 or a.max_chunk > 1
        vocab = int(meta.output_tensor_meta(0).sizes()[-1])
        max_chunk = a.max_chunk or int(meta.input_tensor_meta(0).sizes()[1])

        def fwd(at, n):
            ids = torch.tensor([[(1009 * (at + i) + 17) % vocab for i in range(n)]], dtype=torch.long)
            pos = torch.arange(at, at + n, dtype=torch.long) if range_positions else torch.tensor([at], dtype=torch.long)
            return method.execute([ids, pos])

        S = min(a.prefill, max_chunk)
        prefill, ttft = [], []
        for r in range(a.reps + 1):
            t = now_ms()
            out = fwd(0, S)
            int(torch.argmax(out[0][0, -1]))
            ms = now_ms() - t
            if r > 0 or a.reps == 0:  # the first is a warm-up unless it is the only one
                prefill.append(ms)
            ttft.append(ms)
        decode = []
        at = 0
        for P in sorted(int(x) for x in a.positions.split(",") if x):
            while at < P:
                n = min(max_chunk, P - at)
                fwd(at, n)
                at += n
            steps = []
            for _ in range(a.steps):
                t = now_ms()
                out = fwd(at, 1)
                int(torch.argmax(out[0][0, -1]))
                steps.append(now_ms() - t)
                at += 1
            decode.append({"pos": P, "ms": steps})
        res.update(max_chunk=max_chunk, prefill_tokens=S, prefill_ms=prefill, ttft_cold_ms=[ttft[0]], decode=decode)
    res["peak_rss_kb"] = peak_rss_kb()
    return res


def run_safe(argv):
    try:
        return run(argv)
    except BaseException as e:  # SystemExit from argparse too; reported as "unsupported"/"error"
        return {"ok": False, "error": f"{type(e).__name__}: {e}"[:500]}


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        # One job per stdin line (a JSON list of arguments), one JSON line back: saves
        # importing torch for every small case (peak RSS is then not per case).
        import torch  # noqa: F401  (imported once, before the first job)

        # The runtime's C++ code prints to stdout (the LLM runner's text and stats):
        # keep the protocol on a private copy of stdout and send fd 1 to stderr.
        proto = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)
        print(json.dumps({"ok": True, "ready": True}), file=proto, flush=True)
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(run_safe(json.loads(line))), file=proto, flush=True)
    else:
        # as in serve: the runtime's C++ prints (the runner's text and stats) go to stderr,
        # so its buffered stdout can never land after the JSON line
        proto = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)
        res = run_safe(sys.argv[1:])
        print(json.dumps(res), file=proto, flush=True)
        sys.exit(0 if res.get("ok") else 2)
