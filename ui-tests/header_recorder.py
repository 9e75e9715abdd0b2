"""An external chunk-wire endpoint for the UI tests that records every request.

    python header_recorder.py --port 8123 --origin http://127.0.0.1:8905

Serves ``GET <any>/health`` (ready) and ``POST <any>/chat`` (a short SSE
answer that quotes the message), allows CORS for ``--origin`` only, and
answers ``GET /__requests`` with what it received: method, path (with its
query) and headers of every other request, preflights included. Binds
127.0.0.1; the test that starts it stops it.
"""
from __future__ import annotations

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RECORDED: list = []


class Recorder(BaseHTTPRequestHandler):
    origin = ""

    def log_message(self, *args) -> None:  # keep the test output quiet
        pass

    def _record(self) -> None:
        RECORDED.append({"method": self.command, "path": self.path, "headers": dict(self.headers.items())})

    def _cors(self) -> None:
        self.send_header("Access-Control-Allow-Origin", self.origin)
        self.send_header("Vary", "Origin")

    def _json(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self._cors()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_OPTIONS(self) -> None:  # http.server's naming
        self._record()
        self.send_response(204)
        self._cors()
        self.send_header("Access-Control-Allow-Methods", "GET, POST")
        self.send_header("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        if self.path == "/__requests":
            self._json(200, RECORDED)
            return
        self._record()
        if self.path.split("?")[0].endswith("/health"):
            self._json(200, {"status": "healthy", "agent_loaded": True, "ready": True,
                             "message": "recording", "agent_name": "Header Recorder"})
        else:
            self._json(404, {"message": "not here"})

    def do_POST(self) -> None:
        self._record()
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if not self.path.split("?")[0].endswith("/chat"):
            self._json(404, {"message": "not here"})
            return
        frames = [
            {"status": "streaming", "chunk": f"recorded: {body.get('message', '')}", "node": "recorder"},
            {"status": "complete"},
        ]
        self.send_response(200)
        self._cors()
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for frame in frames:
            self.wfile.write(f"data: {json.dumps(frame)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--origin", required=True, help="the origin allowed by CORS (the lab's)")
    args = parser.parse_args()
    Recorder.origin = args.origin
    ThreadingHTTPServer(("127.0.0.1", args.port), Recorder).serve_forever()


if __name__ == "__main__":
    main()
