#!/usr/bin/env python3
"""Check catalog.json and queries.json against each other.

Every exposed name ({namespace}_{name}) must be unique, at most 128 characters
of [A-Za-z0-9_.-]; every name a query lists as relevant must exist.
"""
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
catalog = json.load(open(os.path.join(HERE, "catalog.json"), encoding="utf-8"))
queries = json.load(open(os.path.join(HERE, "queries.json"), encoding="utf-8"))

errors = []
names = collections.Counter()
for s in catalog["servers"]:
    for t in s["tools"]:
        n = "%s_%s" % (s["namespace"], t["name"])
        names[n] += 1
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,128}", n):
            errors.append("bad exposed name: %s" % n)
errors += ["duplicate exposed name: %s" % n for n, c in names.items() if c > 1]

for q in queries["queries"]:
    if not q["relevant"]:
        errors.append("no relevant tool: %r" % q["query"])
    for r in q["relevant"]:
        if r not in names:
            errors.append("unknown relevant tool %s in %r" % (r, q["query"]))
namespaces = {s["namespace"] for s in catalog["servers"]}
covered = {ns for ns in namespaces
           if any(r.startswith(ns + "_") for q in queries["queries"] for r in q["relevant"])}

total = sum(names.values())
print("%d tools in %d servers; %d queries over %d namespaces" % (
    total, len(catalog["servers"]), len(queries["queries"]), len(covered)))
for e in errors:
    print("ERROR:", e)
sys.exit(1 if errors else 0)
