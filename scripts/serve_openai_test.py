"""pte-run serve driven by the official `openai` Python client (and curl, when present).

    .venv/bin/python scripts/serve_openai_test.py      # needs build/bin/pte-run (or $PTE_RUN)

Starts the server on 127.0.0.1 over the committed tiny chat decoder and checks: greedy chat
text equal to `pte-run MODEL.pte "hi" --chat --json`, streamed deltas concatenating to it,
usage counts, prefix reuse in usage, /v1/completions, models.list, the 400 / 401 errors the
client raises, embeddings from the encoder fixture, and an image_url part sent to the Gemma3
image+text fixture (its text equal to `pte-run MODEL.pte PROMPT --image`). Without the openai package it says
"skipped: ..." and exits 0 (a visible skip); any failed check exits 1.
"""
import json
import shutil
import subprocess
import sys

from serve_common import CHAT_MODEL, EMBED_MODEL, Server, pte_run

try:
    import openai
except ImportError:
    print("skipped: the openai package is not installed (pip install -r fixtures/requirements.txt)")
    sys.exit(0)

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def cli_greedy(prompt, n):
    out = subprocess.run([pte_run(), CHAT_MODEL, prompt, "--chat", "-n", str(n), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def chat_tests():
    want = cli_greedy("hi", 8)
    with Server(CHAT_MODEL, "--parallel", "2", "--api-key", "k3y") as srv:
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="k3y", max_retries=0)
        r = client.chat.completions.create(model="model", messages=[{"role": "user", "content": "hi"}],
                                           temperature=0, max_tokens=8)
        check(r.choices[0].message.content == want["text"], "greedy chat equals pte-run --chat")
        check(r.usage.prompt_tokens == len(want["prompt_ids"]), "usage.prompt_tokens")
        check(r.usage.completion_tokens == len(want["generated_ids"]), "usage.completion_tokens")
        check(r.choices[0].finish_reason == ("stop" if want["stop_reason"] == "eos" else "length"), "finish_reason")

        stream = client.chat.completions.create(model="model", messages=[{"role": "user", "content": "hi"}],
                                                temperature=0, max_tokens=8, stream=True,
                                                stream_options={"include_usage": True})
        parts, usage, finish = [], None, None
        for chunk in stream:
            if chunk.usage:
                usage = chunk.usage
            for c in chunk.choices:
                if c.delta.content:
                    parts.append(c.delta.content)
                if c.finish_reason:
                    finish = c.finish_reason
        check("".join(parts) == want["text"], "streamed deltas concatenate to the same text")
        check(finish == r.choices[0].finish_reason, "stream finish_reason")
        check(usage is not None and usage.prompt_tokens_details.cached_tokens == len(want["prompt_ids"]) - 1,
              "the same prompt again reuses the slot's cache (cached_tokens = prompt - 1)")

        follow = client.chat.completions.create(
            model="model", temperature=0, max_tokens=4,
            messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": want["text"]},
                      {"role": "user", "content": "and then?"}])
        check(follow.usage.prompt_tokens_details.cached_tokens >= len(want["prompt_ids"]),
              "a conversation extending the last one skips its prefill (cached_tokens %d >= %d)"
              % (follow.usage.prompt_tokens_details.cached_tokens, len(want["prompt_ids"])))

        c = client.completions.create(model="model", prompt="Once upon a time", temperature=0, max_tokens=6)
        check(len(c.choices[0].text) > 0 and c.usage.completion_tokens == 6, "/v1/completions")
        check([m.id for m in client.models.list()] == ["model"], "models.list")

        try:
            client.chat.completions.create(model="model", messages=[{"role": "user", "content": "hi"}], n=2)
            check(False, "n=2 refused")
        except openai.BadRequestError as e:
            check("n > 1" in str(e), "n=2 refused with a 400 naming it")
        try:
            bad = openai.OpenAI(base_url=srv.url + "/v1", api_key="wrong", max_retries=0)
            bad.models.list()
            check(False, "a wrong key refused")
        except openai.AuthenticationError:
            check(True, "a wrong key gets 401")

        if shutil.which("curl"):
            out = subprocess.run(["curl", "-s", "-N", srv.url + "/v1/chat/completions", "-H", "Authorization: Bearer k3y",
                                  "-H", "Content-Type: application/json", "-d",
                                  json.dumps({"messages": [{"role": "user", "content": "hi"}], "temperature": 0,
                                              "max_tokens": 8, "stream": True})],
                                 capture_output=True, text=True, check=True).stdout
            events = [l[6:] for l in out.split("\n") if l.startswith("data: ")]
            text = "".join(json.loads(e)["choices"][0]["delta"].get("content") or ""
                           for e in events[:-1] if json.loads(e)["choices"])
            check(events[-1] == "[DONE]" and text == want["text"], "curl: the stream ends with [DONE], same text")
        else:
            print("skipped: curl not installed")
        check(srv.stop() == 0, "the server stops cleanly on SIGTERM")
        check(any('"POST /v1/chat/completions" 200' in l for l in srv.log), "access log lines")


def embedding_tests():
    with Server(EMBED_MODEL) as srv:
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="unused", max_retries=0)
        e = client.embeddings.create(model="m", input=["a cat sat", "the dog ran far"])
        out = subprocess.run([pte_run(), "embed", EMBED_MODEL, "a cat sat", "the dog ran far", "--json"],
                             check=True, capture_output=True, text=True).stdout
        want = json.loads(out)
        vecs = want["embeddings"] if isinstance(want, dict) else want
        got = [d.embedding for d in e.data]
        close = len(got) == len(vecs) and all(
            len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) < 1e-6 for a, b in zip(got, vecs))
        check(close, "embeddings equal pte-run embed's")


def image_tests():
    # an image+text program: the image as a data: URL in an image_url part, as the openai
    # client sends it; the reply must be pte-run MODEL.pte PROMPT --image's text
    import base64
    import os
    d = os.path.join(os.path.dirname(CHAT_MODEL), "..", "multimodal_gemma3")
    model = os.path.join(d, "model.pte")
    image = os.path.join(d, "photo.jpg")
    out = subprocess.run([pte_run(), model, "Describe this image.", "--image", image, "-n", "10", "--json"],
                         check=True, capture_output=True, text=True).stdout
    want = json.loads(out)
    url = "data:image/jpeg;base64," + base64.b64encode(open(image, "rb").read()).decode()
    with Server(model) as srv:
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="unused", max_retries=0)
        r = client.chat.completions.create(model="m", temperature=0, max_tokens=10, messages=[
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}},
                                         {"type": "text", "text": "Describe this image."}]}])
        check(r.choices[0].message.content == want["text"], "an image_url part: the text equals pte-run --image's")
        check(r.usage.prompt_tokens == len(want["prompt_ids"]), "an image_url part: usage.prompt_tokens counts the image tokens")
        try:
            client.chat.completions.create(model="m", max_tokens=2, messages=[
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}])
            check(False, "an http image URL refused")
        except openai.BadRequestError as e:
            check("fetches nothing" in str(e), "an http image URL gets a 400 saying the server fetches nothing")


chat_tests()
embedding_tests()
image_tests()
if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
