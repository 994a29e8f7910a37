#!/usr/bin/env bash
# A 1 GiB upload to POST /pathStream0, on each Netty and Vert.x server of the suite's Rapier side, in interleaved
# rounds: the server's answer, the upload's time and the server's peak RSS (VmHWM) after it, beside its RSS once
# started. Servers run as `./perf serve` runs them (-Xms2g -Xmx2g), pinned to CPU 0; curl to CPU 1.
#
#   docs/perf/2026-11-23-upload-1gib/run.sh [ROUNDS]    (from the repository's root; prints a Markdown table)
set -euo pipefail
rounds="${1:-3}"
servers=(netty.Vanilla netty.future.Rapier vertx.Vanilla vertx.future.Rapier)
body="$(mktemp /tmp/rapier-1gib.XXXXXX)"
trap 'rm -f "$body"' EXIT
truncate -s 1G "$body"
port=18431

echo "| round | server | answer | seconds | RSS started (MiB) | peak RSS (MiB) |"
echo "|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  for server in "${servers[@]}"; do
    taskset -c 0 ./perf serve "$server" --port "$port" > /tmp/rapier-upload-server.log 2>&1 &
    launcher=$!
    for _ in $(seq 1 300); do
      curl -s -o /dev/null "http://127.0.0.1:$port/path0/1" && break
      sleep 0.1
    done
    pid="$(ss -ltnpH "sport = :$port" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)"
    started="$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status")"
    begin="$(date +%s.%N)"
    answer="$(taskset -c 1 curl -s -X POST -H 'Expect:' -H 'Content-Type: application/octet-stream' -T "$body" \
      "http://127.0.0.1:$port/pathStream0")"
    end="$(date +%s.%N)"
    peak="$(awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$pid/status")"
    printf '| %s | %s | %s | %.2f | %s | %s |\n' "$round" "$server" "$answer" "$(echo "$end - $begin" | bc)" \
      "$started" "$peak"
    kill "$pid" 2>/dev/null || true
    wait "$launcher" 2>/dev/null || true
    sleep 1
  done
done
