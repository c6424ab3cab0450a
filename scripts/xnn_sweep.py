"""Bit-for-bit sweep of pte-run's XNNPACK approximations against the official runtime.

For each op, a one-op program lowered with XnnpackPartitioner runs on 65536 inputs (a
wide uniform range, a normal cluster, and the special values: signed zeros, infinities,
NaN, denormals, the clamp points) through the official ExecuTorch runtime and through
`pte-run run`; prints per op how many outputs differ in their bits (NaN equals NaN).
Exit status 1 when any op differs. The committed fixture xnode_transcendental_f32_xnnpack
checks the same ops on fewer, ordinary values in every test run; this covers the edges.

  .venv/bin/python scripts/xnn_sweep.py [--pte-run build/bin/pte-run] [--only tanh,exp]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
N = 1 << 16


def ops():
    import torch
    import torch.nn.functional as F

    return {
        "tanh": torch.tanh, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
        "gelu": F.gelu, "hardswish": F.hardswish, "sigmoid": torch.sigmoid, "sin": torch.sin, "cos": torch.cos,
        "softmax": lambda x: torch.softmax(x, -1),
        # average pooling over windows of 25 and 16 taps (XNNPACK sums nine at a time)
        "avgpool5_p2": lambda x: F.avg_pool2d(x.reshape(1, 64, 32, 32), 5, 1, 2, count_include_pad=False),
        "avgpool4": lambda x: F.avg_pool2d(x.reshape(1, 64, 32, 32), 4),
        "mean_hw": lambda x: x.reshape(1, 64, 32, 32).mean((2, 3), keepdim=True),
    }


def inputs(name: str, rng: np.random.Generator) -> np.ndarray:
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-45, 1.17549435e-38, 3e38, -3e38, 100.0, -100.0,
                89.0, -89.0, 7.9807181358, -7.9807181358, 5.163828373, -5.163828373, 3.0, -3.0, 1.0, 0.5]
    if name in ("log", "sqrt", "rsqrt"):
        x = np.exp(rng.uniform(-90, 90, N)).astype(np.float32)
    elif name in ("softmax", "mean_hw") or name.startswith("avgpool"):
        x = (rng.standard_normal((256, 256)) * rng.uniform(0.1, 30, (256, 1))).astype(np.float32).reshape(-1)
        specials = []  # rows / windows with inf or NaN: keep the values finite
    else:
        x = rng.uniform(-20, 20, N).astype(np.float32)
        x[N // 2:] = (rng.standard_normal(N // 2) * 3).astype(np.float32)
    x[:len(specials)] = np.array(specials, dtype=np.float32)
    return x.reshape(256, 256)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pte-run", default=str(ROOT / "build" / "bin" / "pte-run"))
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    class One(torch.nn.Module):
        def __init__(self, f):
            super().__init__()
            self.f = f

        def forward(self, x):
            return self.f(x)

    table = ops()
    names = [n for n in args.only.split(",") if n] or list(table)
    rng = np.random.default_rng(0)
    bad_ops = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            x = inputs(name, rng)
            xt = torch.from_numpy(x)
            ep = torch.export.export(One(table[name]).eval(), (xt,))
            prog = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
            pte, xin, out = Path(tmp, f"{name}.pte"), Path(tmp, f"{name}.npy"), Path(tmp, name)
            if b"XnnpackBackend" not in prog.buffer:
                print(f"{name:12s} not delegated to XNNPACK by the partitioner (skipped)", flush=True)
                continue
            pte.write_bytes(prog.buffer)
            np.save(xin, x)
            ref = Runtime.get().load_program(str(pte)).load_method("forward").execute([xt.clone()])[0].numpy()
            subprocess.run([args.pte_run, "run", str(pte), "--input", str(xin), "--save-outputs", str(out)],
                           check=True, stdout=subprocess.DEVNULL)
            got = np.load(out / "output_0.npy")
            got = got.reshape(ref.shape)
            differ = (got.view(np.uint32) != ref.view(np.uint32)) & ~(np.isnan(got) & np.isnan(ref))
            n_bad = int(differ.sum())
            bad_ops += n_bad > 0
            line = f"{name:12s} {n_bad:6d} of {ref.size} outputs differ from the official runtime"
            if n_bad:
                i = int(np.flatnonzero(differ)[0])
                line += f" (first: index {i}, ours {got.reshape(-1)[i]!r} ET {ref.reshape(-1)[i]!r})"
            print(line, flush=True)
    return 1 if bad_ops else 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(main())
