#!/usr/bin/env python3
"""Records the design's scenarios as Kineto traces, control and test side by side.

    python3 scripts/record_scenarios.py OUT_DIR [--scenario NAME ...] [--device cpu|cuda]
                                        [--runs N] [--steps S] [--same]

Scenarios (each writes OUT_DIR/<name>/{control,test}/trace.json.gz, or with --runs N
OUT_DIR/<name>/{control,test}/run1/ … runN/trace.json.gz):
  resnet      torchvision ResNet-50 (control) against ResNet-152 (test), one training step
  attention   a small transformer with hand-written attention (control) against
              F.scaled_dot_product_attention (test), one training step
  precision   the transformer in fp32 (control) against bf16 autocast (test)
  nomodules   the transformer recorded without with_stack (no nn.Module frames) on both sides
  fused       the transformer with LayerNorm and GELU written out in tensor operations (control)
              against nn.LayerNorm and F.gelu (test)

Every trace is one profiled training step (forward, backward, optimizer) after a warm-up step,
`with_stack=True` (except `nomodules`), `record_shapes=True`, `profile_memory=True`. Inputs are
small so that the CPU traces stay a few MB. Needs torch (and torchvision for `resnet`); on a
machine with CUDA, `--device cuda` records kernels too.

`--runs N` records N runs per side for a verdict between runs (docs/significance.md), each run
a fresh process, the sides interleaved (control run1, test run1, control run2, …) so that slow
drifts of the machine fall on both alike; `--steps S` profiles S steps per run (default 1, and
5 with --runs); `--same` records the control program on both sides (an A/A set, to calibrate).
"""
import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


class ManualAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
        att = att.softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(y)


class SdpaAttention(ManualAttention):
    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, d)
        return self.proj(y)


class ManualLayerNorm(nn.Module):
    """LayerNorm written out in tensor operations (the `fused` scenario's control)."""

    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


class ManualGELU(nn.Module):
    """GELU (tanh form) written out in tensor operations."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


class Block(nn.Module):
    def __init__(self, dim, heads, attention, manual=False):
        super().__init__()
        norm = ManualLayerNorm if manual else nn.LayerNorm
        self.norm1 = norm(dim)
        self.attn = attention(dim, heads)
        self.norm2 = norm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), ManualGELU() if manual else nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, attention, dim=128, heads=4, depth=4, vocab=1000, manual=False):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.Sequential(*[Block(dim, heads, attention, manual) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        return self.head(self.norm(self.blocks(self.embed(tokens))))


def transformer_step(attention, dtype, device, manual=False):
    torch.manual_seed(0)
    model = Transformer(attention, manual=manual).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    tokens = torch.randint(0, 1000, (8, 64), device=device)

    def step():
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=dtype == torch.bfloat16):
            logits = model(tokens)
            loss = F.cross_entropy(logits.float().view(-1, 1000), tokens.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad()

    return step


def resnet_step(depth, device):
    import torchvision

    torch.manual_seed(0)
    model = getattr(torchvision.models, f"resnet{depth}")(num_classes=10).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    images = torch.randn(2, 3, 64, 64, device=device)
    labels = torch.randint(0, 10, (2,), device=device)

    def step():
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        opt.step()
        opt.zero_grad()

    return step


def record(step, path, device, with_stack=True, steps=1):
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1)
    tmp = tempfile.mkdtemp()
    raw = os.path.join(tmp, "trace.json")
    with torch.profiler.profile(
        activities=activities,
        schedule=schedule,
        with_stack=with_stack,
        record_shapes=True,
        profile_memory=True,
        on_trace_ready=lambda p: p.export_chrome_trace(raw),
    ) as prof:
        for _ in range(1 + steps):
            step()
            if device == "cuda":
                torch.cuda.synchronize()
            prof.step()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(raw, "rb") as src, gzip.open(path, "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    shutil.rmtree(tmp)
    print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB gzipped")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--scenario", action="append", choices=["resnet", "attention", "precision", "nomodules", "fused"])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--runs", type=int, default=0, help="runs per side, each a fresh process (run1/ … runN/)")
    ap.add_argument("--steps", type=int, default=0, help="profiled steps per run (default 1; 5 with --runs)")
    ap.add_argument("--same", action="store_true", help="the control program on both sides (an A/A set)")
    ap.add_argument("--one", nargs=2, metavar=("SIDE", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    steps = args.steps or (5 if args.runs else 1)
    torch.set_num_threads(1)
    dev = args.device
    sides = {
        "resnet": (lambda: resnet_step(50, dev), lambda: resnet_step(152, dev), True),
        "attention": (
            lambda: transformer_step(ManualAttention, torch.float32, dev),
            lambda: transformer_step(SdpaAttention, torch.float32, dev),
            True,
        ),
        "precision": (
            lambda: transformer_step(SdpaAttention, torch.float32, dev),
            lambda: transformer_step(SdpaAttention, torch.bfloat16, dev),
            True,
        ),
        "nomodules": (
            lambda: transformer_step(ManualAttention, torch.float32, dev),
            lambda: transformer_step(SdpaAttention, torch.float32, dev),
            False,
        ),
        "fused": (
            lambda: transformer_step(SdpaAttention, torch.float32, dev, manual=True),
            lambda: transformer_step(SdpaAttention, torch.float32, dev),
            True,
        ),
    }
    if args.one:
        # One run in this process (called by --runs): the first scenario, one side.
        control, test, with_stack = sides[args.scenario[0]]
        make = control if args.one[0] == "control" or args.same else test
        record(make(), args.one[1], dev, with_stack, steps)
        return
    for name in args.scenario or list(sides):
        control, test, with_stack = sides[name]
        if not args.runs:
            for side, make in (("control", control), ("test", test)):
                record(make(), os.path.join(args.out, name, side, "trace.json.gz"), dev, with_stack, steps)
            continue
        for run in range(1, args.runs + 1):
            for side in ("control", "test"):
                path = os.path.join(args.out, name, side, f"run{run}", "trace.json.gz")
                cmd = [sys.executable, os.path.abspath(__file__), args.out, "--scenario", name, "--device", dev,
                       "--steps", str(steps), "--one", side, path] + (["--same"] if args.same else [])
                subprocess.run(cmd, check=True)


if __name__ == "__main__":
    main()
