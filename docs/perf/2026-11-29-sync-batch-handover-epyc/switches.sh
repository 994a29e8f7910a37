#!/usr/bin/env bash
# Context switches and CPU time per request, thread by thread, of servers loaded one at a time with wrk.
#   switches.sh OUT ROUNDS SECONDS CLASS[:JVM-OPTION] ...
# Each server (a rapier.perf PerfServer class, on the Temurin 25 under /usr/lib/jvm) runs pinned to CPU 0, wrk to CPU 1;
# each is warmed 45 s, then loaded ROUNDS times for SECONDS each, the servers taking turns; /proc's counters of every
# thread are read before and after each load. Then: python3 switches.py OUT
set -u
cd "$(dirname "$0")/../../.."
out=$1; rounds=$2; secs=$3; shift 3
mkdir -p "$out"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
cp=$(cat target/perf/classpath-rapier.txt)
port=9100; pids=(); ports=(); names=(); k=0
for arg in "$@"; do
  k=$((k+1)); cls=${arg%%:*}; opt=""; [ "$arg" != "$cls" ] && opt=${arg#*:}
  port=$((port+1))
  taskset -c 0 "$java" -Xms2g -Xmx2g $opt -cp "$cp" rapier.perf.common.ServerMain "$cls" --port $port --routes 1 \
    --log false --threads 1 --stop-on-eof false > "$out/$port.log" 2>&1 &
  pids+=($!); ports+=($port); names+=("${cls##*.}$k")
done
sleep 6
for p in "${ports[@]}"; do taskset -c 1 wrk -t1 -c64 -d45s "http://127.0.0.1:$p/path0/4" > /dev/null; done
snap() { # per thread: name, user and system ticks, voluntary and involuntary context switches
  for t in /proc/$1/task/*; do
    st=($(sed 's/^.*) //' "$t/stat"))
    echo "$(tr ' ' '_' < "$t/comm") ${st[11]} ${st[12]} $(awk '/^voluntary/{print $2}' "$t/status")" \
      "$(awk '/^nonvoluntary/{print $2}' "$t/status")"
  done
}
for r in $(seq 1 "$rounds"); do
  for i in "${!ports[@]}"; do
    snap "${pids[$i]}" > "$out/r$r-${names[$i]}-before.txt"
    taskset -c 1 wrk -t1 -c64 -d"${secs}s" "http://127.0.0.1:${ports[$i]}/path0/4" > "$out/r$r-${names[$i]}-wrk.txt"
    snap "${pids[$i]}" > "$out/r$r-${names[$i]}-after.txt"
  done
done
kill "${pids[@]}"
