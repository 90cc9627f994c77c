#!/usr/bin/python3
"""Build a torch nn.MultiheadAttention with a scalar readout, save it as
.npz and .safetensors, and record its outputs on random sequences.

The layer file tests and the recovery tests of headlab run this with
Debian's /usr/bin/python3 (python3-torch, python3-numpy):

    torchlayer.py --heads 2 --width 4 --seed 1 [--count N] [--bias] \
        [--train 300] [--transformer K] --out DIR

DIR (DIR/SEED/ for each of N seeds) receives layer.npz and layer.safetensors (the state dict, the readout
as readout.weight, num_heads) and outputs.json: {"X": [sequences],
"y": [readout · attention output at the last token]}. With --transformer K
the model is the attention, then Linear(E, K, bias=False), ReLU and
Linear(K, 1, bias=False) (keys ffn.0.weight and ffn.2.weight) instead of
the readout.
"""
import argparse
import json
import os
import struct

import numpy as np
import torch


class Model(torch.nn.Module):
    def __init__(self, width, heads, bias, ffn):
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(width, heads, bias=bias, batch_first=True, dtype=torch.float64)
        if ffn:
            self.ffn = torch.nn.Sequential(
                torch.nn.Linear(width, ffn, bias=False, dtype=torch.float64),
                torch.nn.ReLU(),
                torch.nn.Linear(ffn, 1, bias=False, dtype=torch.float64))
        else:
            self.readout = torch.nn.Linear(width, 1, bias=False, dtype=torch.float64)

    def forward(self, x):  # x: (batch, n, width); the last token is the query
        out, _ = self.attn(x[:, -1:, :], x, x, need_weights=False)
        head = self.ffn if hasattr(self, "ffn") else self.readout
        return head(out)[:, 0, 0]


def save_safetensors(path, tensors, metadata):
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype="<f8").tobytes()
        header[name] = {"dtype": "F64", "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--heads", type=int, required=True)
    p.add_argument("--width", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=1, help="layers of seeds seed…seed+count−1, in DIR/SEED/")
    p.add_argument("--bias", action="store_true")
    p.add_argument("--train", type=int, default=0, help="Adam steps on a toy task")
    p.add_argument("--transformer", type=int, default=0, help="units K of a ReLU network instead of the readout")
    p.add_argument("--sequences", type=int, default=50)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if a.count > 1:
        out = a.out
        for seed in range(a.seed, a.seed + a.count):
            a.seed, a.out = seed, os.path.join(out, str(seed))
            build(a)
    else:
        build(a)


def build(a):
    torch.manual_seed(a.seed)
    m = Model(a.width, a.heads, a.bias, a.transformer)
    if a.bias:  # torch starts its biases at 0; draw them, as training would move them
        with torch.no_grad():
            m.attn.in_proj_bias.normal_(0, 0.2)
            m.attn.out_proj.bias.normal_(0, 0.2)
    if a.train:  # the toy task: the mean of the first coordinate over the tokens
        opt = torch.optim.Adam(m.parameters(), lr=1e-2)
        for _ in range(a.train):
            x = torch.randn(32, 6, a.width, dtype=torch.float64)
            loss = ((m(x) - x[:, :, 0].mean(1)) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    state = {k: v.detach().numpy() for k, v in m.state_dict().items()}
    state = {k.removeprefix("attn."): v for k, v in state.items()}
    os.makedirs(a.out, exist_ok=True)
    np.savez(os.path.join(a.out, "layer.npz"), num_heads=np.int64(a.heads), **state)
    save_safetensors(os.path.join(a.out, "layer.safetensors"), state, {"num_heads": str(a.heads)})
    rng = np.random.default_rng(a.seed)
    xs, ys = [], []
    with torch.no_grad():
        for _ in range(a.sequences):
            x = rng.normal(size=(int(rng.integers(1, 9)), a.width))
            xs.append(x.tolist())
            ys.append(float(m(torch.tensor(x[None]))[0]))
    with open(os.path.join(a.out, "outputs.json"), "w") as f:
        json.dump({"X": xs, "y": ys}, f)


if __name__ == "__main__":
    main()
