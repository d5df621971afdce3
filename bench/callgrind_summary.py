"""Per-call instruction counts from a callgrind profile: the total, then the
costliest functions inclusive (with what they call) and self. Used by
callgrind.sh: callgrind_summary.py OUT CALLS LABEL."""

import re
import subprocess
import sys

# Wrappers every sample passes through; listing them says nothing.
NOISE = re.compile(
    r"tokio::runtime::(scheduler|task|context|blocking)|std::thread|std::sys::backtrace|start_thread|clone3"
    r"|core::ops::function|catch_unwind|AssertUnwindSafe|poll_fn::PollFn|GracefulConnectionFuture"
    r"|serve_http_with_shutdown::\{\{closure\}\}::\{\{closure\}\}|__rust_begin_short_backtrace"
)


def entries(path, inclusive):
    text = subprocess.run(
        ["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=99.9", path],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        count = int(m.group(1).replace(",", ""))
        where = m.group(2)
        # "file:function [object]" is a function's own entry; lines without
        # the object are code inlined from that file, counted again there.
        if not where.endswith("]"):
            continue
        function = where.split(":", 1)[-1].rsplit(" [", 1)[0]
        yield count, function


def main():
    path, calls, label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    text = subprocess.run(["callgrind_annotate", path], check=True, capture_output=True, text=True).stdout
    total = int(re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", text).group(1).replace(",", ""))
    print(f"\n{label}: {total / calls:,.0f} instructions per call in user space ({calls} calls)")
    print("\nInclusive (with callees), per call:")
    shown = 0
    for count, function in entries(path, True):
        if NOISE.search(function) or count < total * 0.02:
            continue
        print(f"  {count / calls:>9,.0f}  {100 * count / total:5.1f}%  {function[:140]}")
        shown += 1
        if shown == 30:
            break
    print("\nSelf, per call:")
    for i, (count, function) in enumerate(entries(path, False)):
        if i == 20:
            break
        print(f"  {count / calls:>9,.0f}  {100 * count / total:5.1f}%  {function[:140]}")


if __name__ == "__main__":
    main()
