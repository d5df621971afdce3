"""Sorts `perf script -F comm,tid,ip,sym` call stacks of one server into
the stages of a call, so that profiles of ours, rmcp and the floor read
side by side. Used by profile.sh; reads the stacks on stdin."""

import collections
import re
import sys

# Walking each stack from the sampled frame outwards, the first stage whose
# pattern matches a frame gets the sample: inner, specific stages first.
STAGES = [
    ("kernel: TCP send (writev/sendmsg, loopback delivery)", [r"__GI___writev", r"\bwritev\b", r"sys_writev", r"tcp_sendmsg", r"__sys_sendto", r"sys_write\b"]),
    ("kernel: TCP receive (recv/read)", [r"__sys_recvfrom", r"\brecv\b", r"__libc_recv", r"ksys_read", r"tcp_recvmsg", r"__libc_read"]),
    ("kernel: epoll, sleeping and wake-ups", [r"epoll_wait", r"epoll_ctl", r"futex", r"__schedule", r"try_to_wake_up", r"sched_yield"]),
    ("ours: request parse (envelope, `_meta`, call params in one pass)", [r"mcp_runtime::dispatch::envelope::", r"mcp_runtime::dispatch::single_pass::", r"mcp_runtime::protocol::meta::"]),
    ("ours: validation pipeline (_meta, headers, version, routing, params)", [r"mcp_runtime::dispatch::<impl mcp_runtime::server::Server>::prepare", r"mcp_runtime::dispatch::methods::route", r"mcp_runtime::transport::http::headers::"]),
    ("ours: result serialization", [r"mcp_runtime::dispatch::methods::finish", r"mcp_runtime::dispatch::response::"]),
    ("ours: tool call (arguments, handler, outcome)", [r"mcp_runtime::dispatch::methods::", r"mcp_runtime::private::", r"mcp_runtime::input::", r"bench_ours::"]),
    ("ours: response mode (JSON or SSE), channel, timeout", [r"mcp_runtime::transport::http::sse::", r"mcp_runtime::transport::http::service::run", r"mcp_runtime::transport::http::service::bounded", r"mcp_runtime::transport::http::deadline::"]),
    ("ours: HTTP checks (Origin/Host, media types, body read)", [r"mcp_runtime::transport::http::(origin|media|body)::", r"mcp_runtime::transport::http::service::"]),
    ("rmcp: handler, router and tool call", [r"rmcp::handler::", r"bench_rmcp::"]),
    ("rmcp: per-request service (serve_directly, transport, peer)", [r"rmcp::service::", r"rmcp::transport::(async_rw|worker|sink_stream)", r"OneshotTransport"]),
    ("rmcp: Streamable HTTP service (validation, JSON body)", [r"rmcp::transport::streamable_http_server::", r"rmcp::transport::common::"]),
    ("rmcp: protocol types (serde)", [r"rmcp::model::"]),
    ("axum / tower routing", [r"axum::", r"tower::"]),
    ("floor: handler", [r"bench_floor::"]),
    ("hyper: HTTP/1 parse and encode", [r"hyper::proto::h1::role", r"hyper::proto::h1::encode", r"httparse::"]),
    ("hyper + tokio: connections, tasks, I/O readiness", [r"hyper::", r"hyper_util::", r"tokio::", r"mio::", r"mcp_runtime::transport::http::(serve|stall)"]),
]
LEAF_KINDS = [
    ("allocator (malloc/free)", r"malloc|\bfree\b|cfree|realloc|_int_|unlink_chunk|__rust_(alloc|dealloc|realloc)|tcache"),
    ("memcpy/memmove/memcmp", r"__mem(move|cpy|set|cmp)|memchr"),
    ("JSON (serde_json)", r"serde_json::|serde_core::|serde::"),
]

def main():
    label = sys.argv[1] if len(sys.argv) > 1 else "server"
    stages = [(name, [re.compile(p) for p in pats]) for name, pats in STAGES]
    leaf_kinds = [(name, re.compile(p)) for name, p in LEAF_KINDS]
    by_stage, by_leaf, self_user = collections.Counter(), collections.Counter(), collections.Counter()
    total = 0
    stack = []

    def flush():
        nonlocal total
        if not stack:
            return
        total += 1
        leaf = stack[0]
        kernel = leaf.startswith("[k]") or leaf.startswith("ffffffff")
        for name, pattern in leaf_kinds:
            if pattern.search(leaf):
                by_leaf[name] += 1
                break
        else:
            by_leaf["kernel (any)" if kernel else "other user code"] += 1
        if not kernel:
            self_user[leaf] += 1
        for frame in stack:
            for name, patterns in stages:
                if any(p.search(frame) for p in patterns):
                    by_stage[name] += 1
                    return
        by_stage["other (start-up, runtime housekeeping)"] += 1

    for line in sys.stdin:
        if not line.strip():
            flush()
            stack = []
        elif line[0] in " \t":
            parts = line.split(None, 1)
            if len(parts) == 2:
                symbol = parts[1].strip()
                # perf prints kernel frames with their address only; mark them.
                stack.append(("[k] " if parts[0].startswith("ffffffff") else "") + symbol)
        else:
            flush()
            stack = []
    flush()

    print(f"\n{label}: {total} samples")
    print("\nBy stage of the call (first matching frame from the sampled one outwards):")
    for name, n in by_stage.most_common():
        print(f"  {100 * n / total:5.1f}%  {name}")
    print("\nBy kind of the sampled function:")
    for name, n in by_leaf.most_common():
        print(f"  {100 * n / total:5.1f}%  {name}")
    print("\nHottest user-space functions (self time):")
    for name, n in self_user.most_common(15):
        print(f"  {100 * n / total:5.1f}%  {name[:150]}")

if __name__ == "__main__":
    main()
