"""Intermediate outputs of the official ExecuTorch runtime, per instruction, compared
with `pte-run run --dump` on the same program and inputs: finds the first instruction
whose output differs (debugging a disagreement between the two runtimes).

  .venv/bin/python scripts/et_intermediates.py MODEL.pte [--input a.npy... --then]... \
      --input a.npy [--input b.npy]... --ours DIR [--method forward] [--top 20]

DIR is what `pte-run run MODEL.pte [--input ... --then]... --input ... --dump DIR` wrote
(index.tsv + .npy). Calls before the last (`--then`: a prefill before a decode step)
run first with their state kept; the last call's intermediates are compared.
ExecuTorch records, with ETDump's intermediate-output level, the output of each
kernel and delegate call; the last tensor arguments of our dump are the outputs.
Prints one line per compared instruction with max |diff| and the max |value|.
"""
from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

import numpy as np

ET_TO_NP = {0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64, 5: np.float16, 6: np.float32,
            7: np.float64, 11: np.bool_}


def et_outputs(model: str, calls: list[list[np.ndarray]], method: str):
    import torch
    try:
        from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
        import executorch.kernels.quantized  # noqa: F401
    except Exception:
        pass
    from executorch.extension.pybindings.portable_lib import _load_for_executorch
    from executorch.devtools.etdump.serialize import deserialize_from_etdump_flatcc

    m = _load_for_executorch(model, enable_etdump=True, debug_buffer_size=1 << 30)
    for inputs in calls:
        m.run_method(method, tuple(torch.from_numpy(x) for x in inputs))
    with tempfile.TemporaryDirectory() as d:
        ep, bp = f"{d}/run.etdump", f"{d}/run.bin"
        m.write_etdump_result_to_file(ep, bp)
        dump = deserialize_from_etdump_flatcc(Path(ep).read_bytes())
        buf = Path(bp).read_bytes()
    out = {}  # (chain, instruction) -> [arrays]
    for rd in dump.run_data[-1:]:
        for ev in rd.events or []:
            de = ev.debug_event
            if de is None or de.debug_entry is None:
                continue
            v = de.debug_entry
            tensors = [v.tensor] if v.tensor is not None else (v.tensor_list.tensors if v.tensor_list else [])
            arrs = []
            for t in tensors:
                dt = ET_TO_NP.get(int(t.scalar_type.value) if hasattr(t.scalar_type, "value") else int(t.scalar_type))
                if dt is None or t.offset is None:
                    continue
                n = int(np.prod(t.sizes)) if t.sizes else 1
                arrs.append(np.frombuffer(buf, dtype=dt, count=n, offset=t.offset).reshape(t.sizes))
            out.setdefault((de.chain_index, de.instruction_id), []).extend(arrs)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--then", action="append_const", const="--then", dest="input")
    ap.add_argument("--ours", required=True)
    ap.add_argument("--method", default="forward")
    ap.add_argument("--top", type=int, default=0, help="print only the first N differing instructions")
    ap.add_argument("--tol", type=float, default=1e-5, help="relative difference reported as differing")
    a = ap.parse_args()
    calls = [[]]
    for p in a.input:
        if p == "--then":
            calls.append([])
        else:
            calls[-1].append(np.load(p))
    et = et_outputs(a.model, calls, a.method)
    ours = {}
    with open(Path(a.ours) / "index.tsv") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            key = (int(row["chain"]), int(row["instruction"]))
            ours.setdefault(key, {"name": row["name"], "args": []})["args"].append(Path(a.ours) / row["file"])
    shown = 0
    for key in sorted(et):
        if key not in ours:
            continue
        ets = et[key]
        args = ours[key]["args"]
        mine = [np.load(p) for p in args[-len(ets):]] if ets else []
        for j, (e, o) in enumerate(zip(ets, mine)):
            if e.shape != o.shape:
                print(f"c{key[0]} i{key[1]:4d} {ours[key]['name']:40s} out{j}: shape ET {e.shape} ours {o.shape}")
                continue
            ef, of = e.astype(np.float64), o.astype(np.float64)
            d = float(np.max(np.abs(ef - of))) if e.size else 0.0
            mx = float(np.max(np.abs(ef))) if e.size else 0.0
            bad = d > a.tol * max(mx, 1.0)
            if bad or not a.top:
                print(f"c{key[0]} i{key[1]:4d} {ours[key]['name']:40s} out{j} {str(e.shape):18s} max|d| {d:.3g}  max|x| {mx:.3g}"
                      + ("  <-- differs" if bad else ""))
            if bad:
                shown += 1
        if a.top and shown >= a.top:
            break
    print(f"et_intermediates: {len(et)} ET events, {len(ours)} of ours", file=sys.stderr)


if __name__ == "__main__":
    main()
