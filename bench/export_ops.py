"""Exports the per-operator microbenchmark programs (one operator each, at the shapes
SmolLM2-135M runs) for the portable and XNNPACK backends, with their inputs as .npy.
Writes into OUT_DIR (git-ignored): <name>_<backend>.pte, <name>_input_<k>.npy, ops.json.
Skips files that already exist.

  .venv/bin/python bench/export_ops.py OUT_DIR
"""
import json
import os
import sys

import numpy as np
import torch


class Linear(torch.nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.l = torch.nn.Linear(k, n, bias=False)

    def forward(self, x):
        return self.l(x)


class Fn(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *xs):
        return self.f(*xs)


def rmsnorm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w


def swiglu(g, u):
    return torch.nn.functional.silu(g) * u


# name -> (module, inputs, description)
def cases():
    g = torch.Generator().manual_seed(0)
    r = lambda *s: torch.randn(*s, generator=g)
    return {
        "linear_576x576_m1": (Linear(576, 576), (r(1, 1, 576),), "linear 576->576, 1 token (q/o proj)"),
        "linear_576x1536_m1": (Linear(576, 1536), (r(1, 1, 576),), "linear 576->1536, 1 token (gate/up)"),
        "linear_1536x576_m1": (Linear(1536, 576), (r(1, 1, 1536),), "linear 1536->576, 1 token (down)"),
        "linear_576x49152_m1": (Linear(576, 49152), (r(1, 1, 576),), "linear 576->49152, 1 token (lm head, 113 MB)"),
        "linear_576x1536_m128": (Linear(576, 1536), (r(1, 128, 576),), "linear 576->1536, 128 tokens (prefill)"),
        "bmm_9x128x64x128": (Fn(torch.bmm), (r(9, 128, 64), r(9, 64, 128)), "bmm [9,128,64] x [9,64,128] (attention scores)"),
        "softmax_9x128x128": (Fn(lambda x: torch.softmax(x, -1)), (r(9, 128, 128),), "softmax over [9,128,128]"),
        "rmsnorm_128x576": (Fn(rmsnorm), (r(1, 128, 576), r(576)), "RMSNorm of [1,128,576] (pow, mean, rsqrt, mul)"),
        "swiglu_128x1536": (Fn(swiglu), (r(1, 128, 1536), r(1, 128, 1536)), "silu(g) * u over [1,128,1536]"),
        "add_128x576": (Fn(torch.add), (r(1, 128, 576), r(1, 128, 576)), "add [1,128,576]"),
    }


def export(mod, inputs, backend, path):
    from executorch.exir import to_edge_transform_and_lower

    ep = torch.export.export(mod.eval(), inputs)
    parts = []
    if backend == "xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        parts = [XnnpackPartitioner()]
    prog = to_edge_transform_and_lower(ep, partitioner=parts).to_executorch()
    with open(path, "wb") as f:
        f.write(prog.buffer)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    index = []
    for name, (mod, inputs, desc) in cases().items():
        files = []
        for k, x in enumerate(inputs):
            p = os.path.join(out, f"{name}_input_{k}.npy")
            if not os.path.exists(p):
                np.save(p, x.numpy())
            files.append(p)
        for backend in ("portable", "xnnpack"):
            p = os.path.join(out, f"{name}_{backend}.pte")
            if not os.path.exists(p):
                with torch.no_grad():
                    export(mod, inputs, backend, p)
            index.append({"name": name, "backend": backend, "file": p, "inputs": files, "description": desc})
        print(f"exported {name}", flush=True)
    with open(os.path.join(out, "ops.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
