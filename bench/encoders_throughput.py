"""Sentence embeddings and image+text generation: pte-run against the official runtime on the
same committed fixtures (issue 15's throughput note). Indicative: tiny models, one machine.

  embeddings  pte-run embed MODEL.pte --input-file F --stats (texts/s, its own count) against
              Python: the fixture's tokenizer (tokenizers), executorch.runtime Method.execute
              per text, mean pooling as 1_Pooling says, L2 norm when modules.json asks
  image+text  pte-run MODEL.pte PROMPT --image photo.jpg -n 24 --ignore-eos --stats (decode
              tok/s) against the official runtime driving the three methods as ExecuTorch's
              multimodal runner does (token_embedding -> text_decoder per step), in Python

    .venv/bin/python bench/encoders_throughput.py [--reps 3] [--out bench/results/encoders.md]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTE_RUN = os.path.join(ROOT, "build", "bin", "pte-run")
FX = os.path.join(ROOT, "fixtures", "data")

TEXTS = [f"note {i}: a {w} afternoon by the sea" for i, w in zip(range(200), ["quiet", "long", "bright", "windy"] * 50)]


def load_method(path, name):
    from executorch.runtime import Runtime

    prog = Runtime.get().load_program(path)
    return prog, prog.load_method(name)


def et_embed(model_dir, pte, texts, bound):
    import torch
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.enable_truncation(bound)  # the program's input bound, where pte-run truncates too
    _, m = load_method(os.path.join(model_dir, pte), "forward")
    pool = json.load(open(os.path.join(model_dir, "1_Pooling", "config.json")))
    norm = "Normalize" in open(os.path.join(model_dir, "modules.json")).read()
    t0 = time.perf_counter()
    for t in texts:
        ids = tok.encode(t).ids
        x = torch.tensor([ids], dtype=torch.int64)
        out = m.execute([x, torch.ones_like(x)])[0]
        v = out[0].mean(0) if pool.get("pooling_mode_mean_tokens") else out[0, -1] if pool.get("pooling_mode_lasttoken") else out[0, 0]
        if norm:
            v = v / v.norm()
    return len(texts) / (time.perf_counter() - t0)


def pte_embed(model_dir, pte, texts, tmp):
    f = os.path.join(tmp, "texts.txt")
    with open(f, "w") as fh:
        fh.write("\n".join(texts) + "\n")
    r = subprocess.run([PTE_RUN, "embed", os.path.join(model_dir, pte), "--input-file", f, "--stats", "--threads", "1"],
                       capture_output=True, text=True, check=True)
    line = [x for x in r.stderr.splitlines() if "texts/s" in x][-1]
    return float(line.split("texts/s")[0].split(",")[-1].strip())


def et_multimodal(model_dir, pte, n_new):
    import torch

    ref = json.load(open(os.path.join(model_dir, "references.json")))
    im = ref["images"]["photo.jpg"]
    ids = im["input_ids"]
    image_id = ref["token_ids"]["image"]
    from executorch.runtime import Runtime

    prog = Runtime.get().load_program(os.path.join(model_dir, pte))
    emb, dec, enc = (prog.load_method(n) for n in ("token_embedding", "text_decoder", "vision_encoder"))
    px = torch.from_numpy(np.load(os.path.join(model_dir, im["pixel_values"])))
    t0 = time.perf_counter()
    rows = enc.execute([px])[0][0]
    e = emb.execute([torch.tensor([ids], dtype=torch.int64)])[0].clone()
    pos = [i for i, t in enumerate(ids) if t == image_id]
    e[0, pos] = rows
    logits = dec.execute([e, torch.arange(len(ids), dtype=torch.int64)])[0]
    t1 = time.perf_counter()
    tok = int(torch.argmax(logits[0, -1]))
    p = len(ids)
    for _ in range(n_new - 1):
        e = emb.execute([torch.tensor([[tok]], dtype=torch.int64)])[0]
        logits = dec.execute([e, torch.tensor([p], dtype=torch.int64)])[0]
        tok = int(torch.argmax(logits[0, -1]))
        p += 1
    t2 = time.perf_counter()
    return (t1 - t0) * 1000, (n_new - 1) / (t2 - t1)


def pte_multimodal(model_dir, pte, n_new):
    r = subprocess.run([PTE_RUN, os.path.join(model_dir, pte), "Describe this image.", "--image", os.path.join(model_dir, "photo.jpg"),
                        "-n", str(n_new), "--ignore-eos", "--stats", "--threads", "1"], capture_output=True, text=True, check=True)
    st = [x for x in r.stderr.splitlines() if x.startswith("load ")][-1]
    img = [x for x in r.stderr.splitlines() if x.startswith("images:")][-1]
    dec = float(st.split("decode ")[1].split(" tok/s")[0])
    ttft = float(st.split("first token ")[1].split(" ms")[0])
    enc = float(img.split(" in ")[1].split(" ms")[0])
    return enc + ttft, dec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "encoders.md"))
    a = ap.parse_args()
    tmp = os.path.join(ROOT, "bench", "results", "raw")
    os.makedirs(tmp, exist_ok=True)
    load0 = os.getloadavg()
    rows = []
    for name, pte, bound in [("encoder_st_bert", "model.pte", 32), ("encoder_st_bert", "model_xnnpack.pte", 32),
                             ("encoder_st_qwen3", "model.pte", 31)]:
        d = os.path.join(FX, name)
        ours, theirs = [], []
        for _ in range(a.reps):
            ours.append(pte_embed(d, pte, TEXTS, tmp))
            theirs.append(et_embed(d, pte, TEXTS, bound))
        o, t = statistics.median(ours), statistics.median(theirs)
        rows.append(f"| embeddings, {name}/{pte} | texts/s | {o:.0f} | {t:.0f} | {o / t:.2f}x |")
    d = os.path.join(FX, "multimodal_gemma3")
    for pte in ("model.pte", "model_xnnpack.pte"):
        ours, theirs = [], []
        for _ in range(a.reps):
            ours.append(pte_multimodal(d, pte, 24))
            theirs.append(et_multimodal(d, pte, 24))
        o0, t0 = statistics.median(x[0] for x in ours), statistics.median(x[0] for x in theirs)
        o1, t1 = statistics.median(x[1] for x in ours), statistics.median(x[1] for x in theirs)
        rows.append(f"| image+text, multimodal_gemma3/{pte} | image + 35-token prefill, ms | {o0:.2f} | {t0:.2f} | {t0 / o0:.2f}x |")
        rows.append(f"| image+text, multimodal_gemma3/{pte} | decode tok/s | {o1:.0f} | {t1:.0f} | {o1 / t1:.2f}x |")
    load1 = os.getloadavg()
    with open(a.out, "w") as f:
        f.write("# Sentence embeddings and image+text generation: pte-run vs the official runtime (indicative)\n\n")
        f.write("Written by `bench/encoders_throughput.py` on the committed tiny fixtures (hidden 32): pte-run's CLI "
                "(`--threads 1`, its own `--stats` figures: whole process minus load) against the official runtime's "
                "Python bindings (executorch 1.5.1; tokenizing, pooling and the multimodal runner's loop in Python, "
                f"default threads). Median of {a.reps} repetitions; 200 texts per embedding run; 24 new tokens per "
                "image+text run (the image through the vision encoder, a 35-token prefill, then greedy decode). At these "
                "sizes the figures measure per-call overhead more than kernels; ratio > 1 is better for pte-run.\n\n")
        f.write(f"Machine: {os.cpu_count()} CPUs; load average (1/5/15 min) {load0[0]:.1f}/{load0[1]:.1f}/{load0[2]:.1f} at the start, "
                f"{load1[0]:.1f}/{load1[1]:.1f}/{load1[2]:.1f} at the end; run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n\n")
        f.write("| what | unit | pte-run | official runtime | ratio |\n| --- | --- | --- | --- | --- |\n")
        f.write("\n".join(rows) + "\n")
    print(open(a.out).read())


if __name__ == "__main__":
    sys.exit(main())
