"""Runs Autobahn's WebSocket cases (kosoku's runner of their case files) against a server; a line per case.

usage: autobahn.py URL CASES [EXCLUDED]   (comma-separated case ids or globs, e.g. 1.*,2.*)
Each line: id, passed, behavior, closing behavior, the server's close code, whether the case sent a binary message,
and kosoku's words on the case, tab-separated. The last line: "ran N".
"""

import asyncio
import sys

import kosoku


async def main() -> None:
    url = sys.argv[1]
    cases = sys.argv[2].split(",")
    excluded = sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[3] else None
    try:
        results = await kosoku.run_fuzzingclient(url, cases, excluded, concurrency=1)
    except kosoku.FailureError as failure:
        results = failure.results
    for r in results:
        binary = any(str(opcode) == "2" and count > 0 for opcode, count in (r.tx_frame_stats or {}).items())
        # What came back, cut short: a case of case 9 sends 16 MiB
        words = " ".join(f"{r.result} {r.result_close} received {str(r.received)[:200]}".split())
        print("\t".join([r.case_id, str(r.passed).lower(), r.behavior.value, r.behavior_close.value,
                         str(r.remote_close_code), str(binary).lower(), words]))
    print(f"ran {len(results)}")


asyncio.run(main())
