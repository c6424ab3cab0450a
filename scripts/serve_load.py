"""A bounded load test of `pte-run serve` (run by hand; not part of scripts/test.sh):

    .venv/bin/python scripts/serve_load.py [--requests 300] [--clients 8] [--parallel 2]
                                           [--max-tokens 32] [--model fixtures/data/chat_smollm/model.pte]

Starts the server on 127.0.0.1, sends the requests from concurrent clients (the official
openai client, streaming with usage), every tenth client request leaving after its first
chunk, and prints: failed requests (an exception, a non-200, a stream without [DONE] that was
not meant to leave), the server's exit, its RSS after start, after warm-up and at the end,
throughput (completion tokens across slots per second of wall time) and p50 / p99 time to
first token. Exits 1 on any failure. Figures depend on the machine and its load.
"""
import argparse
import statistics
import sys
import threading
import time

from serve_common import CHAT_MODEL, Server

try:
    import openai
except ImportError:
    print("skipped: the openai package is not installed (pip install -r fixtures/requirements.txt)")
    sys.exit(0)

ap = argparse.ArgumentParser()
ap.add_argument("--requests", type=int, default=300)
ap.add_argument("--clients", type=int, default=8)
ap.add_argument("--parallel", type=int, default=2)
ap.add_argument("--max-tokens", type=int, default=32)
ap.add_argument("--warmup", type=int, default=30)
ap.add_argument("--model", default=CHAT_MODEL)
args = ap.parse_args()

PROMPTS = ["hi", "tell me a story", "what is 2+2?", "name three colours", "write a haiku about rain",
           "how are you today?", "explain gravity", "say something nice"]

lock = threading.Lock()
next_req = 0
failures, ttfts, tokens, left = [], [], [0], [0]


def one(client, i):
    leave = i % 10 == 9
    # a conversation that sometimes resends a previous exchange (prefix reuse)
    msgs = [{"role": "user", "content": PROMPTS[i % len(PROMPTS)]}]
    if i % 3 == 0:
        msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}] + msgs
    t0 = time.perf_counter()
    stream = client.chat.completions.create(model="m", messages=msgs, max_tokens=args.max_tokens,
                                            temperature=0.7, seed=i, stream=True,
                                            stream_options={"include_usage": True})
    first, done, usage = None, False, None
    for chunk in stream:
        if first is None and chunk.choices and (chunk.choices[0].delta.content or chunk.choices[0].finish_reason):
            first = time.perf_counter() - t0
            if leave:
                stream.close()
                return "left", first, 0
        if chunk.usage:
            usage = chunk.usage
        if chunk.choices and chunk.choices[0].finish_reason:
            done = True
    if not done or usage is None:
        return "incomplete", first, 0
    return "ok", first, usage.completion_tokens


def worker(url):
    global next_req
    client = openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0, timeout=120)
    while True:
        with lock:
            if next_req >= args.requests:
                return
            i = next_req
            next_req += 1
        try:
            status, first, n = one(client, i)
        except Exception as e:  # noqa: BLE001 (every kind of failure is counted)
            status, first, n = f"{type(e).__name__}: {e}", None, 0
        with lock:
            if status == "left":
                left[0] += 1
            elif status != "ok":
                failures.append((i, status))
            if first is not None and status in ("ok", "left"):
                ttfts.append(first)
            tokens[0] += n


with Server(args.model, "--parallel", str(args.parallel), "--queue", str(args.clients * 2), "--no-log") as srv:
    rss_start = srv.rss_kb()
    total = args.requests
    # warm-up: the first requests, then the measured ones
    args.requests = args.warmup
    ts = [threading.Thread(target=worker, args=(srv.url,)) for _ in range(args.clients)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    rss_warm = srv.rss_kb()
    ttfts.clear()
    tokens[0] = 0
    left[0] = 0
    args.requests = total
    t0 = time.perf_counter()
    ts = [threading.Thread(target=worker, args=(srv.url,)) for _ in range(args.clients)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    wall = time.perf_counter() - t0
    time.sleep(0.5)
    rss_end = srv.rss_kb()
    alive = srv.proc.poll() is None
    code = srv.stop()

measured = total - args.warmup
q = sorted(ttfts)
print(f"requests: {total} ({args.warmup} warm-up + {measured} measured) from {args.clients} clients, "
      f"--parallel {args.parallel}, max_tokens {args.max_tokens}")
print(f"failed: {len(failures)}; left mid-stream on purpose: {left[0]}; server alive at the end: {alive}, exit {code}")
for f in failures[:10]:
    print("  ", f)
print(f"RSS: {rss_start} kB after start, {rss_warm} kB after warm-up, {rss_end} kB at the end "
      f"({rss_end - rss_warm:+d} kB over the measured requests)")
print(f"throughput: {tokens[0]} completion tokens in {wall:.2f} s = {tokens[0] / wall:.1f} tokens/s across slots, "
      f"{measured / wall:.1f} requests/s")
if q:
    print(f"time to first token: p50 {1000 * statistics.median(q):.1f} ms, p99 {1000 * q[min(len(q) - 1, int(0.99 * len(q)))]:.1f} ms")
sys.exit(1 if failures or not alive or code != 0 else 0)
