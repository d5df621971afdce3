# Shared by callgrind.sh and profile.sh (sourced, not run): the server under
# study built with line tables, its arguments, and a port to serve on.
#
# Uses `server` (ours, rmcp or floor) and the optional TOOLS, LIST and LEGACY; sets
# `server_args`, `driver_args` and `port`.

# Release builds with line tables, in a target folder of their own: the
# binaries `run.sh` measures stay built without debug information.
# OTLP=1 (ours) builds with the `otel` feature, AUTH=ALG (ours) with the
# `auth` feature, REDIS=1 (ours) with the `redis` feature, RATE_LIMIT=1
# (ours) with the `rate-limit` feature, FORWARD=1 with `forward`, HTTP2=1 with
# `http2`, each in a folder of its own.
build_for_profiling() {
    local dir=target/profiling features=()
    # Each setting's feature, built in a folder of its own; the last set wins.
    local setting name feature
    for setting in OTLP:otel AUTH:auth REDIS:redis RATE_LIMIT:rate-limit FORWARD:forward HTTP2:http2; do
        name=${setting%%:*} feature=${setting#*:}
        if [[ -n "${!name:-}" && "$server" == ours ]]; then
            dir=target/profiling-$feature
            features=(--features "$feature")
        fi
    done
    CARGO_TARGET_DIR=$dir CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
        cargo build --release --quiet -p "bench-$server" "${features[@]}"
    server_bin=$dir/release/bench-$server
    cargo build --release --quiet -p bench-driver
}

# TOOLS=N serves N tools (ours in one page of N); LIST=1 drives `tools/list`;
# LEGACY=1 drives 2025-era `tools/call`, each connection in a session (ours and
# rmcp, which is then started in its session mode).
profiling_args() {
    server_args=()
    driver_args=()
    if [[ -n "${TOOLS:-}" ]]; then
        server_args+=(--tools "$TOOLS")
        [[ "$server" == ours ]] && server_args+=(--page-size "$TOOLS")
    fi
    if [[ -n "${LIST:-}" ]]; then
        driver_args+=(--list)
    fi
    if [[ -n "${LOG:-}" && "$server" == ours ]]; then
        server_args+=(--log "$LOG")
    fi
    if [[ -n "${OTLP:-}" && "$server" == ours ]]; then
        server_args+=(--otel)
    fi
    if [[ -n "${RATE_LIMIT:-}" && "$server" == ours ]]; then
        server_args+=(--rate-limit)
    fi
    if [[ -n "${LEGACY:-}" ]]; then
        driver_args+=(--legacy)
        [[ "$server" == rmcp ]] && server_args+=(--sessions)
    fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
}

# Waits until something accepts connections on `port`: up to TRIES tries,
# DELAY seconds apart.
wait_for_port() {
    local tries=$1 delay=$2
    for _ in $(seq "$tries"); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep "$delay"
    done
}
