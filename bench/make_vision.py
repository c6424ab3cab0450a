"""Held-out-style vision programs at their published sizes with seeded random weights, for
the benchmark: speed depends on the shapes, not on the values. Works with the model hub
unreachable (HF_HUB_OFFLINE=1). Into $VISION_DIR (default models/vision, git-ignored):

  <name>_xnnpack.pte     torch.export.export(strict=False) of the eager model (output: one
                         plain tensor, logits or predicted_depth), then
                         to_edge_transform_and_lower(partitioner=[XnnpackPartitioner()]) and
                         to_executorch(): fp32, as a user exports a vision model for XNNPACK
  <name>_input.npy       the input: a seeded 1x3xHxW float32 image, uniform in [-1, 1]
  <name>_expected.npy    the eager PyTorch output on that input (float32)
  manifest.json          per model: name, file, inputs (paths relative to the folder),
                         expected, description (architecture, parameter count, input shape),
                         export_seconds

  .venv/bin/python bench/make_vision.py [--models resnet50,mobilenet_v2,...] [--out models/vision]
      [--force]

Models (transformers classes; configurations written by hand below from the published
config.json of the named checkpoints, not downloaded; weights are random, drawn by the
classes' own initialisers after torch.manual_seed; BatchNorm statistics are then set from
one pass over another seeded image so the activations keep trained-like magnitudes):

  resnet50              ResNetForImageClassification like microsoft/resnet-50, 224x224
  mobilenet_v2          MobileNetV2ForImageClassification like google/mobilenet_v2_1.0_224
                        (depthwise convolutions, TF "SAME" padding), 224x224
  convnext_tiny         ConvNextForImageClassification like facebook/convnext-tiny-224
                        (7x7 depthwise convolutions, LayerNorm, GELU), 224x224
  depth_anything_small  DepthAnythingForDepthEstimation like LiheYoung/depth-anything-small-hf
                        (Dinov2-small backbone, DPT neck and head: convolutions, transposed
                        convolutions, bilinear upsampling), 518x518 (its native size)
  dpt_hybrid            DPTForDepthEstimation like Intel/dpt-hybrid-midas (BiT ResNet stem +
                        ViT-base, DPT neck and head), 384x384

Every file that exists is kept (a rerun only makes what is missing; --force remakes the
selected models); manifest.json lists every model whose files are all there. Run it
niced, one process at a time (an export holds several copies of the weights). On two
busy cores an export (mostly the lowering) took 20-25 s for each 224x224 classifier, about
1 min for depth_anything_small and 1.5 min for dpt_hybrid (462 MiB .pte).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

SEED = 20261209

# The published architectures (hand-written; weights are random). "labels": the size of
# the classifier (id2label) of the checkpoint.
MODELS = {
    "resnet50": dict(
        cls="ResNetForImageClassification", config_cls="ResNetConfig", source="microsoft/resnet-50",
        arch="ResNet-50 (bottleneck blocks 3/4/6/3, widths 256-2048, BatchNorm, ReLU), 1000 classes",
        size=224, output="logits", labels=1000,
        config=dict(num_channels=3, embedding_size=64, hidden_sizes=[256, 512, 1024, 2048], depths=[3, 4, 6, 3],
                    layer_type="bottleneck", hidden_act="relu", downsample_in_first_stage=False)),
    "mobilenet_v2": dict(
        cls="MobileNetV2ForImageClassification", config_cls="MobileNetV2Config",
        source="google/mobilenet_v2_1.0_224",
        arch="MobileNetV2 1.0 (inverted residuals, 3x3 depthwise convolutions, ReLU6, TF SAME padding), "
             "1001 classes",
        size=224, output="logits", labels=1001,
        config=dict(num_channels=3, image_size=224, depth_multiplier=1.0, depth_divisible_by=8, min_depth=8,
                    expand_ratio=6, output_stride=32, first_layer_is_expansion=True, finegrained_output=True,
                    hidden_act="relu6", tf_padding=True, classifier_dropout_prob=0.2, initializer_range=0.02,
                    layer_norm_eps=0.001, semantic_loss_ignore_index=255)),
    "convnext_tiny": dict(
        cls="ConvNextForImageClassification", config_cls="ConvNextConfig", source="facebook/convnext-tiny-224",
        arch="ConvNeXt-T (stages 3/3/9/3, widths 96-768, 7x7 depthwise convolutions, LayerNorm, GELU, "
             "layer scale), 1000 classes",
        size=224, output="logits", labels=1000,
        config=dict(num_channels=3, patch_size=4, num_stages=4, hidden_sizes=[96, 192, 384, 768], depths=[3, 3, 9, 3],
                    hidden_act="gelu", initializer_range=0.02, layer_norm_eps=1e-12, layer_scale_init_value=1e-6,
                    drop_path_rate=0.0, image_size=224)),
    "depth_anything_small": dict(
        cls="DepthAnythingForDepthEstimation", config_cls="DepthAnythingConfig",
        source="LiheYoung/depth-anything-small-hf",
        arch="Depth Anything small: Dinov2-small backbone (12 layers, hidden 384, 6 heads, patch 14; features "
             "of layers 9-12) + DPT neck (reassemble: 4x/2x transposed convolutions, 1x, stride-2 convolution; "
             "fusion 64 channels, bilinear upsampling) + depth head; at 518x518, the checkpoint's native size "
             "(it exports at that size)",
        size=518, output="predicted_depth",
        config=dict(backbone_config=dict(model_type="dinov2", hidden_size=384, num_attention_heads=6, image_size=518,
                                         patch_size=14, out_features=["stage9", "stage10", "stage11", "stage12"],
                                         out_indices=[9, 10, 11, 12], reshape_hidden_states=False),
                    backbone=None, use_pretrained_backbone=False, patch_size=14, initializer_range=0.02,
                    reassemble_hidden_size=384, reassemble_factors=[4, 2, 1, 0.5], neck_hidden_sizes=[48, 96, 192, 384],
                    fusion_hidden_size=64, head_in_index=-1, head_hidden_size=32)),
    "dpt_hybrid": dict(
        cls="DPTForDepthEstimation", config_cls="DPTConfig", source="Intel/dpt-hybrid-midas",
        arch="DPT-Hybrid: BiT ResNet stem (stages 3/4/9, weight-standardised convolutions, GroupNorm) + ViT-base "
             "(12 layers, hidden 768, 12 heads) + DPT neck (reassemble, fusion 256 channels) + depth head",
        size=384, output="predicted_depth",
        config=dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                    hidden_act="gelu", image_size=384, patch_size=16, num_channels=3, is_hybrid=True,
                    qkv_bias=True, layer_norm_eps=1e-12, initializer_range=0.02,
                    backbone_out_indices=[2, 5, 8, 11], readout_type="project", reassemble_factors=[1, 1, 1, 0.5],
                    neck_hidden_sizes=[256, 512, 768, 768], fusion_hidden_size=256, head_in_index=-1,
                    use_batch_norm_in_fusion_residual=False, use_bias_in_fusion_residual=None,
                    add_projection=False, use_auxiliary_head=False, neck_ignore_stages=[0, 1],
                    backbone_featmap_shape=[1, 1024, 24, 24],
                    backbone_config=dict(model_type="bit", global_padding="same", layer_type="bottleneck",
                                         depths=[3, 4, 9], out_features=["stage1", "stage2", "stage3"],
                                         embedding_dynamic_padding=True, hidden_sizes=[256, 512, 1024, 2048],
                                         num_groups=32))),
}


class PlainOutput(torch.nn.Module):
    """forward(pixel_values) -> one plain tensor: the named field of the model's output."""

    def __init__(self, model, output: str):
        super().__init__()
        self.model, self.output = model, output

    def forward(self, pixel_values):
        return getattr(self.model(pixel_values=pixel_values, return_dict=True), self.output)


def build(name: str, seed: int):
    import transformers

    spec = MODELS[name]
    torch.manual_seed(seed)
    cfg = getattr(transformers, spec["config_cls"])(**spec["config"])
    if "labels" in spec:
        cfg.num_labels = spec["labels"]
    model = PlainOutput(getattr(transformers, spec["cls"])(cfg), spec["output"]).eval()
    calibrate_batchnorm(model, image(name, seed + 1))
    return model


def calibrate_batchnorm(model, x: np.ndarray):
    """Random weights with BatchNorm's initial statistics (mean 0, variance 1) shrink or grow
    the activations layer after layer (MobileNetV2's logits come out near 1e-22, on the way
    to subnormal numbers, which are slow on x86). As in a trained network, set each
    BatchNorm's running statistics to those of its input: one forward pass on another
    seeded image with only the BatchNorm layers in training mode and momentum 1."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    saved = [m.momentum for m in bns]
    for m in bns:
        m.momentum = 1.0
        m.train()
    with torch.no_grad():
        model(torch.from_numpy(x))
    for m, mom in zip(bns, saved):
        m.momentum = mom
        m.eval()


def image(name: str, seed: int) -> np.ndarray:
    size = MODELS[name]["size"]
    return np.random.RandomState(seed).uniform(-1.0, 1.0, size=(1, 3, size, size)).astype(np.float32)


def paths(out: Path, name: str) -> dict:
    return dict(pte=out / f"{name}_xnnpack.pte", input=out / f"{name}_input.npy", expected=out / f"{name}_expected.npy")


def entry(name: str, out: Path, seed: int, n_params: int, seconds) -> dict:
    spec, p = MODELS[name], paths(out, name)
    x_shape = list(np.load(p["input"], mmap_mode="r").shape)
    y_shape = list(np.load(p["expected"], mmap_mode="r").shape)
    return dict(
        name=name, file=p["pte"].name, inputs=[p["input"].name], expected=p["expected"].name,
        description=f"{spec['arch']}; like {spec['source']} (config written by hand, random weights, seed {seed}); "
                    f"{n_params:,} parameters; input f32{x_shape} uniform in [-1, 1]; "
                    f"output {spec['output']} f32{y_shape}",
        parameters=n_params, input_shape=x_shape, output_shape=y_shape,
        export_seconds=None if seconds is None else round(seconds, 1))


def make(name: str, out: Path, seed: int) -> dict:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    p = paths(out, name)
    model = build(name, seed)
    n_params = sum(t.numel() for t in model.parameters())
    x = image(name, seed)
    xt = torch.from_numpy(x)
    with torch.no_grad():
        expected = model(xt).numpy().astype(np.float32)
    if not np.isfinite(expected).all():
        raise RuntimeError(f"{name}: the eager output is not finite")
    print(f"[{name}] {n_params / 1e6:.1f}M parameters, input {list(x.shape)}, output {list(expected.shape)}",
          flush=True)
    t0 = time.perf_counter()
    with torch.no_grad():
        ep = torch.export.export(model, (xt,), strict=False)
    t_export = time.perf_counter() - t0
    edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
    t_lower = time.perf_counter() - t0 - t_export
    buf = edge.to_executorch().buffer
    seconds = time.perf_counter() - t0
    tmp = p["pte"].with_suffix(".pte.tmp")
    tmp.write_bytes(buf)
    np.save(p["input"], x)
    np.save(p["expected"], expected)
    tmp.replace(p["pte"])  # the .pte last: its presence means the model is complete
    print(f"[{name}] export {t_export:.1f} s, lower {t_lower:.1f} s, total {seconds:.1f} s, "
          f"{len(buf) / 2**20:.1f} MiB", flush=True)
    return entry(name, out, seed, n_params, seconds)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_out = os.environ.get("VISION_DIR") or str(ROOT / "models" / "vision")
    ap.add_argument("--out", default=default_out, help="output folder (default $VISION_DIR or models/vision)")
    ap.add_argument("--models", default=",".join(MODELS),
                    help=f"comma-separated subset of {','.join(MODELS)}")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--force", action="store_true", help="remake the selected models even if their files exist")
    a = ap.parse_args(argv)
    names = [n for n in a.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {unknown}; known: {list(MODELS)}")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    man_path = out / "manifest.json"
    entries = {}
    if man_path.exists():
        entries = {e["name"]: e for e in json.loads(man_path.read_text()).get("models", [])}
    failed = []
    for name in names:
        if all(f.exists() for f in paths(out, name).values()) and not a.force:
            print(f"[{name}] exists, skipped", flush=True)
            if name not in entries:  # the manifest was lost: describe the files again
                n_params = sum(t.numel() for t in build(name, a.seed).parameters())
                entries[name] = entry(name, out, a.seed, n_params, None)
        else:
            try:
                entries[name] = make(name, out, a.seed)
            except Exception as e:  # keep going with the others; reported at the end
                print(f"[{name}] FAILED: {type(e).__name__}: {e}", flush=True)
                failed.append(name)
        # written after every model so an interrupted run keeps what it made
        keep = [entries[n] for n in MODELS if n in entries and all(f.exists() for f in paths(out, n).values())]
        man_path.write_text(json.dumps({"seed": a.seed, "models": keep}, indent=1) + "\n")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
