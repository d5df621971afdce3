#!/usr/bin/env python3
"""Judge one interop client run from the JSON document it printed.

    check.py OUTPUT_JSON ERA [ECHO]

The client's exit status already says whether its own sequence succeeded; this
adds what the run is for: the connection used ERA (modern or legacy; `auto` is
judged by what it negotiated); a run that declared elicitation (the document
has `elicitations`) answered at least one, so an eliciting tool that stopped
asking cannot pass unnoticed; and, given ECHO, the text of the call's result
contains it (the tool saw the answer the client gave).

Prints one line: what was negotiated, how many tools were listed, the tool
called, and the elicitations and follow-up read when there were any; for a run
that failed, the stage it stopped at and its error. Exit 0 when the run
succeeded and meets both, 1 (with the reason on the line) when it does not.
"""

import json
import sys


def main() -> int:
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in ("modern", "legacy"):
        print(__doc__, file=sys.stderr)
        return 2
    era, echo = sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"no readable output: {exc}")
        return 1
    if not doc.get("ok"):
        print(f"stopped at {doc.get('stage')}: {doc.get('error')}")
        return 1
    parts = [f"{doc.get('protocolEra')} {doc.get('protocolVersion')}"]
    parts.append(f"{len(doc.get('tools') or [])} tools, called {(doc.get('call') or {}).get('name')}")
    problems = []
    if doc.get("protocolEra") != era:
        problems.append(f"expected the {era} era")
    if "elicitations" in doc:
        count = len(doc["elicitations"] or [])
        parts.append(f"{count} elicitation{'' if count == 1 else 's'} answered")
        if count == 0:
            problems.append("declared elicitation, but none was asked")
    if echo is not None:
        content = ((doc.get("call") or {}).get("result") or {}).get("content") or []
        if not any(echo in str(item.get("text", "")) for item in content if isinstance(item, dict)):
            problems.append(f"the result does not contain {echo}")
    follow = doc.get("followUp")
    if follow:
        parts.append(f"then {follow.get('method')} {follow.get('name') or follow.get('uri')}")
    print(", ".join(parts) + "".join(f"; {p}" for p in problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
