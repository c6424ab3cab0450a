"""Shared by scripts/serve_openai_test.py and scripts/serve_load.py: start `pte-run serve`
on 127.0.0.1 (a free port) as a child process, and read its resident memory."""
import os
import re
import subprocess
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHAT_MODEL = os.path.join(ROOT, "fixtures/data/chat_smollm/model.pte")
EMBED_MODEL = os.path.join(ROOT, "fixtures/data/encoder_st_bert/model.pte")


def pte_run():
    exe = os.environ.get("PTE_RUN") or os.path.join(ROOT, "build/bin/pte-run")
    if not os.path.exists(exe):
        sys.exit(f"{exe} not found: build first (ninja -C build bin/pte-run) or set PTE_RUN")
    return exe


class Server:
    """pte-run serve MODEL --port 0 ARGS...; .url, .pid, .log (its stderr lines)."""

    def __init__(self, model, *args):
        self.proc = subprocess.Popen([pte_run(), "serve", model, "--port", "0", *args],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.log = []
        line = self.proc.stderr.readline()
        m = re.search(r"http://([\d.]+):(\d+)", line)
        if not m:
            rest = self.proc.stderr.read()
            self.proc.wait()
            sys.exit(f"pte-run serve did not start: {line}{rest}")
        self.url = f"http://{m.group(1)}:{m.group(2)}"
        self.pid = self.proc.pid
        # keep draining the access log so the pipe never fills
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self):
        for line in self.proc.stderr:
            self.log.append(line.rstrip("\n"))

    def rss_kb(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        """SIGTERM; returns the exit code (0: a clean stop)."""
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.stop()
