#!/usr/bin/env bash
# Installs the peer echo servers written with the official TypeScript and
# Python MCP SDKs into bench/target/peers/, with the system `node`/`npm` and
# `python3`:
#
#   bench/target/peers/node/     package.json, package-lock.json, server.mjs
#                                and node_modules (`npm ci` from the committed
#                                lock): run `node bench/target/peers/node/server.mjs`
#   bench/target/peers/python/venv   a venv with bench/peers/python/requirements.txt:
#                                run `bench/target/peers/python/venv/bin/uvicorn
#                                --app-dir bench/peers/python server:app ...`
#
# Idempotent: each side is skipped when it was installed from the same lock
# (or requirements) by the same interpreter, which a stamp file records.
# server.mjs is copied on every run (node resolves its imports from the
# directory the file is in, so it runs beside its node_modules).
#
# `bench/peers/install.sh [node|python]` installs one side; both by default.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="$here/../target/peers"
mkdir -p "$target"
# The physical path: bench/target may be a symlink shared by several checkouts,
# and the venv's scripts name their interpreter by the path it was made at.
target="$(cd "$target" && pwd -P)"
if (($#)); then sides=("$@"); else sides=(node python); fi

digest() {
    cat "$@" | sha256sum | cut -d" " -f1
}

install_node() {
    local src="$here/node" dst="$target/node"
    command -v node >/dev/null && command -v npm >/dev/null || {
        echo "node: node and npm are needed (system packages)" >&2
        return 1
    }
    mkdir -p "$dst"
    local stamp
    stamp="node $(node --version) npm $(npm --version) lock $(digest "$src/package.json" "$src/package-lock.json")"
    if [[ -d "$dst/node_modules" && -f "$dst/.installed" && "$(cat "$dst/.installed")" == "$stamp" ]]; then
        echo "node: up to date in $dst ($stamp)"
    else
        echo "node: npm ci into $dst/node_modules ($stamp)"
        rm -f "$dst/.installed"
        cp "$src/package.json" "$src/package-lock.json" "$dst/"
        (cd "$dst" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=warn)
        echo "$stamp" >"$dst/.installed"
    fi
    cp "$src/server.mjs" "$dst/server.mjs"
    echo "node: server at $dst/server.mjs"
    (cd "$dst" && npm ls --depth=0 2>/dev/null | grep -v '^\s*$' | sed 's/^/node:   /')
}

install_python() {
    local src="$here/python" dst="$target/python"
    command -v python3 >/dev/null || {
        echo "python: python3 is needed" >&2
        return 1
    }
    mkdir -p "$dst"
    local python
    python="$(python3 -c 'import sys; print(sys.executable)')"
    local stamp
    stamp="python $("$python" --version 2>&1 | cut -d' ' -f2) ($python) at $dst requirements $(digest "$src/requirements.txt")"
    if [[ -x "$dst/venv/bin/python" && -f "$dst/.installed" && "$(cat "$dst/.installed")" == "$stamp" ]]; then
        echo "python: up to date in $dst/venv ($stamp)"
    else
        echo "python: new venv at $dst/venv, pip install -r requirements.txt ($stamp)"
        rm -rf "$dst/venv" "$dst/.installed"
        "$python" -m venv "$dst/venv"
        "$dst/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
            --require-virtualenv -r "$src/requirements.txt"
        echo "$stamp" >"$dst/.installed"
    fi
    echo "python: run with $dst/venv/bin/uvicorn --app-dir $src server:app"
    "$dst/venv/bin/python" -m pip list --disable-pip-version-check 2>/dev/null |
        grep -iE '^(mcp|mcp-types|uvicorn|starlette|pydantic|pydantic[-_]core|anyio) ' | sed 's/^/python:   /'
}

for side in "${sides[@]}"; do
    case "$side" in
        node) install_node ;;
        python) install_python ;;
        *)
            echo "usage: $0 [node|python]..." >&2
            exit 2
            ;;
    esac
done
