"""Test support for the evaluation harness: small synthetic sets and a scripted model server.

`make_set` writes an exported-set look-alike (metadata.jsonl rows + tiny JPEGs): no Blender, no render.
`ScriptedServer` is a real HTTP server on 127.0.0.1 that speaks the OpenAI-compatible chat-completions
shape, Anthropic's Messages shape and Gemini's generateContent shape. Each request names its frame
(the synthetic prompts end with "(frame ID)"), and the script says what the n-th request for a frame
gets: a valid JSON reply, prose around it, a code fence, wrong types, 429 with Retry-After, 500, a
slow reply, a dropped connection, a 4xx, an error body that echoes the credentials, a provider-shaped
refusal, a reply cut by the output cap, ...
"""
from __future__ import annotations

import base64
import io
import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from PIL import Image

if __name__ == "__main__":  # run as a script: find the package from the repository root
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from realitybench_addon.core.prompt import (KEYS_INTRO, KEYS_OUTRO, NO_VERDICT, VERDICT_FIRST, VERDICT_LAST,
                                            build_prompt)
from realitybench_addon.envs import registry

FRAME = re.compile(r"\(frame ([A-Za-z0-9_\-]+)\)")


SCENE_RULE = "lag bolt missing from the scene"  # a rail attachment without its bolt: out of acceptability
ENVIRONMENT_RULE = "acceptability is not scored for car_plate"  # the whole environment is out of acceptability


def frame(env, stratum, index, verdict, truth, answer, *, failing=None, gray=None, reason=None):
    """One synthetic frame. An unscored frame says why (`reason`): by default a scene rule (a missing lag bolt)."""
    fid = f"{env}-{stratum}-s0-{index:06d}"
    if failing is None:
        failing = ["some_term"] if verdict == "reject" else []
    if gray is None:
        gray = ["some_term"] if verdict == "gray" else []
    if reason is None and verdict == "unscored":
        reason = SCENE_RULE
    return {"frame_id": fid, "environment": env, "stratum": stratum, "verdict": verdict, "truth": truth,
            "answer": answer, "failing": failing, "gray": gray, "reason": reason}


TAPE = {"reading_in": 4.5, "gap_in": 4.9408, "tilted": False}
BREAKER_ROWS = [{"name": "DRYER", "amps": 30}, {"name": "KITCHEN COUNTER", "amps": 20},
                {"name": "KITCHEN COUNTER", "amps": 20}, {"name": "LIGHTS", "amps": 15}]


def standard_frames() -> list[dict]:
    """Twelve frames over six environments (one the registry does not build), with scripted answers.

    Expected strict results (the tests recompute these by hand):
      acceptability-scored random frames: tg0 (accept, model accepts), tg1 (reject, model rejects),
        ra0 (reject, model accepts), sg0 (reject, model rejects), eq0 (accept, model accepts),
        dv0 (accept, model rejects)
      positive frames (accepted): tg3 (model accepts), ra2 (model accepts), bl0 (model accepts)
      left out: tg2 (gray), ra1 (unscored by rule; its terms pass, so its documentation counts)
    """
    f = []
    f.append(frame("tape_gap", "random", 0, "accept", TAPE,
                   {"adequate": True, "reading_in": 4.625, "gap_in": 5.2, "tilted": False}))  # 1/8 off: in; gap out
    f.append(frame("tape_gap", "random", 1, "reject", {**TAPE, "tilted": True},
                   {"adequate": False, "reading_in": 0, "gap_in": 0, "tilted": True}))  # tilted scored: right
    f.append(frame("tape_gap", "random", 2, "gray", {**TAPE, "tilted": True},
                   {"adequate": True, "reading_in": 4.5, "gap_in": 4.9, "tilted": False}))  # tilted wrong
    f.append(frame("tape_gap", "positive", 3, "accept", TAPE,
                   {"adequate": True, "reading_in": 4.5, "gap_in": 4.9408, "tilted": False}))
    f.append(frame("rail_attachment", "random", 0, "reject", {"lag_present": True, "flashing_present": True},
                   {"adequate": True, "lag_present": True, "flashing_present": True}))
    f.append(frame("rail_attachment", "random", 1, "unscored", {"lag_present": False, "flashing_present": True},
                   {"adequate": False, "lag_present": True, "flashing_present": True}))  # doc 0.5
    f.append(frame("rail_attachment", "positive", 2, "accept", {"lag_present": True, "flashing_present": True},
                   {"adequate": True, "lag_present": True, "flashing_present": False}))  # doc 0.5
    f.append(frame("breaker_label", "positive", 0, "accept", {"main_amps": 200, "entries": BREAKER_ROWS},
                   {"adequate": True, "main_amps": 200,
                    "entries": [{"name": "Lights", "amps": 15}, {"name": "kitchen-counter", "amps": 20},
                                {"name": "DRYER", "amps": 30}, {"name": "GARAGE", "amps": 20}]}))  # rows 3/4
    f.append(frame("slope_gauge", "random", 0, "reject", {"reading_deg": 22.4, "on_module": True},
                   {"adequate": False, "reading_deg": 22.6, "on_module": True}))
    f.append(frame("equipment_label", "random", 0, "accept",
                   {"brand": "Sunvolt", "model": "SV-400M", "serial": "A1B2C3", "on": "module"},
                   {"adequate": True, "brand": "SUNVOLT", "model": "sv 400m", "serial": "A1B2C4", "on": "Module"}))
    f.append(frame("damage_view", "random", 0, "accept", {"damage_types": ["dent", "scratch"], "severity": "minor"},
                   {"adequate": False, "damage_types": ["Scratch", "DENT"], "severity": "moderate"}))
    f.append(frame("slope_gauge", "random", 1, "reject", {"reading_deg": 10.0, "on_module": False},
                   {"adequate": False, "reading_deg": 10.0, "on_module": False}))
    return f


def prompt_for(environment: str, frame_id: str) -> str:
    try:
        text = build_prompt(registry.get(environment).prompt_parts)
    except registry.UnknownEnvironment:
        text = f"Synthetic question about a {environment} photo. Reply with one JSON object."
    return f"{text}\n\n(frame {frame_id})"


def make_set(directory, frames: list[dict]) -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, fr in enumerate(frames):
        env = fr["environment"]
        (directory / env).mkdir(exist_ok=True)
        file_name = f"{env}/{fr['frame_id']}.jpg"
        buf = io.BytesIO()
        Image.new("RGB", (16, 12), ((37 * n) % 256, (91 * n) % 256, (53 * n + 7) % 256)).save(buf, "JPEG")
        (directory / file_name).write_bytes(buf.getvalue())
        row = {"file_name": file_name, "slot": n, "frame_id": fr["frame_id"], "environment": env,
               "stratum": fr["stratum"],
               "verdict": fr["verdict"], "scored": fr["verdict"] in ("accept", "reject"),
               "failing_terms": fr["failing"], "gray_terms": fr["gray"],
               "unscored_reason": fr.get("reason") or (SCENE_RULE if fr["verdict"] == "unscored" else None),
               "ground_truth": fr["truth"], "prompt": prompt_for(env, fr["frame_id"])}
        lines.append(json.dumps(row))
    (directory / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return directory


# ---- the scripted server -----------------------------------------------------------------------

KEY_LINE = re.compile(r'^- "([A-Za-z0-9_]+)": (.*)$', re.M)


def dummy_answer(prompt: str) -> dict:
    """A reply in grammar for any RealityBench prompt, read off its key lines: adequate, then false / 0 / "" / []
    by each key's grammar in words (for frames the script has no answer for, and the docs' worked example).
    A prompt variant gets its own shape: `adequate` last when asked last, left out when not asked."""
    answer = {}
    for name, grammar in KEY_LINE.findall(prompt or ""):
        g = grammar.lower()
        answer[name] = ([] if "array" in g else 0 if "number" in g else False if g.startswith("true if")
                        else "")
    if KEYS_OUTRO[VERDICT_LAST].strip() in (prompt or ""):
        return {**answer, "adequate": True}
    if KEYS_INTRO[NO_VERDICT] in (prompt or "") and KEYS_INTRO[VERDICT_FIRST] not in (prompt or ""):
        return answer
    return {"adequate": True, **answer}


USAGE = {"input": 100, "output": 50, "thinking": 20}
LENGTH_STOP = {"openai": "length", "anthropic": "max_tokens", "gemini": "MAX_TOKENS"}  # each shape's "cut by the cap"
OTHER_TOKEN = "sk-proxy-0a1b2c3d4e5f6a7b8c9d"  # a credential that is not the run's key (a proxy's, say)
REFUSAL = "This model does not support the settings sent (scripted {status})."


def refusal_body(shape: str, status: int, credential: str) -> dict:
    """Each provider's own error shape, its message echoing the credential header it got and another token."""
    message = (REFUSAL.format(status=status) + f" Request headers: {credential}; upstream "
               f"Authorization: Bearer {OTHER_TOKEN}")
    if shape == "anthropic":
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    if shape == "gemini":
        return {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}


def reply_text(answer: dict, behaviour: str) -> str:
    body = json.dumps(answer)
    if behaviour == "prose":
        return f"Sure! Here is my assessment of the photo:\n{body}\nLet me know if you need more."
    if behaviour == "fence":
        return f"```json\n{body}\n```"
    if behaviour == "wrong_types":
        bad = {k: (("yes" if v else "no") if isinstance(v, bool) else str(v) if isinstance(v, (int, float)) else v)
               for k, v in answer.items()}
        return json.dumps(bad)
    if behaviour == "empty":
        return ""
    return body


class ScriptedServer:
    """script: frame id -> behaviours for its 1st, 2nd, ... request (then "valid")."""

    def __init__(self, answers: dict, script: dict | None = None, default: str = "valid"):
        self.answers = answers
        self.script = script or {}
        self.default = default
        self.log: list[dict] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.phase = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                server.handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def requests_for(self, frame_id: str, phase: int | None = None) -> list[dict]:
        return [r for r in self.log if r["frame_id"] == frame_id and (phase is None or r["phase"] == phase)]

    # ---- one request --------------------------------------------------------------------------
    def handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length)
        body = json.loads(raw)
        h.parsed_body = body
        path = h.path
        shape = ("openai" if path.endswith("/chat/completions") else "anthropic" if path.endswith("/v1/messages")
                 else "gemini" if ":generateContent" in path else None)
        text, images = self._content(shape, body)
        m = FRAME.search(text or "")
        frame_id = m.group(1) if m else None
        with self.lock:
            attempt = len([r for r in self.log if r["frame_id"] == frame_id])
            behaviours = self.script.get(frame_id, [])
            behaviour = behaviours[attempt] if attempt < len(behaviours) else self.default
            self.log.append({"frame_id": frame_id, "shape": shape, "path": path, "attempt": attempt + 1,
                             "behaviour": behaviour, "phase": self.phase, "time": time.monotonic(),
                             "headers": dict(h.headers), "body": body, "images": images})
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self._respond(h, shape, frame_id, behaviour)
        finally:
            with self.lock:
                self.in_flight -= 1

    @staticmethod
    def _content(shape, body):
        texts, images = [], []
        if shape == "openai":
            content = body["messages"][0]["content"]
            if isinstance(content, str):
                texts.append(content)
            else:
                for part in content:
                    if part["type"] == "text":
                        texts.append(part["text"])
                    else:
                        url = part["image_url"]["url"]
                        images.append(base64.b64decode(url.split(",", 1)[1]))
        elif shape == "anthropic":
            for part in body["messages"][0]["content"]:
                if part["type"] == "text":
                    texts.append(part["text"])
                else:
                    images.append(base64.b64decode(part["source"]["data"]))
        elif shape == "gemini":
            for part in body["contents"][0]["parts"]:
                if "text" in part:
                    texts.append(part["text"])
                else:
                    images.append(base64.b64decode(part["inline_data"]["data"]))
        return "\n".join(texts), images

    def _send(self, h, status: int, payload, headers: dict | None = None, raw: bytes | None = None):
        data = raw if raw is not None else json.dumps(payload).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json" if raw is None else "text/html")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _respond(self, h, shape, frame_id, behaviour: str) -> None:
        kind, _, arg = behaviour.partition(":")
        if kind == "drop":
            h.close_connection = True
            h.connection.shutdown(socket.SHUT_RDWR)
            return
        if kind == "status":  # status:429:2 -> 429 with Retry-After: 2 ; status:500
            status, _, retry_after = arg.partition(":")
            headers = {"Retry-After": retry_after} if retry_after else {}
            return self._send(h, int(status), {"error": {"message": f"scripted {status}"}}, headers)
        if kind == "echo_key":  # an error body that repeats the credentials it was sent
            secret = (h.headers.get("Authorization") or h.headers.get("x-api-key")
                      or h.headers.get("x-goog-api-key") or "")
            return self._send(h, int(arg or 500), {"error": {"message": f"bad request with credentials {secret}"}})
        if kind == "refuse":  # refuse:400 -> the provider's error shape, echoing the credentials
            header = next((k for k in ("Authorization", "x-api-key", "x-goog-api-key") if h.headers.get(k)), "none")
            return self._send(h, int(arg or 400), refusal_body(shape, int(arg or 400),
                                                               f"{header}: {h.headers.get(header)}"))
        if kind == "notjson":
            return self._send(h, 200, None, raw=b"<html>gateway</html>")
        if kind == "slow":
            time.sleep(float(arg))
            kind = "valid"
        answer = self.answers.get(frame_id) if self.answers is not None else None
        if answer is None:
            answer = dummy_answer(self._content(shape, h.parsed_body)[0])
        if kind == "cut":  # the reply stopped half-way at the output cap
            text = reply_text(answer, "valid")
            return self._send(h, 200, self._shape(shape, text[:len(text) // 2], LENGTH_STOP[shape]))
        text = reply_text(answer, kind)
        self._send(h, 200, self._shape(shape, text))

    @staticmethod
    def _shape(shape, text, finish=None):
        if shape == "openai":
            return {"id": "chatcmpl-test", "object": "chat.completion",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": finish or "stop"}],
                    "usage": {"prompt_tokens": USAGE["input"], "completion_tokens": USAGE["output"],
                              "total_tokens": USAGE["input"] + USAGE["output"],
                              "completion_tokens_details": {"reasoning_tokens": USAGE["thinking"]}}}
        if shape == "anthropic":
            return {"id": "msg_test", "type": "message", "role": "assistant",
                    "content": [{"type": "thinking", "thinking": "Looking at the photo.", "signature": "x"},
                                {"type": "text", "text": text}],
                    "stop_reason": finish or "end_turn",
                    "usage": {"input_tokens": USAGE["input"], "output_tokens": USAGE["output"]}}
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": "thinking...", "thought": True},
                                                                       {"text": text}]},
                                "finishReason": finish or "STOP"}],
                "usageMetadata": {"promptTokenCount": USAGE["input"],
                                  "candidatesTokenCount": USAGE["output"] - USAGE["thinking"],
                                  "thoughtsTokenCount": USAGE["thinking"],
                                  "totalTokenCount": USAGE["input"] + USAGE["output"]}}


def served_run(set_dir, run_dir, answers: dict, *, model: str, label: str | None = None, provider: str = "openai",
               script: dict | None = None, variant: str = VERDICT_FIRST, settings=None) -> Path:
    """A model run asked over HTTP of a ScriptedServer that answers each frame with `answers[frame id]` (a dict,
    sent as its JSON, keys in its order) and misbehaves as `script` says (e.g. {frame id: ["prose"]}); `variant`
    is the prompt variant asked, `settings` the generation settings (providers.Settings)."""
    from realitybench_addon.evaluation import providers
    from realitybench_addon.evaluation.ask import ask_set
    from realitybench_addon.evaluation.transport import TransportConfig

    with ScriptedServer(answers, script) as server:
        base = server.url + {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[provider]
        ask_set(set_dir, run_dir, provider=providers.get(provider), model=model, base_url=base,
                settings=settings or providers.Settings(), transport=TransportConfig(timeout_s=10, concurrency=4),
                no_api_key=True, label=label, progress=None, variant=variant)
    return Path(run_dir)


def offline_run(set_dir, run_dir, texts: dict, *, model: str = "offline-model", label: str | None = None,
                failed: tuple = ()) -> Path:
    """A model run written straight into the run store (no HTTP): frame id -> reply text; `failed` frames get
    an error line instead. For scoring and reporting tests."""
    from realitybench_addon.evaluation import providers
    from realitybench_addon.answers.items import load_set
    from realitybench_addon.evaluation.runs import RunStore, request_hash

    settings = providers.Settings()
    items = load_set(set_dir)
    store = RunStore(run_dir)
    store.open({"kind": "model", "label": label or model, "provider": "openai", "model": model,
                "base_url": "http://127.0.0.1:9/v1", "settings": settings.to_dict(), "baseline": None})
    hashes = [request_hash("openai", model, settings.to_dict(), a.prompt, a.item.image_sha256) for a in items]
    store.write_items([a.item for a in items], hashes)
    for a, h in zip(items, hashes):
        fid = a.item.frame_id
        if fid in failed:
            store.append_reply({"request_hash": h, "frame_id": fid, "status": "error", "error": "HTTP 400"})
        else:
            store.append_reply({"request_hash": h, "frame_id": fid, "status": "ok", "reply_text": texts.get(fid, ""),
                                "usage": {"input_tokens": 1000, "output_tokens": 200, "thinking_tokens": 50}})
    return Path(run_dir)


if __name__ == "__main__":  # a local OpenAI/Anthropic/Gemini-shaped server for trying the harness by hand
    import argparse

    parser = argparse.ArgumentParser(description="RealityBench's scripted test model server (127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--behaviour", default="valid", help="valid | prose | fence | wrong_types | slow:S | ...")
    args = parser.parse_args()
    server = ScriptedServer(None, default=args.behaviour)
    server.httpd.server_close()
    server.httpd = ThreadingHTTPServer(("127.0.0.1", args.port), server.httpd.RequestHandlerClass)
    print(f"serving on http://127.0.0.1:{args.port} (Ctrl-C to stop)", flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass


REPO = Path(__file__).resolve().parent.parent


def cli(*args):
    """The command line as a user runs it: a subprocess in the repository."""
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=REPO, env=os.environ,
                          capture_output=True, text=True, timeout=120)


def one_line_error(done, *fragments):
    """A user error: exit 2, nothing on stdout, one `error: ...` line on stderr holding every fragment."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for f in fragments:
        assert f in lines[0], lines[0]


def csv_rows(path: Path) -> list[dict]:
    import csv

    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))
