#!/usr/bin/env python3
"""pte-run's thread policy against fixed thread counts, idle and under background load.

For each background (none; one busy process pinned to the last CPU; K busy processes on no
particular CPU), runs `pte-run MODEL PROMPT -n N --ignore-eos --json` in turn with the
measured policy (the default, 2 threads), with every call sharing (PTE_FIXED_THREADS=1,
2 threads) and with 1 thread, `--reps` times, and prints a Markdown table of median decode
and prefill tokens/s, the policy's ratios to each fixed count and the load average.

  python3 bench/threads_policy.py --pte models/smollm2/smollm2_xnnpack_8da4w.pte \
      [--pte-run build/bin/pte-run] [-n 128] [--reps 5] [--busy 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

MODES = [("policy", {}, 2), ("fixed 2", {"PTE_FIXED_THREADS": "1"}, 2), ("fixed 1", {}, 1)]


class Busy:
    def __init__(self, count, pin):
        self.procs = []
        cpus = sorted(os.sched_getaffinity(0))
        for _ in range(count):
            pre = (lambda: os.sched_setaffinity(0, {cpus[-1]})) if pin else None
            self.procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=pre))

    def stop(self):
        for p in self.procs:
            p.kill()
            p.wait()


def run_once(args, env_extra, threads):
    env = dict(os.environ)
    env.pop("PTE_FIXED_THREADS", None)
    env.update(env_extra)
    cmd = [args.pte_run, args.pte, args.prompt, "-n", str(args.n), "--ignore-eos", "--json", "--threads", str(threads)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"threads_policy: {' '.join(cmd)} failed: {r.stderr.strip().splitlines()[-1:]}")
    st = json.loads(r.stdout)["stats"]
    return st["decode_tokens_per_s"], st["prefill_tokens_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pte", required=True)
    ap.add_argument("--pte-run", default="build/bin/pte-run")
    ap.add_argument("--prompt", default="The capital of France is")
    ap.add_argument("-n", type=int, default=128)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--busy", type=int, default=3, help="busy processes of the oversubscribed case")
    args = ap.parse_args()

    backgrounds = [("none", 0, False), ("1 busy process pinned to one CPU", 1, True),
                   (f"{args.busy} busy processes", args.busy, False)]
    print(f"Model `{os.path.basename(args.pte)}`, {args.n} new tokens, prompt {args.prompt!r}, "
          f"{args.reps} interleaved repetitions, medians; {os.cpu_count()} CPUs; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    print("| background | load avg (start-end) | decode tok/s policy / fixed 2 / fixed 1 | policy vs fixed 2 | "
          "policy vs fixed 1 | prefill tok/s policy / fixed 2 / fixed 1 |")
    print("| --- | --- | --- | ---: | ---: | --- |")
    for name, count, pin in backgrounds:
        busy = Busy(count, pin)
        time.sleep(1.0)
        la0 = os.getloadavg()[0]
        dec = {m[0]: [] for m in MODES}
        pre = {m[0]: [] for m in MODES}
        try:
            for rep in range(args.reps):
                order = MODES[rep % 3:] + MODES[:rep % 3]  # rotate who goes first
                for mname, env_extra, threads in order:
                    d, p = run_once(args, env_extra, threads)
                    dec[mname].append(d)
                    pre[mname].append(p)
        finally:
            busy.stop()
        la1 = os.getloadavg()[0]
        md = {k: statistics.median(v) for k, v in dec.items()}
        mp = {k: statistics.median(v) for k, v in pre.items()}
        print(f"| {name} | {la0:.1f}-{la1:.1f} | {md['policy']:.1f} / {md['fixed 2']:.1f} / {md['fixed 1']:.1f} | "
              f"{md['policy'] / md['fixed 2']:.2f}x | {md['policy'] / md['fixed 1']:.2f}x | "
              f"{mp['policy']:.0f} / {mp['fixed 2']:.0f} / {mp['fixed 1']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
