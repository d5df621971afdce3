#!/usr/bin/env python3
"""A hostile MCP server (2026-07-28), for the gateway's hostile-remote suite
(hostile_remote.rs). It speaks just enough of the protocol to be mounted, then
does what a remote the gateway's operator trusts less than the gateway might:

  stdio flood    its tool list changes on every read, and its listen stream
                 announces list changes in a loop, as fast as the pipe takes them
  stdio asker    `ask` asks a new question every round, forever; `hang` never
                 answers; `many` asks 500 questions at once
  stdio bigline  `big` answers with one line of 32 MiB and more, never ended
  http -         over HTTP (its address printed on stdout once bound): `bigevent`
                 answers with an event stream whose one event never ends, and a
                 listen stream announces list changes in a loop

Python's standard library only.
"""

import json
import os
import random
import sys
import threading

VERSION = "2026-07-28"
CHUNK = b"x" * (1 << 20)


def result(id, body):
    body = dict(body)
    body.setdefault("resultType", "complete")
    return {"jsonrpc": "2.0", "id": id, "result": body}


def discover(id):
    return result(id, {
        "supportedVersions": [VERSION],
        "capabilities": {"tools": {"listChanged": True}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "hostile", "version": "0.0.1"}},
    })


def tool(name):
    return {"name": name, "inputSchema": {"type": "object"}}


def tools_list(id, mode):
    fixed = {"flood": ["x"], "asker": ["ask", "hang", "many"], "bigline": ["big"], "http": ["bigevent"]}[mode]
    names = list(fixed)
    if mode == "flood":
        # A list that is new on every read.
        names += ["t%d" % random.randrange(10**9) for _ in range(50)]
    return result(id, {"tools": [tool(n) for n in names]})


def listen_ack(id):
    return {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": id}}}


def changed(id):
    return {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": id}}}


def ask(id, params, count):
    round_ = 0
    state = params.get("requestState")
    if isinstance(state, str) and state.startswith("round-"):
        round_ = int(state[6:]) + 1
    requests = {
        "q%d-%d" % (round_, n): {"method": "elicitation/create",
                                 "params": {"mode": "form", "message": "Again?",
                                            "requestedSchema": {"type": "object", "properties": {}}}}
        for n in range(count)
    }
    return result(id, {"resultType": "input_required", "inputRequests": requests, "requestState": "round-%d" % round_})


class Stdio:
    def __init__(self, mode):
        self.mode = mode
        self.lock = threading.Lock()
        self.out = sys.stdout.buffer

    def write(self, message):
        line = json.dumps(message).encode() + b"\n"
        with self.lock:
            self.out.write(line)
            self.out.flush()

    def flood(self, id):
        self.write(listen_ack(id))
        try:
            while True:
                self.write(changed(id))
        except (BrokenPipeError, OSError):
            os._exit(0)

    def big(self):
        try:
            with self.lock:
                while True:
                    self.out.write(CHUNK)
                    self.out.flush()
        except (BrokenPipeError, OSError):
            os._exit(0)

    def serve(self):
        for line in sys.stdin.buffer:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            method, id, params = message.get("method"), message.get("id"), message.get("params") or {}
            if id is None:
                continue
            if method == "server/discover":
                self.write(discover(id))
            elif method == "tools/list":
                self.write(tools_list(id, self.mode))
            elif method == "subscriptions/listen":
                if self.mode == "flood":
                    threading.Thread(target=self.flood, args=(id,), daemon=True).start()
                else:
                    self.write(listen_ack(id))
            elif method == "tools/call":
                name = params.get("name")
                if name == "x":
                    self.write(result(id, {"content": [{"type": "text", "text": "x"}]}))
                elif name == "ask":
                    self.write(ask(id, params, 1))
                elif name == "many":
                    self.write(ask(id, params, 500))
                elif name == "big":
                    threading.Thread(target=self.big, daemon=True).start()
                # `hang`: never answered.
            else:
                self.write({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})


def serve_http():
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, message):
            body = json.dumps(message).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def stream(self):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            message = json.loads(self.rfile.read(length) or b"{}")
            method, id, params = message.get("method"), message.get("id"), message.get("params") or {}
            if id is None:
                self.send_response(202)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            try:
                if method == "server/discover":
                    self.answer(discover(id))
                elif method == "tools/list":
                    self.answer(tools_list(id, "http"))
                elif method == "subscriptions/listen":
                    self.stream()
                    self.wfile.write(b"data: " + json.dumps(listen_ack(id)).encode() + b"\n\n")
                    while True:
                        self.wfile.write(b"data: " + json.dumps(changed(id)).encode() + b"\n\n")
                elif method == "tools/call":
                    # `bigevent`: one event that never ends.
                    self.stream()
                    self.wfile.write(b"data: ")
                    while True:
                        self.wfile.write(CHUNK)
                else:
                    self.answer({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    transport, mode = sys.argv[1], sys.argv[2]
    if transport == "stdio":
        Stdio(mode).serve()
    else:
        serve_http()
