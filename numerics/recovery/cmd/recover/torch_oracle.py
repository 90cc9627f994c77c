#!/usr/bin/python3
"""A value oracle for headlab's recover command: a torch nn.MultiheadAttention.

The layer (float64, H heads of width d; bias=False, or with --bias torch's
biases, drawn from N(0, 0.2²) since torch starts them at 0) with a bias-free
scalar readout u answers y(X) = u . MHA(q = last token, k = v = all tokens)[last],
X the query's tokens (rows, the last one the query token). It is built from
--seed (torch's own initialisation) or loaded with --load FILE, a state dict
saved by --save (.pt by torch, or .npz by numpy: in_proj_weight,
out_proj.weight, readout.weight).

It serves the wire format of headlab/numerics/recovery/remote:
  - by default JSON lines on stdin/stdout: {"id": 7, "tokens": [[x, ...], ...]}
    in, {"id": 7, "y": -0.123} out (numbers, or decimal strings, are read as
    float64; answers are float64 JSON numbers);
  - with --http PORT, a POST of a JSON array of requests answered by the JSON
    array of answers, on 127.0.0.1 (PORT 0 picks a free port; the first line
    on stdout is then the URL).

--dump-truth FILE writes the canonical heads in recover's JSON (-truth):
W_h = (W_k^h)^T W_q^h / sqrt(d/H) and v_h = (W_v^h)^T (W_o^h)^T u, the
head's slices of in_proj_weight and of out_proj.weight's columns.
--count FILE appends each answered id and a hash of its tokens to FILE (and
"# post N" for each HTTP POST of N requests); --die-after N exits with
status 3 after N answers and --delay S sleeps S seconds before each (for
tests); --stats FILE writes {"answers": N, "seconds": S} (the time spent
answering) when stdin ends, and over HTTP a GET answers the same. Example:

  recover -oracle 'python3 torch_oracle.py --heads 2 --width 4 --seed 1' -H 2 -d 4
"""
import argparse
import hashlib
import json
import math
import os
import sys
import threading
import time

import numpy as np
import torch


def build(args):
    torch.manual_seed(args.seed)
    sd = None
    if args.load:
        if args.load.endswith(".npz"):
            z = np.load(args.load)
            sd = {k: torch.from_numpy(z[k]).to(torch.float64) for k in z.files if k != "num_heads"}
        else:
            sd = torch.load(args.load)
    bias = args.bias or (sd is not None and "in_proj_bias" in sd)
    mha = torch.nn.MultiheadAttention(args.width, args.heads, bias=bias, batch_first=True, dtype=torch.float64)
    u = torch.randn(args.width, dtype=torch.float64)
    if bias and sd is None:
        with torch.no_grad():
            mha.in_proj_bias.normal_(0, 0.2)
            mha.out_proj.bias.normal_(0, 0.2)
    if sd is not None:
        u = sd.pop("readout.weight").reshape(-1).to(torch.float64)
        mha.load_state_dict(sd)
    if args.scale != 1:
        with torch.no_grad():
            mha.in_proj_weight.mul_(args.scale)
    mha.eval()
    return mha, u


def save(mha, u, path):
    sd = {k: v.detach().clone() for k, v in mha.state_dict().items()}
    sd["readout.weight"] = u.reshape(1, -1).clone()
    if path.endswith(".npz"):
        np.savez(path, **{k: v.numpy() for k, v in sd.items()})
    else:
        torch.save(sd, path)


def canonical(mha, u):
    d, H = mha.embed_dim, mha.num_heads
    dh = d // H
    wq, wk, wv = mha.in_proj_weight.detach().split(d)
    wo = mha.out_proj.weight.detach()
    heads = []
    C = float(u @ mha.out_proj.bias.detach()) if mha.out_proj.bias is not None else 0.0
    for h in range(H):
        s = slice(h * dh, (h + 1) * dh)
        W = wk[s].T @ wq[s] / math.sqrt(dh)
        v = wv[s].T @ (wo[:, s].T @ u)
        c = [0.0] * d
        if mha.in_proj_bias is not None:
            bq, _, bv = mha.in_proj_bias.detach().split(d)
            c = (wk[s].T @ bq[s] / math.sqrt(dh)).tolist()
            C += float((wo[:, s].T @ u) @ bv[s])
        heads.append({"W": W.tolist(), "c": c, "v": v.tolist()})
    return {"queries": 0, "maxLength": 0, "heads": heads, "C": C, "mode": "", "prec": 0}


class Oracle:
    def __init__(self, mha, u, count, die_after, delay):
        self.mha, self.u, self.delay = mha, u, delay
        self.answers, self.busy = 0, 0.0  # answers given, seconds spent in them
        self.count = open(count, "a") if count else None
        self.left = die_after
        self.lock = threading.Lock()

    def answer(self, req):
        rid = req.get("id")
        with self.lock:
            if self.left is not None:
                if self.left <= 0:
                    sys.stderr.write("torch_oracle: dying as asked (--die-after)\n")
                    sys.stderr.flush()
                    os._exit(3)
                self.left -= 1
        if self.delay:
            time.sleep(self.delay)
        t0 = time.perf_counter()
        try:
            x = torch.tensor([[float(t) for t in row] for row in req["tokens"]], dtype=torch.float64)
            with torch.no_grad():
                x = x.unsqueeze(0)
                out, _ = self.mha(x[:, -1:, :], x, x, need_weights=False)
                y = float(out[0, 0] @ self.u)
            ans = {"id": rid, "y": y}
        except Exception as e:  # an answer, not a crash
            ans = {"id": rid, "error": "%s: %s" % (type(e).__name__, e)}
        with self.lock:
            self.answers += 1
            self.busy += time.perf_counter() - t0
            if self.count:
                key = hashlib.sha1(json.dumps(req["tokens"]).encode()).hexdigest()[:16]
                self.count.write("%s %s\n" % (rid, key))
                self.count.flush()
        return ans


def stats(oracle):
    with oracle.lock:
        return json.dumps({"answers": oracle.answers, "seconds": oracle.busy})


def serve_lines(oracle, stats_file):
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            sys.stderr.write("torch_oracle: a malformed request: %s\n" % e)
            return 2
        out.write(json.dumps(oracle.answer(req)) + "\n")
        out.flush()
    if stats_file:
        with open(stats_file, "w") as f:
            f.write(stats(oracle))
    return 0


def serve_http(oracle, port):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            try:
                reqs = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if oracle.count:
                    with oracle.lock:
                        oracle.count.write("# post %d\n" % len(reqs))
                body = json.dumps([oracle.answer(r) for r in reqs]).encode()
                self.send_response(200)
            except (ValueError, TypeError, KeyError) as e:
                body = ("bad request: %s" % e).encode()
                self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            body = stats(oracle).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print("http://127.0.0.1:%d/" % srv.server_address[1], flush=True)
    srv.serve_forever()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--width", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--scale", type=float, default=1, help="multiply in_proj_weight by this")
    p.add_argument("--bias", action="store_true", help="torch's biases, drawn from N(0, 0.2^2)")
    p.add_argument("--load", help="a state dict (.pt or .npz) with readout.weight")
    p.add_argument("--save", help="save the state dict (.pt or .npz) and go on")
    p.add_argument("--dump-truth", help="write the canonical heads as JSON and exit")
    p.add_argument("--http", type=int, help="serve HTTP on 127.0.0.1:PORT instead of stdin/stdout")
    p.add_argument("--count", help="append each answered id to this file")
    p.add_argument("--die-after", type=int, help="exit with status 3 after this many answers")
    p.add_argument("--stats", help="at the end of stdin, write the answers given and the seconds spent in them")
    p.add_argument("--delay", type=float, default=0, help="sleep this many seconds before each answer")
    args = p.parse_args()
    torch.set_num_threads(1)
    mha, u = build(args)
    if args.save:
        save(mha, u, args.save)
    if args.dump_truth:
        with open(args.dump_truth, "w") as f:
            json.dump(canonical(mha, u), f)
        return 0
    oracle = Oracle(mha, u, args.count, args.die_after, args.delay)
    if args.http is not None:
        serve_http(oracle, args.http)
        return 0
    return serve_lines(oracle, args.stats)


if __name__ == "__main__":
    sys.exit(main())
