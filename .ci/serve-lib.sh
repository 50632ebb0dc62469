# Shared by .ci/check-demo and .ci/check-restore (sourced, not run): the environment of a demo server, starting
# `collab-host serve` until /healthz answers, and the conformance kit against it.

# The secrets and settings both scripts' servers share; each sets DATABASE_URL and PORT itself.
export HOST=127.0.0.1 TOKEN_SECRET=check-demo-token-secret-0123456789 APP_ID=check-demo-app \
  APP_SECRET=check-demo-app-secret-0123456789 LOG_LEVEL=warn ADMIN_API_KEY=check-demo-admin-key-0123456789
unset NODE_ENV PLATFORM_API_URL NOTIFY_WEBHOOK_URLS HEADER_BRAND

servers=()
stop_servers() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
}

# start_serve LOG: starts `collab-host serve` with the current DATABASE_URL and PORT, waits for /healthz.
start_serve() {
  node bin/collab-host.js serve >"$1" 2>&1 &
  servers+=($!)
  for _ in $(seq 1 60); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && return 0
    kill -0 "${servers[-1]}" 2>/dev/null || { cat "$1"; exit 1; }
    sleep 0.5
  done
  cat "$1"
  exit 1
}

# run_kit: every check group against the server on PORT, as the demo user, with the application's credentials
# and the admin key (so the production-shape events are also found stored in GET /api/events).
run_kit() {
  local token
  token="$(node bin/collab-host.js token zhangsan)"
  node bin/collab-host.js check "http://127.0.0.1:$PORT" --token "$token" --app-id "$APP_ID" --app-secret "$APP_SECRET" --admin-key "$ADMIN_API_KEY"
}

# mysql_test_database NAME: creates the database NAME (utf8mb4, binary collation) on the MariaDB server of
# TEST_MYSQL_URL, through the test user, and prints the DATABASE_URL naming it; drop_mysql_test_database NAME
# drops it. Callers check `have_mysql` first.
have_mysql() { [ -n "${TEST_MYSQL_URL:-}" ] && command -v mysql >/dev/null; }
mysql_test_client() {
  node -e '
    const u = new URL(process.argv[1]);
    const out = ["-h", u.hostname, "-P", u.port || "3306", "-u", decodeURIComponent(u.username)];
    if (u.password) out.push("-p" + decodeURIComponent(u.password));
    process.stdout.write(out.join("\n"));
  ' "$TEST_MYSQL_URL"
}
mysql_test() {
  local args
  mapfile -t args < <(mysql_test_client)
  mysql "${args[@]}" "$@"
}
mysql_test_database() {
  mysql_test -e "CREATE DATABASE \`$1\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
  node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; process.stdout.write(u.toString())' "$TEST_MYSQL_URL" "$1"
}
drop_mysql_test_database() { mysql_test -e "DROP DATABASE IF EXISTS \`$1\`" >/dev/null 2>&1 || true; }
