# shellcheck shell=bash disable=SC2034  # sets variables for the script that sources it
# Shared by callgrind.sh and auth.sh (sourced, not run): the test suite's
# authorization server (.ci/oidc/provider.mjs, oidc-provider as
# .ci/install.sh installs it) on loopback, and its access tokens.
#
# MCP_OIDC_PROVIDER_DIR names the folder of oidc-provider's `npm ci`, as for
# the tests; else $CI_CACHE_DIR/tools/oidc-provider, else the repository's
# target/ci/tools/oidc-provider.

# Starts the provider on a port it binds itself; sets `issuer` and `provider_pid`.
# Ready when it writes its one line, {"issuer": URL}, which it does once it
# answers its own discovery document.
start_provider() {
    local dir=${MCP_OIDC_PROVIDER_DIR:-${CI_CACHE_DIR:+$CI_CACHE_DIR/tools/oidc-provider}}
    dir=${dir:-../target/ci/tools/oidc-provider}
    [[ -d "$dir/node_modules/oidc-provider" ]] || { echo "oidc-provider is not installed in $dir: run .ci/install.sh" >&2; exit 1; }
    local ready
    ready=$(mktemp)
    node ../.ci/oidc/provider.mjs --modules "$dir/node_modules" >"$ready" 2>/dev/null &
    provider_pid=$!
    for _ in $(seq 600); do
        if [[ $(wc -l <"$ready") -ge 1 ]]; then
            issuer=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["issuer"])' "$ready")
            rm -f "$ready"
            return 0
        fi
        kill -0 "$provider_pid" 2>/dev/null || break
        sleep 0.1
    done
    rm -f "$ready"
    echo "the provider did not start" >&2
    exit 1
}

# The client of the provider that gets tokens signed with ALG (ES256,
# RS256 or EdDSA).
client_for() {
    case "$1" in
        ES256) echo es256-client ;;
        RS256) echo rs256-client ;;
        EdDSA) echo eddsa-client ;;
        *) echo "unknown algorithm $1 (ES256, RS256 or EdDSA)" >&2; exit 2 ;;
    esac
}

# An access token signed with ALG for RESOURCE, scope notes:read, by the
# client credentials grant.
token_for() {
    local alg=$1 resource=$2 client
    client=$(client_for "$alg")
    curl -sf -u "$client:secret" "$issuer/token" \
        --data-urlencode grant_type=client_credentials \
        --data-urlencode scope=notes:read \
        --data-urlencode "resource=$resource" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])'
}
