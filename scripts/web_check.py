#!/usr/bin/env python3
"""Opens a built web folder in headless Chromium and reports what the page did, as JSON on
stdout: seconds to the first frame, frames, people, the page's smoothed frame time, the browser
console's messages, and a screenshot of the canvas at --shot (JPEG for a .jpg name, else PNG).
Drives Chromium through chromedriver's plain HTTP (WebDriver) API, so nothing beyond Debian's
chromium and chromium-driver is needed.

Usage: web_check.py WEB_DIR --shot OUT.png [--crowd N] [--seconds S] [--min-frames N] [--timeout T]
Exit status: 0 when the page drew frames with people and the console has no errors, 1 when it
did not, 3 when the browser or its driver is missing (the caller skips loudly)."""
import argparse
import base64
import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(folder):
    """The web folder over HTTP on localhost, as `python3 -m http.server` serves it."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".wasm": "application/wasm"}

        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def call(base, method, path, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read().decode())["value"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("web_dir")
    ap.add_argument("--shot", required=True)
    ap.add_argument("--crowd", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=5.0,
                    help="how long to keep drawing after the first frame (frame time)")
    ap.add_argument("--min-frames", type=int, default=2,
                    help="keep drawing until at least this many frames, however long they take")
    ap.add_argument("--timeout", type=float, default=90.0,
                    help="give up (a stuck page) after this many seconds")
    ap.add_argument("--args", default="", help="play flags for the page's ?args=")
    ap.add_argument("--hash", type=int, nargs=3, metavar=("PEOPLE", "SEED", "STEPS"),
                    help="also report the crowd's determinism hash for this run (sim_hash)")
    args = ap.parse_args()

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        print(json.dumps({"skipped": "chromium or chromedriver is not installed"}))
        return 3

    server = serve(os.path.abspath(args.web_dir))
    port = free_port()
    drv = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    report = {}
    session = None
    try:
        # The driver is up when it answers; a deadline only for one that never does.
        driver_deadline = time.time() + 120
        while True:
            try:
                call(base, "GET", "/status")
                break
            except OSError:
                if time.time() > driver_deadline:
                    raise
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": browser, "args": [
                "--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1280,720", "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"]},
            "goog:loggingPrefs": {"browser": "ALL"},
            # WebDriver's defaults (30 s a script) fail a software-rendered page on a busy
            # machine: the script calls below wait as long as the page needs.
            "timeouts": {"script": 600000, "pageLoad": 600000},
        }}}
        session = call(base, "POST", "/session", caps)["sessionId"]
        s = f"/session/{session}"
        # --window-size counts the browser's frame: grow the window until the page is 1280x720.
        inner = call(base, "POST", s + "/execute/sync", {
            "script": "return [window.outerWidth - window.innerWidth,"
                      " window.outerHeight - window.innerHeight]", "args": []})
        call(base, "POST", s + "/window/rect",
             {"width": 1280 + inner[0], "height": 720 + inner[1]})
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        query = []
        if args.crowd:
            query.append(f"crowd={args.crowd}")
        if args.args:
            query.append("args=" + urllib.parse.quote(args.args))
        if query:
            url += "?" + "&".join(query)
        started = time.time()
        call(base, "POST", s + "/url", {"url": url})
        state, first_frame = {}, None
        while time.time() - started < args.timeout:
            try:
                state = call(base, "POST", s + "/execute/sync",
                             {"script": "return window.throng || null", "args": []}) or {}
            except OSError:
                # The page is busy in one long frame (loading the models): ask again.
                continue
            if state.get("error"):
                break
            if first_frame is None and state.get("frames", 0) >= 1:
                first_frame = time.time() - started
            # Frames, not only seconds: on a busy machine one frame can outlast --seconds.
            if (first_frame is not None and time.time() - started >= first_frame + args.seconds
                    and state.get("frames", 0) >= args.min_frames):
                break
            time.sleep(0.25)
        sim_hash = None
        if args.hash:
            people, seed, steps = args.hash
            # wasm hands a u64 to JavaScript as a signed BigInt: read it back unsigned, as the
            # desktop prints it (a hash with its top bit set came out negative).
            sim_hash = call(base, "POST", s + "/execute/sync", {
                "script": "return String(BigInt.asUintN(64, BigInt(wasm_exports.throng_sim_hash("
                          "arguments[0], arguments[1], arguments[2]))))",
                "args": [people, seed, steps]}, timeout=300)
        logs = call(base, "POST", s + "/se/log", {"type": "browser"})
        viewport, shot_error = None, None
        try:
            viewport = call(base, "POST", s + "/execute/sync", {
                "script": "return [window.innerWidth, window.innerHeight]", "args": []})
            # The canvas itself (its drawing buffer is kept, web/throng.js): WebDriver's own
            # screenshot waits for the compositor, which a software-rendered frame of seconds
            # can keep past chromedriver's 10 s limit.
            url = call(base, "POST", s + "/execute/sync", {
                "script": "return document.querySelector('#glcanvas').toDataURL(arguments[0], 0.9)",
                "args": ["image/jpeg" if args.shot.endswith(".jpg") else "image/png"]},
                timeout=120)
            png = base64.b64decode(url.split(",", 1)[1])
            with open(args.shot, "wb") as f:
                f.write(png)
        except urllib.error.HTTPError as e:
            shot_error = f"the page did not answer: {e}: {e.read().decode(errors='replace')[:300]}"
        except (OSError, ValueError) as e:
            shot_error = f"the page did not answer: {e}"
        report = {
            "first_frame_s": first_frame,
            "frames": state.get("frames", 0),
            "people": state.get("people", 0),
            "drawn": state.get("drawn", 0),
            "frame_ms": state.get("frameMs", -1),
            "page_error": state.get("error"),
            "sim_hash": sim_hash,
            "viewport": viewport,
            "console": [{"level": m.get("level"), "message": m.get("message")} for m in logs],
            "shot": None if shot_error else args.shot,
            "shot_error": shot_error,
        }
    finally:
        if session:
            try:
                call(base, "DELETE", f"/session/{session}")
            except OSError:
                pass
        drv.terminate()
        drv.wait(10)
        server.shutdown()
    print(json.dumps(report, indent=1))
    errors = [m for m in report["console"] if m["level"] == "SEVERE"]
    ok = not report["shot_error"] and report["frames"] > 0 and report["drawn"] > 0 and not errors and not report["page_error"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
