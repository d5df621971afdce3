#!/usr/bin/env python3
"""Collect real MCP tool definitions for the tool-search benchmark.

Run by hand (never by CI), from anywhere:

    python3 bench/tool-search/collect.py [--skip-install] [--only NS,NS] [--jobs N]

It installs a pinned list of published MCP servers (npm packages into
target/tool-search/npm with `npm install --prefix`, PyPI packages into one
virtualenv per package under target/tool-search/venv/ because their pins
conflict), starts each over stdio, speaks JSON-RPC to it (initialize,
notifications/initialized, tools/list following nextCursor), kills it and
writes bench/tool-search/catalog.json.  Servers get obviously fake tokens so
that they start and list their tools; no server is expected to reach any
network for that.
"""

import argparse
import concurrent.futures
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, "target", "tool-search")
NPM_PREFIX = os.path.join(WORK, "npm")
VENVS = os.path.join(WORK, "venv")
SCRATCH = os.path.join(WORK, "scratch")
LOGS = os.path.join(WORK, "logs")
CATALOG = os.path.join(HERE, "catalog.json")

PROTOCOL_VERSIONS = ["2025-06-18", "2025-11-25", "2025-03-26"]
TIMEOUT = 90.0  # seconds per server, start to last tools/list page
EXPOSED_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
NAMESPACE = re.compile(r"^[a-z0-9-]+$")

FAKE_AWS = {
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "AKIAFAKEFAKEFAKEFAKE",
    "AWS_SECRET_ACCESS_KEY": "fake/fake/fake/fake/fake/fake/fake/fake",
    "FASTMCP_LOG_LEVEL": "ERROR",
}

FAKE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: fake
  user: {token: fake}
contexts:
- name: fake
  context: {cluster: fake, user: fake}
current-context: fake
"""

# Each entry: namespace, package spec ("npm:NAME@VERSION" or "pypi:NAME==VERSION"),
# optional bin (console script / npm bin; guessed when there is only one),
# args, env.  {scratch} in args/env is replaced by a scratch directory.
SERVERS = [
    # ---------------------------------------------------------------- npm
    dict(ns="azure", pkg="npm:@azure/mcp@2.0.5", bin="azmcp",
         args=["server", "start", "--mode", "all"],
         env={"AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000000",
              "AZURE_MCP_COLLECT_TELEMETRY": "false"}),
    dict(ns="gitlab", pkg="npm:@zereight/mcp-gitlab@2.1.64", bin="mcp-gitlab",
         env={"GITLAB_PERSONAL_ACCESS_TOKEN": "glpat-fake",
              "GITLAB_API_URL": "https://gitlab.example.invalid/api/v4",
              "USE_GITLAB_WIKI": "true", "USE_MILESTONE": "true",
              "USE_PIPELINE": "true", "GITLAB_READ_ONLY_MODE": "false"}),
    dict(ns="github", pkg="npm:@modelcontextprotocol/server-github@2025.4.8",
         env={"GITHUB_PERSONAL_ACCESS_TOKEN": "fake"}),
    dict(ns="filesystem", pkg="npm:@modelcontextprotocol/server-filesystem@2026.1.14",
         args=["{scratch}"]),
    dict(ns="memory", pkg="npm:@modelcontextprotocol/server-memory@2026.1.26",
         env={"MEMORY_FILE_PATH": "{scratch}/memory.jsonl"}),
    dict(ns="everything", pkg="npm:@modelcontextprotocol/server-everything@2026.1.26",
         args=["stdio"]),
    dict(ns="slack", pkg="npm:@modelcontextprotocol/server-slack@2025.4.25",
         env={"SLACK_BOT_TOKEN": "xoxb-fake", "SLACK_TEAM_ID": "T00000000"}),
    dict(ns="puppeteer", pkg="npm:@modelcontextprotocol/server-puppeteer@2025.5.12"),
    dict(ns="postgres", pkg="npm:@modelcontextprotocol/server-postgres@0.6.2",
         args=["postgresql://fake:fake@127.0.0.1:1/fake"]),
    dict(ns="playwright", pkg="npm:@playwright/mcp@0.0.86",
         args=["--caps", "vision,pdf,testing,tracing", "--headless"]),
    dict(ns="chrome-devtools", pkg="npm:chrome-devtools-mcp@1.11.0", bin="chrome-devtools-mcp",
         args=["--headless"]),
    dict(ns="notion", pkg="npm:@notionhq/notion-mcp-server@2.5.2",
         env={"NOTION_TOKEN": "ntn_fake"}),
    dict(ns="supabase", pkg="npm:@supabase/mcp-server-supabase@0.13.0",
         # "docs" is left out: it fetches the docs' GraphQL schema to build its tool.
         args=["--features=account,database,debugging,development,functions,branching,storage"],
         env={"SUPABASE_ACCESS_TOKEN": "sbp_fake"}),
    dict(ns="mongodb", pkg="npm:mongodb-mcp-server@3.0.4",
         env={"MDB_MCP_API_CLIENT_ID": "fake", "MDB_MCP_API_CLIENT_SECRET": "fake",
              "MDB_MCP_TELEMETRY": "disabled"}),
    dict(ns="kubernetes", pkg="npm:mcp-server-kubernetes@4.1.7",
         env={"KUBECONFIG": "{scratch}/kubeconfig"},
         files={"kubeconfig": FAKE_KUBECONFIG}),
    dict(ns="firecrawl", pkg="npm:firecrawl-mcp@3.26.0",
         env={"FIRECRAWL_API_KEY": "fc-fake"}),
    dict(ns="context7", pkg="npm:@upstash/context7-mcp@4.1.1"),
    dict(ns="hubspot", pkg="npm:@hubspot/mcp-server@0.4.0",
         env={"PRIVATE_APP_ACCESS_TOKEN": "pat-fake"}),
    dict(ns="desktop-commander", pkg="npm:@wonderwhy-er/desktop-commander@0.2.52", bin="desktop-commander"),
    dict(ns="circleci", pkg="npm:@circleci/mcp-server-circleci@0.20.0",
         env={"CIRCLECI_TOKEN": "fake"}),
    dict(ns="elasticsearch", pkg="npm:@elastic/mcp-server-elasticsearch@0.3.1",
         env={"ES_URL": "http://127.0.0.1:1", "ES_API_KEY": "fake"}),
    # 0.3.x only proxies to the remote server; 0.2.x lists its tools locally.
    dict(ns="stripe", pkg="npm:@stripe/mcp@0.2.5",
         args=["--tools=all", "--api-key=sk_test_fake"]),
    dict(ns="exa", pkg="npm:exa-mcp-server@3.4.1",
         env={"EXA_API_KEY": "fake",
              "ENABLED_TOOLS": "web_search_exa,web_search_advanced_exa,get_code_context_exa,"
              "company_research_exa,web_fetch_exa,deep_researcher_start,deep_researcher_check,"
              "people_search_exa,linkedin_search_exa,deep_search_exa,crawling_exa,agent_run"}),
    dict(ns="sequential-thinking",
         pkg="npm:@modelcontextprotocol/server-sequential-thinking@2025.12.18"),
    dict(ns="chart", pkg="npm:@antv/mcp-server-chart@0.9.10"),
    # --------------------------------------------------------------- PyPI
    dict(ns="atlassian", pkg="pypi:mcp-atlassian==0.23.1",
         env={"JIRA_URL": "https://example.atlassian.net", "JIRA_USERNAME": "fake@example.com",
              "JIRA_API_TOKEN": "fake", "CONFLUENCE_URL": "https://example.atlassian.net/wiki",
              "CONFLUENCE_USERNAME": "fake@example.com", "CONFLUENCE_API_TOKEN": "fake",
              "TOOLSETS": "all"}),
    dict(ns="git", pkg="pypi:mcp-server-git==2026.10.19"),
    dict(ns="fetch", pkg="pypi:mcp-server-fetch==2026.10.24"),
    dict(ns="time", pkg="pypi:mcp-server-time==2026.10.19",
         args=["--local-timezone", "UTC"]),
]

# Tried and left out: @sentry/mcp-server (FSL licence), @neondatabase/mcp-server-neon
# 0.6.5 (a dependency is a GitHub tarball, not on npm), @heroku/mcp-server 1.2.8
# (fails to load its SDK), @benborla29/mcp-server-mysql 2.0.9 (exits on tools/list
# without a database), @stripe/mcp 0.3.x (proxies to a remote server),
# awslabs.prometheus-mcp-server 0.3.1 (calls AWS STS before it answers),
# mcp-server-docker (not on PyPI), @browserbasehq/mcp (not on npm); awslabs
# amazon-mq 2.1.1 and amazon-sns-sqs 2.1.1 (exit at start), kinesis 0.1.3 and
# healthlake 0.0.20 (exit at start), amazon-translate 1.0.7 (not tried further).
# awslabs aws-healthomics (77 tools) and amazon-bedrock-agentcore (123 tools) work
# but are left out to keep the catalog near 1,500 tools and AWS under 35% of it.
AWS = [
    ("eks", "awslabs.eks-mcp-server==0.2.1"),
    ("ecs", "awslabs.ecs-mcp-server==0.1.37"),
    ("dataprocessing", "awslabs.aws-dataprocessing-mcp-server==0.2.2"),
    ("dynamodb", "awslabs.dynamodb-mcp-server==2.1.8"),
    ("cloudwatch", "awslabs.cloudwatch-mcp-server==0.3.1"),
    ("iam", "awslabs.iam-mcp-server==1.1.2"),
    ("billing", "awslabs.billing-cost-management-mcp-server==0.0.42"),
    ("sagemaker", "awslabs.sagemaker-ai-mcp-server==1.1.0"),
    ("s3-tables", "awslabs.s3-tables-mcp-server==0.1.1"),
    ("pricing", "awslabs.aws-pricing-mcp-server==1.1.1"),
    ("docs", "awslabs.aws-documentation-mcp-server==1.2.3"),
    ("network", "awslabs.aws-network-mcp-server==0.0.17"),
    ("location", "awslabs.aws-location-mcp-server==2.1.1"),
    ("cloudtrail", "awslabs.cloudtrail-mcp-server==0.1.1"),
    ("redshift", "awslabs.redshift-mcp-server==0.1.2"),
    ("elasticache", "awslabs.elasticache-mcp-server==0.2.1"),
    ("support", "awslabs.aws-support-mcp-server==0.1.23"),
    ("iac", "awslabs.aws-iac-mcp-server==1.0.26"),
    ("influxdb", "awslabs.timestream-for-influxdb-mcp-server==0.1.2"),
    ("appsync", "awslabs.aws-appsync-mcp-server==0.2.1"),
    ("finch", "awslabs.finch-mcp-server==0.2.0"),
    ("serverless", "awslabs.aws-serverless-mcp-server==0.2.0"),
    ("sitewise", "awslabs.aws-iot-sitewise-mcp-server==11.0.23"),
    ("valkey", "awslabs.valkey-mcp-server==1.1.1"),
    ("bedrock-kb", "awslabs.bedrock-kb-retrieval-mcp-server==1.1.2"),
]
# awslabs servers with write/sensitive tools hidden behind a flag get it, so
# that they list everything they have.
AWS_ARGS = {
    "eks": ["--allow-write", "--allow-sensitive-data-access"],
    "dataprocessing": ["--allow-write", "--allow-sensitive-data-access"],
    "sagemaker": ["--allow-write", "--allow-sensitive-data-access"],
    "s3-tables": ["--allow-write"],
    "serverless": ["--allow-write", "--allow-sensitive-data-access"],
    "sitewise": ["--allow-writes"],
}
AWS_ENV = {
    "ecs": {"ALLOW_WRITE": "true", "ALLOW_SENSITIVE_DATA": "true"},
}
for _ns, _pkg in AWS:
    SERVERS.append(dict(ns="aws-" + _ns, pkg="pypi:" + _pkg,
                        args=AWS_ARGS.get(_ns, []),
                        env=dict(FAKE_AWS, **AWS_ENV.get(_ns, {}))))

REDISTRIBUTABLE = ("MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "0BSD",
                   "MIT-0", "Unlicense", "CC0-1.0")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def parse_pkg(spec):
    kind, rest = spec.split(":", 1)
    if kind == "npm":
        name, version = rest.rsplit("@", 1)
    else:
        name, version = rest.split("==", 1)
    return kind, name, version


def venv_dir(ns):
    return os.path.join(VENVS, ns)


# ------------------------------------------------------------------ install

def install_npm(servers):
    specs = ["%s@%s" % parse_pkg(s["pkg"])[1:] for s in servers]
    if not specs:
        return
    os.makedirs(NPM_PREFIX, exist_ok=True)
    # Start from an empty manifest so the prefix holds exactly this list.
    with open(os.path.join(NPM_PREFIX, "package.json"), "w") as f:
        f.write('{"private": true}\n')
    env = dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
    cmd = ["npm", "install", "--prefix", NPM_PREFIX, "--ignore-scripts", "--no-audit",
           "--no-fund", "--save-exact"] + specs
    log("$", " ".join(cmd))
    subprocess.run(cmd, check=True, env=env)


def install_pypi_one(s):
    _, name, version = parse_pkg(s["pkg"])
    vd = venv_dir(s["ns"])
    py = os.path.join(vd, "bin", "python")
    if os.path.exists(py):
        r = subprocess.run([py, "-c", "import importlib.metadata as m,sys; "
                            "sys.exit(m.version(sys.argv[1]) != sys.argv[2])", name, version],
                           capture_output=True)
        if r.returncode == 0:
            return s["ns"], True, "already installed"
    subprocess.run([sys.executable, "-m", "venv", "--clear", vd], check=True)
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "%s==%s" % (name, version)], capture_output=True, text=True)
    return s["ns"], r.returncode == 0, (r.stderr or "")[-600:]


def install_pypi(servers, jobs):
    os.makedirs(VENVS, exist_ok=True)
    failed = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for ns, ok, msg in ex.map(install_pypi_one, servers):
            log("pip %-24s %s" % (ns, "ok" if ok else "FAILED: " + msg))
            if not ok:
                failed[ns] = "pip install failed: " + msg.strip().splitlines()[-1] if msg.strip() else "pip install failed"
    return failed


# ---------------------------------------------------------- command, license

def npm_pkg_dir(name):
    return os.path.join(NPM_PREFIX, "node_modules", *name.split("/"))


def license_from_text(text):
    t = text[:4000]
    if "Apache License" in t and "Version 2.0" in t:
        return "Apache-2.0"
    if "Permission is hereby granted, free of charge" in t:
        return "MIT"
    if "Permission to use, copy, modify, and/or distribute" in t:
        return "ISC"
    if "Redistribution and use in source and binary forms" in t:
        return "BSD-3-Clause" if "Neither the name" in t else "BSD-2-Clause"
    return None


def npm_info(s):
    _, name, version = parse_pkg(s["pkg"])
    d = npm_pkg_dir(name)
    with open(os.path.join(d, "package.json")) as f:
        pj = json.load(f)
    if pj.get("version") != version:
        raise RuntimeError("installed %s is %s, want %s" % (name, pj.get("version"), version))
    lic = pj.get("license")
    if isinstance(lic, dict):
        lic = lic.get("type")
    if not lic or lic.upper().startswith("SEE LICENSE"):
        for fn in sorted(os.listdir(d)):
            if fn.upper().startswith(("LICENSE", "LICENCE")):
                with open(os.path.join(d, fn), errors="replace") as f:
                    lic = license_from_text(f.read()) or lic
                break
    bins = pj.get("bin") or {}
    if isinstance(bins, str):
        bins = {name.split("/")[-1]: bins}
    b = s.get("bin")
    if b is None:
        if len(bins) != 1:
            raise RuntimeError("%s has bins %s; say which" % (name, sorted(bins)))
        b = next(iter(bins))
    path = os.path.join(d, bins[b])
    return ["node", path], lic


PYPI_INFO = r"""
import importlib.metadata as m, json, sys
d = m.distribution(sys.argv[1])
md = d.metadata
lic = md.get("License-Expression") or ""
if not lic:
    cls = [c for c in (md.get_all("Classifier") or []) if c.startswith("License ::")]
    lic = "; ".join(c.split(" :: ")[-1] for c in cls) or (md.get("License") or "")
text = ""
if not lic:
    for f in d.files or []:
        if "licen" in f.name.lower() and ".dist-info" in str(f):
            text = f.read_text() or ""
            break
eps = [e.name for e in d.entry_points if e.group == "console_scripts"]
print(json.dumps({"version": d.version, "license": lic, "license_text": text, "scripts": eps}))
"""

CLASSIFIER_SPDX = {"MIT License": "MIT", "Apache Software License": "Apache-2.0",
                   "BSD License": "BSD-3-Clause", "ISC License (ISCL)": "ISC"}


def pypi_info(s):
    _, name, version = parse_pkg(s["pkg"])
    vd = venv_dir(s["ns"])
    r = subprocess.run([os.path.join(vd, "bin", "python"), "-c", PYPI_INFO, name],
                       capture_output=True, text=True, check=True)
    info = json.loads(r.stdout)
    if info["version"] != version:
        raise RuntimeError("installed %s is %s, want %s" % (name, info["version"], version))
    lic = info["license"].strip() or license_from_text(info["license_text"]) or ""
    lic = CLASSIFIER_SPDX.get(lic, lic)
    if lic.startswith("Apache") and "2" in lic:
        lic = "Apache-2.0"
    if lic in ("MIT license", "MIT License"):
        lic = "MIT"
    b = s.get("bin")
    if b is None:
        if len(info["scripts"]) != 1:
            raise RuntimeError("%s has scripts %s; say which" % (name, info["scripts"]))
        b = info["scripts"][0]
    return [os.path.join(vd, "bin", b)], lic


# ----------------------------------------------------------------- JSON-RPC

class Server:
    def __init__(self, cmd, env, logpath):
        self.logf = open(logpath, "wb")
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.logf, env=env, cwd=SCRATCH,
                                  start_new_session=True)
        self.q = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                self.logf.write(b"[stdout, not JSON] " + line + b"\n")
                continue
            self.q.put(msg)
        self.q.put(None)

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params, deadline):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("timed out waiting for %s" % method)
            try:
                msg = self.q.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("timed out waiting for %s" % method)
            if msg is None:
                raise RuntimeError("server exited (code %s) during %s" % (self.p.poll(), method))
            if "method" in msg and "id" in msg:  # a request from the server
                if msg["method"] == "roots/list":
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": []}})
                elif msg["method"] == "ping":
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
                else:
                    self.send({"jsonrpc": "2.0", "id": msg["id"],
                               "error": {"code": -32601, "message": "not supported"}})
                continue
            if msg.get("id") == rid:
                if "error" in msg:
                    raise RpcError(msg["error"])
                return msg.get("result") or {}

    def kill(self):
        try:
            os.killpg(self.p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.p.wait(5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.p.wait()
        self.logf.close()


class RpcError(Exception):
    pass


def list_tools(s, cmd, env):
    last = None
    for version in PROTOCOL_VERSIONS:
        srv = Server(cmd, env, os.path.join(LOGS, s["ns"] + ".log"))
        deadline = time.monotonic() + TIMEOUT
        try:
            try:
                init = srv.request("initialize", {
                    "protocolVersion": version, "capabilities": {},
                    "clientInfo": {"name": "tool-search-collect", "version": "0.1.0"}}, deadline)
            except RpcError as e:
                last = "initialize refused (%s): %s" % (version, e)
                continue
            srv.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            tools, cursor, pages = [], None, 0
            while True:
                params = {"cursor": cursor} if cursor else {}
                res = srv.request("tools/list", params, deadline)
                tools.extend(res.get("tools") or [])
                cursor = res.get("nextCursor")
                pages += 1
                if not cursor or pages > 200:
                    break
            return tools, init.get("protocolVersion")
        finally:
            srv.kill()
    raise RuntimeError(last or "initialize failed")


def clean_tool(t):
    out = {"name": t["name"]}
    if t.get("title"):
        out["title"] = t["title"]
    out["description"] = t.get("description") or ""
    out["inputSchema"] = t.get("inputSchema") or {"type": "object"}
    return out


def collect_one(s):
    kind, name, version = parse_pkg(s["pkg"])
    scratch = os.path.join(SCRATCH, s["ns"])
    os.makedirs(scratch, exist_ok=True)
    sub = lambda v: v.replace("{scratch}", scratch)
    for fn, text in s.get("files", {}).items():
        with open(os.path.join(scratch, fn), "w") as f:
            f.write(text)
    cmd, lic = (npm_info if kind == "npm" else pypi_info)(s)
    cmd = cmd + [sub(a) for a in s.get("args", [])]
    env = {k: v for k, v in os.environ.items()
           if k in ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER")}
    env["HOME"] = scratch
    env["NO_COLOR"] = "1"
    # mcp-atlassian builds a schema default from a set: pin the hash seed so
    # that reruns give the same text.
    env["PYTHONHASHSEED"] = "0"
    env.update({k: sub(v) for k, v in s.get("env", {}).items()})
    if lic not in REDISTRIBUTABLE:
        raise RuntimeError("license %r not known to allow redistribution" % lic)
    tools, proto = list_tools(s, cmd, env)
    kept, dropped = [], []
    for t in tools:
        exposed = "%s_%s" % (s["ns"], t.get("name", ""))
        if not t.get("name") or not EXPOSED_NAME.match(exposed):
            dropped.append(exposed)
        else:
            kept.append(clean_tool(t))
    return {"namespace": s["ns"], "package": "%s:%s@%s" % (kind, name, version),
            "license": lic, "tools": kept}, dropped, proto


# ------------------------------------------------------------------- output

def write_catalog(servers, about, path):
    dump = lambda o: json.dumps(o, ensure_ascii=False, separators=(",", ":"))
    lines = ["{\"about\":%s," % dump(about), "\"servers\":["]
    for i, s in enumerate(servers):
        head = {k: s[k] for k in ("namespace", "package", "license")}
        lines.append(dump(head)[:-1] + ",\"tools\":[")
        for j, t in enumerate(s["tools"]):
            lines.append(dump(t) + ("," if j + 1 < len(s["tools"]) else ""))
        lines.append("]}" + ("," if i + 1 < len(servers) else ""))
    lines.append("]}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


ABOUT = ("Real MCP tool definitions for the tool-search benchmark, listed by the published "
         "servers themselves: each package below was installed at the exact version given "
         "(npm: npm install --prefix target/tool-search/npm; PyPI: one venv per package under "
         "target/tool-search/venv), started over stdio with fake credentials, and asked "
         "initialize + tools/list (following nextCursor). Only name, title, description and "
         "inputSchema are kept, in the order each server listed them. Regenerate with: "
         "python3 bench/tool-search/collect.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-install", action="store_true")
    ap.add_argument("--only", help="comma-separated namespaces (writes catalog.only.json in target/)")
    ap.add_argument("--jobs", type=int, default=4)
    a = ap.parse_args()

    servers = SERVERS
    assert len({s["ns"] for s in servers}) == len(servers), "duplicate namespace"
    for s in servers:
        assert NAMESPACE.match(s["ns"]), s["ns"]
    if a.only:
        want = set(a.only.split(","))
        servers = [s for s in servers if s["ns"] in want]
    os.makedirs(SCRATCH, exist_ok=True)
    os.makedirs(LOGS, exist_ok=True)

    failed = {}
    if not a.skip_install:
        install_npm([s for s in servers if s["pkg"].startswith("npm:")])
        failed.update(install_pypi([s for s in servers if s["pkg"].startswith("pypi:")], a.jobs))

    results, dropped_all = [], []

    def run(s):
        if s["ns"] in failed:
            return s, None, None, None, failed[s["ns"]]
        try:
            entry, dropped, proto = collect_one(s)
            return s, entry, dropped, proto, None
        except Exception as e:  # noqa: BLE001 - report and go on
            return s, None, None, None, "%s: %s" % (type(e).__name__, e)

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for s, entry, dropped, proto, err in ex.map(run, servers):
            if err:
                failed[s["ns"]] = err
                log("FAIL %-22s %s" % (s["ns"], err))
                continue
            if not entry["tools"]:
                failed[s["ns"]] = "listed no tools"
                log("FAIL %-22s listed no tools" % s["ns"])
                continue
            log("ok   %-22s %4d tools (protocol %s)" % (s["ns"], len(entry["tools"]), proto))
            results.append(entry)
            dropped_all += dropped

    results.sort(key=lambda e: e["namespace"])
    total = sum(len(e["tools"]) for e in results)
    print("%-22s %-64s %5s" % ("namespace", "package", "tools"))
    for e in results:
        print("%-22s %-64s %5d" % (e["namespace"], e["package"], len(e["tools"])))
    print("%-22s %-64s %5d" % ("TOTAL (%d servers)" % len(results), "", total))
    for n in dropped_all:
        print("dropped (exposed name invalid): %s" % n)
    for ns, err in sorted(failed.items()):
        print("failed: %s: %s" % (ns, err))
    if total:
        big = max(results, key=lambda e: len(e["tools"]))
        print("largest server: %s with %.1f%% of tools" % (big["namespace"],
                                                          100.0 * len(big["tools"]) / total))
    out = CATALOG if not a.only else os.path.join(WORK, "catalog.only.json")
    write_catalog(results, ABOUT, out)
    print("wrote %s (%d bytes)" % (out, os.path.getsize(out)))


if __name__ == "__main__":
    main()
