"""Greedy ids of pte-run against recorded ones (transformers' references.json from
fixtures/make_smollm2.py, or the official runtime's from fixtures/et_greedy.py):

  .venv/bin/python scripts/compare_greedy.py MODEL.pte RECORDED.json [--tokenizer T] [-n 32]
      [--pte-run build/bin/pte-run]

Runs `pte-run MODEL.pte PROMPT --ids --ignore-eos -n N` (with --chat for chat cases) per
recorded case and prints the first generated position where the ids differ (None: all
equal). Exit status 1 when any case differs.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("recorded")
    ap.add_argument("--tokenizer", default="")
    ap.add_argument("-n", type=int, default=32)
    ap.add_argument("--pte-run", default=str(Path(__file__).resolve().parent.parent / "build/bin/pte-run"))
    a = ap.parse_args()
    cases = json.loads(Path(a.recorded).read_text())["cases"]
    tok = a.tokenizer or str(Path(a.model).parent / "tokenizer.json")
    differ = 0
    for c in cases:
        args = [a.pte_run, a.model, c["prompt"], "--tokenizer", tok, "-n", str(a.n), "--ignore-eos", "--ids"]
        if c.get("chat"):
            args.append("--chat")
        r = subprocess.run(args, capture_output=True, text=True)
        m = re.findall(r"generated ids:\s*([\d ]+)", r.stderr)
        if r.returncode != 0 or not m:
            print(f"{c['prompt'][:40]!r:44s} pte-run failed: {r.stderr.strip()[-300:]}")
            differ += 1
            continue
        ids = [int(t) for t in m[-1].split()]
        want = c["greedy_ids"][: a.n]
        first = next((i for i, (x, y) in enumerate(zip(ids, want)) if x != y), None)
        if first is None and len(ids) < len(want):
            first = len(ids)
        differ += first is not None
        print(f"{c['prompt'][:40]!r:44s} {len(ids)} ids, first mismatch: {first}", flush=True)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
