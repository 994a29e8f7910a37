"""Per round and server: requests, CPU time and context switches per request, and the threads that spent the most."""
import collections, glob, os, re, sys

out = sys.argv[1]
TICK_MS = 10  # /proc's clock ticks (USER_HZ = 100)


def load(path):
    threads = collections.defaultdict(lambda: [0, 0, 0, 0])
    for line in open(path):
        name, *counts = line.split()
        name = re.sub(r"\d+", "#", name)  # the threads of a pool together
        for k, x in enumerate(counts):
            threads[name][k] += int(x)
    return threads


for wrk in sorted(glob.glob(f"{out}/r*-wrk.txt")):
    r, name = re.match(r"r(\d+)-(.*)-wrk.txt", os.path.basename(wrk)).groups()
    n = int(re.search(r"(\d+) requests in", open(wrk).read()).group(1))
    before, after = load(f"{out}/r{r}-{name}-before.txt"), load(f"{out}/r{r}-{name}-after.txt")
    delta = {t: [a - b for a, b in zip(c, before.get(t, [0] * 4))] for t, c in after.items()}
    user, system, vol, invol = (sum(d[k] for d in delta.values()) for k in range(4))
    print(f"round {r} {name}: {n} requests; CPU {(user + system) * TICK_MS * 1000 / n:.1f} ms per 1,000 "
          f"(user {user * TICK_MS * 1000 / n:.1f}, system {system * TICK_MS * 1000 / n:.1f}); "
          f"context switches per request {vol / n:.3f} voluntary, {invol / n:.3f} involuntary")
    for t, d in sorted(delta.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:3]:
        if d[0] + d[1] > 0:
            print(f"    {t:20s} CPU {(d[0] + d[1]) * TICK_MS * 1000 / n:5.1f} ms per 1,000; "
                  f"switches per request {d[2] / n:.3f} voluntary, {d[3] / n:.3f} involuntary")
