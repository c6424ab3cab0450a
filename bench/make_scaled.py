"""Qwen3-0.6B and Llama-3.2-1B at their published sizes with seeded random weights, for
the benchmark (issue 13, "Scale"): decode speed depends on the shapes, not on the values.
Works with the model hub unreachable (HF_HUB_OFFLINE=1). Per model, into
$SCALED_DIR/<model>/ (default models/scaled, git-ignored):

  hf/                            config.json (hand-written, below), model.safetensors,
                                 tokenizer.json, tokenizer_config.json, generation_config.json
  tokenizer.json, tokenizer_config.json   copies for the runtimes
  <model>_xnnpack.pte            optimum's xnnpack recipe, fp32, custom sdpa + kv cache
  <model>_xnnpack_8da4w.pte      the same with --qlinear 8da4w --qembedding 8w
  <model>_xnnpack_fp16.pte       the same with --dtype float16 (step fp16, not in the default steps)
  gguf/<Name>.F32.gguf           llama.cpp's convert_hf_to_gguf.py from hf/ (--outtype f32)
  gguf/<Name>.Q4_1.gguf, .Q8_0.gguf, .F16.gguf   llama-quantize from the F32 one

  .venv/bin/python bench/make_scaled.py [--models qwen3-0.6b,llama-3.2-1b]
      [--steps hf,fp32,8da4w,fp16,gguf] [--max-seq-len 2304] [--out models/scaled]

The .pte files are exported the way fixtures/make_smollm2.py exports SmolLM2 (its
`export`, optimum-executorch's recipes). The GGUF step needs llama.cpp's source and
llama-quantize: `bash bench/peers/llama_cpp.sh` first ($PEERS_DIR, default models/peers);
the converter runs with this venv's Python and the gguf-py of that source (it puts it on
its own path). Every step skips what exists; run it niced, one model at a time (an fp32
export of the 1B model holds several copies of its 5 GB of weights).

Configurations: written by hand from the published configs of Qwen/Qwen3-0.6B and
meta-llama/Llama-3.2-1B (not downloaded). Tokenizer: SmolLM2-135M's byte-level BPE
(fixtures/tokenizers/smollm2, 49152 entries) with its vocabulary padded by unreachable
entries "[PAD<id>]" (no merge produces them) up to the model's real vocabulary size, so
the embedding table and the lm_head have the real models' shapes and every id the model
can emit decodes. Text tokenizes exactly as with SmolLM2's tokenizer.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fixtures"))

SEED = 20261202

# The published architectures (hand-written; weights are random).
MODELS = {
    "qwen3-0.6b": dict(
        gguf_name="Qwen3-0.6B",
        config=dict(
            architectures=["Qwen3ForCausalLM"], model_type="qwen3",
            hidden_size=1024, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8,
            head_dim=128, intermediate_size=3072, vocab_size=151936, max_position_embeddings=40960,
            rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True, hidden_act="silu",
            attention_bias=False, attention_dropout=0.0, use_sliding_window=False, sliding_window=None,
            max_window_layers=28, initializer_range=0.02, torch_dtype="float32", use_cache=True,
        )),
    "llama-3.2-1b": dict(
        gguf_name="Llama-3.2-1B",
        config=dict(
            architectures=["LlamaForCausalLM"], model_type="llama",
            hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
            head_dim=64, intermediate_size=8192, vocab_size=128256, max_position_embeddings=131072,
            rope_theta=500000.0, rope_scaling=dict(rope_type="llama3", factor=32.0, high_freq_factor=4.0,
                                                   low_freq_factor=1.0, original_max_position_embeddings=8192),
            rms_norm_eps=1e-5, tie_word_embeddings=True, hidden_act="silu", attention_bias=False,
            attention_dropout=0.0, mlp_bias=False, pretraining_tp=1, initializer_range=0.02,
            torch_dtype="float32", use_cache=True,
        )),
}

VARIANTS = {
    "fp32": ("xnnpack", dict(recipe="xnnpack", use_custom_sdpa=True, use_custom_kv_cache=True)),
    "8da4w": ("xnnpack_8da4w", dict(recipe="xnnpack", use_custom_sdpa=True, use_custom_kv_cache=True,
                                     qlinear="8da4w", qembedding="8w")),
    "fp16": ("xnnpack_fp16", dict(recipe="xnnpack", use_custom_sdpa=True, use_custom_kv_cache=True, dtype="float16")),
}


def log(msg):
    print(f"make_scaled: {msg}", flush=True)


def padded_tokenizer(vocab_size: int) -> tuple[dict, dict]:
    """SmolLM2's tokenizer.json with unreachable vocabulary entries up to vocab_size."""
    src = ROOT / "fixtures" / "tokenizers" / "smollm2"
    tok = json.loads((src / "tokenizer.json").read_text())
    cfg = json.loads((src / "tokenizer_config.json").read_text())
    vocab = tok["model"]["vocab"]
    if tok["model"].get("ignore_merges"):
        sys.exit("make_scaled: padding needs a BPE without ignore_merges")
    # The byte-level alphabet covers every byte, so byte fallback never applies; with it on,
    # llama.cpp's converter takes a LlamaForCausalLM's tokenizer for a SentencePiece one
    # (LlamaHfVocab) and llama-completion then fails (newline token not found).
    tok["model"]["byte_fallback"] = False
    used = set(vocab.values()) | {t["id"] for t in tok["added_tokens"]}
    n = max(used) + 1
    if n > vocab_size:
        sys.exit(f"make_scaled: the tokenizer has {n} ids, more than the vocabulary size {vocab_size}")
    for i in range(n, vocab_size):
        vocab[f"[PAD{i}]"] = i
    return tok, cfg


def make_hf(name: str, hf_dir: Path):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, PreTrainedTokenizerFast

    hf_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    spec = dict(MODELS[name]["config"])
    # the tokenizer is (re)written every time: cheap, and the same for the same inputs
    tok_json, tok_cfg = padded_tokenizer(spec["vocab_size"])
    (hf_dir / "tokenizer.json").write_text(json.dumps(tok_json, ensure_ascii=False))
    tok = PreTrainedTokenizerFast(tokenizer_file=str(hf_dir / "tokenizer.json"),
                                  bos_token=tok_cfg["bos_token"], eos_token=tok_cfg["eos_token"],
                                  unk_token=tok_cfg["unk_token"], pad_token=tok_cfg["pad_token"],
                                  clean_up_tokenization_spaces=False)
    assert len(tok) == spec["vocab_size"], (len(tok), spec["vocab_size"])
    tok.save_pretrained(str(hf_dir))
    if (hf_dir / "model.safetensors").exists() or (hf_dir / "model.safetensors.index.json").exists():
        return
    spec.update(bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    model_type = spec.pop("model_type")
    config = AutoConfig.for_model(model_type, **spec)
    torch.manual_seed(SEED)
    # transformers' own initialisation (normal, std 0.02; norms at 1): small values, no overflow
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32).eval()
    n_params = sum(p.numel() for p in model.parameters())
    model.save_pretrained(str(hf_dir))  # safetensors
    model.generation_config.save_pretrained(str(hf_dir))
    log(f"{name}: {n_params / 1e6:.0f} M parameters (seed {SEED}) -> {hf_dir} in {time.time() - t0:.0f}s")


def export_pte(name: str, out: Path, variant: str, max_seq_len: int):
    from make_smollm2 import export

    suffix, opts = VARIANTS[variant]
    fname = f"{name}_{suffix}"
    if (out / f"{fname}.pte").exists():
        return
    export(out / "hf", out, fname, max_seq_len, opts)


def make_gguf(name: str, out: Path, peers: Path):
    src = peers / "llama_cpp_python-0.3.36" / "vendor" / "llama.cpp"
    conv = src / "convert_hf_to_gguf.py"
    quant = peers / "llama.cpp-build" / "bin" / "llama-quantize"
    if not conv.exists() or not quant.exists():
        sys.exit(f"make_scaled: {conv} or {quant} missing: run bash bench/peers/llama_cpp.sh first")
    gdir = out / "gguf"
    gdir.mkdir(parents=True, exist_ok=True)
    base = gdir / MODELS[name]["gguf_name"]
    f32 = Path(f"{base}.F32.gguf")
    if not f32.exists():
        t0 = time.time()
        tmp = Path(f"{f32}.tmp")
        subprocess.run(["nice", sys.executable, str(conv), str(out / "hf"), "--outtype", "f32",
                        "--outfile", str(tmp)], check=True)
        tmp.rename(f32)
        log(f"{name}: {f32.name} ({f32.stat().st_size / 1e6:.0f} MB) in {time.time() - t0:.0f}s")
    for qtype in ("Q4_1", "Q8_0", "F16"):
        q = Path(f"{base}.{qtype}.gguf")
        if q.exists():
            continue
        t0 = time.time()
        tmp = Path(f"{q}.tmp")
        with open(gdir / f"quantize-{qtype}.log", "w") as lf:
            subprocess.run(["nice", str(quant), str(f32), str(tmp), qtype], check=True, stdout=lf, stderr=lf)
        tmp.rename(q)
        log(f"{name}: {q.name} ({q.stat().st_size / 1e6:.0f} MB) in {time.time() - t0:.0f}s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--steps", default="hf,fp32,8da4w,gguf")
    ap.add_argument("--max-seq-len", type=int, default=2304,
                    help="KV cache positions of the .pte files (2304: a 2048-token prompt plus new tokens)")
    ap.add_argument("--out", default=os.environ.get("SCALED_DIR", str(ROOT / "models" / "scaled")))
    ap.add_argument("--peers", default=os.environ.get("PEERS_DIR", str(ROOT / "models" / "peers")))
    a = ap.parse_args()
    steps = [s for s in a.steps.split(",") if s]
    for s in steps:
        if s not in ("hf", "fp32", "8da4w", "fp16", "gguf"):
            sys.exit(f"make_scaled: unknown step {s}")
    for name in [m for m in a.models.split(",") if m]:
        if name not in MODELS:
            sys.exit(f"make_scaled: unknown model {name} (have {', '.join(MODELS)})")
        out = Path(a.out) / name
        if "hf" in steps:
            make_hf(name, out / "hf")
        if not (out / "hf" / "config.json").exists():
            sys.exit(f"make_scaled: {out / 'hf'} missing (step hf)")
        for f in ("tokenizer.json", "tokenizer_config.json"):
            (out / f).write_bytes((out / "hf" / f).read_bytes())
        for v in ("fp32", "8da4w", "fp16"):
            if v in steps:
                export_pte(name, out, v, a.max_seq_len)
        if "gguf" in steps:
            make_gguf(name, out, Path(a.peers))


if __name__ == "__main__":
    main()
