#!/usr/bin/env python3
"""Instructions per stdio `tools/call` (user space), stateless or in a 2025-era session.

    bench/callgrind_stdio.py SERVER_BIN [--legacy] [CALLS]

Runs SERVER_BIN stdio under valgrind's callgrind twice, with CALLS and with
2 x CALLS calls of `echo`, one at a time (each answer read before the next
request is written); the difference of the two totals, divided by CALLS, is
the cost of one call with the process's start, its `initialize` and its end
taken out. With --legacy the process first becomes a 2025-11-25 session
(`initialize`, then `notifications/initialized`) and the calls carry no
`_meta`; otherwise each call is a stateless 2026-07-28 one.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench-driver", "version": "0.1.0"},
}


def line(message):
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


def call(i, legacy):
    params = {"name": "echo", "arguments": {"text": "hello"}}
    if not legacy:
        params["_meta"] = META
    return line({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params})


def total(server, legacy, calls):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        child = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", server, "stdio"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )

        def ask(message):
            child.stdin.write(message)
            child.stdin.flush()
            answer = child.stdout.readline()
            if b'"hello"' not in answer and b'"protocolVersion"' not in answer:
                raise SystemExit(f"unexpected answer: {answer!r}")

        if legacy:
            ask(line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "bench-driver", "version": "0.1.0"}}}))
            child.stdin.write(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        for i in range(1, calls + 1):
            ask(call(i, legacy))
        child.stdin.close()
        if child.wait(timeout=600) != 0:
            raise SystemExit("the server did not end cleanly")
        with open(out) as f:
            for text in f:
                found = re.match(r"(?:summary|totals): (\d+)", text)
                if found:
                    return int(found.group(1))
    raise SystemExit("no total in the callgrind output")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    legacy = "--legacy" in sys.argv
    server = args[0]
    calls = int(args[1]) if len(args) > 1 else 1000
    once, twice = total(server, legacy, calls), total(server, legacy, 2 * calls)
    kind = "2025-era session" if legacy else "stateless"
    print(f"{kind} stdio tools/call: {(twice - once) / calls:,.0f} instructions per call in user space")


if __name__ == "__main__":
    main()
