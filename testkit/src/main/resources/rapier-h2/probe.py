"""HTTP/2 over raw frames, for what a client library won't send: the kit's conformance and flood cases.

Usage: probe.py CASE PORT [ARG...]. Prints one JSON object: what the server answered, or did to the connection.
PORT `tls:N` speaks h2 over TLS (ALPN, the certificate not checked), a bare N h2c. Needs the `h2` package (pip install h2).
"""
import json
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
from hyperframe.frame import ContinuationFrame, DataFrame, HeadersFrame, PingFrame, SettingsFrame

TIMEOUT = 10
# A flood's sender waits this long for the server to take more before reading it as no longer read
FLOOD_STALL = 2
TLS = False


def connect(port, validate=True, settings=None):
    sock = socket.create_connection(("localhost", port), timeout=TIMEOUT)
    if TLS:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.set_alpn_protocols(["h2"])
        sock = context.wrap_socket(sock, server_hostname="localhost")
        if sock.selected_alpn_protocol() != "h2":
            raise SystemExit(f"the server did not choose h2 by ALPN: {sock.selected_alpn_protocol()}")
    config = h2.config.H2Configuration(
        client_side=True,
        header_encoding="utf-8",
        validate_outbound_headers=validate,
        normalize_outbound_headers=validate,
        validate_inbound_headers=False,
    )
    conn = h2.connection.H2Connection(config=config)
    conn.initiate_connection()
    if settings:
        conn.update_settings(settings)
    sock.sendall(conn.data_to_send())
    return sock, conn


def base(port, path="/h2/hello", method="GET", extra=()):
    return [(":method", method), (":scheme", "https" if TLS else "http"), (":authority", f"localhost:{port}"), (":path", path)] + list(extra)


def read_events(sock, conn, until, seconds=TIMEOUT, reply=True):
    """Reads until `until(events so far)` holds, the connection ends, or time runs out; returns events and why. What
    the client library would answer goes out unless `reply` is off (mid-way through a frame of the caller's own)."""
    events = []
    deadline = time.time() + seconds
    while time.time() < deadline:
        sock.settimeout(max(0.05, deadline - time.time()))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            return events, "timeout"
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
            return events, "reset"
        if not data:
            return events, "closed"
        try:
            events += conn.receive_data(data)
        except Exception as e:  # a frame the client library refuses: reported, not raised
            return events, f"client-error:{type(e).__name__}"
        out = conn.data_to_send() if reply else b""
        if out:
            try:
                sock.sendall(out)
            except OSError:
                return events, "reset"
        if until(events):
            return events, "done"
    return events, "timeout"


def outcome(events, stream_id, why):
    """The response on `stream_id`: its status, body and headers; or its reset's code; or the connection's end."""
    result = {"why": why}
    body = b""
    for e in events:
        if isinstance(e, h2.events.ResponseReceived) and e.stream_id == stream_id:
            headers = {k: v for k, v in e.headers}
            result["status"] = int(headers[":status"])
            result["headers"] = {k: v for k, v in headers.items() if not k.startswith(":")}
        elif isinstance(e, h2.events.DataReceived) and e.stream_id == stream_id:
            body += e.data
        elif isinstance(e, h2.events.StreamReset) and e.stream_id == stream_id:
            result["reset"] = int(e.error_code)
        elif isinstance(e, h2.events.ConnectionTerminated):
            result["goaway"] = int(e.error_code)
    if body:
        result["body"] = body.decode("utf-8", "replace")
    return result


def stream_done(stream_id):
    def until(events):
        return any(
            (isinstance(e, (h2.events.StreamEnded, h2.events.StreamReset)) and e.stream_id == stream_id)
            or isinstance(e, h2.events.ConnectionTerminated)
            for e in events
        )

    return until


def request(port, headers, body=None, validate=False):
    """One request with exactly `headers` (validation off: malformed ones go out as they are)."""
    sock, conn = connect(port, validate=validate)
    sid = conn.get_next_available_stream_id()
    conn.send_headers(sid, headers, end_stream=body is None)
    if body is not None:
        conn.send_data(sid, body.encode(), end_stream=True)
    sock.sendall(conn.data_to_send())
    events, why = read_events(sock, conn, stream_done(sid))
    sock.close()
    return outcome(events, sid, why)


def connection_end(sock, conn, seconds=5):
    """Reads until the server's GOAWAY or the connection's end; closes it. The GOAWAY's code (or None), and why."""
    events, why = read_events(sock, conn, lambda ev: any(isinstance(e, h2.events.ConnectionTerminated) for e in ev),
                              seconds)
    sock.close()
    goaway = [int(e.error_code) for e in events if isinstance(e, h2.events.ConnectionTerminated)]
    return (goaway[0] if goaway else None), why


def serve_check(port):
    """Whether a new connection is served now: the server still answers other clients."""
    try:
        r = request(port, base(port), validate=True)
        return r.get("status") == 200
    except OSError:
        return False


def case_get(port, path, *pairs):
    extra = [tuple(p.split("=", 1)) for p in pairs]
    return request(port, base(port, path=path) + extra, validate=True)


def case_malformed(port, kind):
    """Requests RFC 9113 calls malformed, or that break HTTP's own rules."""
    h = base(port)
    if kind == "no-scheme":
        headers = [x for x in h if x[0] != ":scheme"]
    elif kind == "no-path":
        headers = [x for x in h if x[0] != ":path"]
    elif kind == "unknown-pseudo":
        headers = h + [(":color", "blue")]
    elif kind == "pseudo-after-regular":
        headers = [x for x in h if x[0] != ":path"] + [("accept", "*/*"), (":path", "/h2/hello")]
    elif kind == "connection-header":
        headers = h + [("connection", "keep-alive")]
    elif kind == "te-gzip":
        headers = h + [("te", "gzip")]
    elif kind == "uppercase-name":
        headers = h + [("Accept", "*/*")]
    elif kind == "duplicate-path":
        headers = h + [(":path", "/h2/other")]
    elif kind == "path-with-space":
        headers = base(port, path="/h2/he llo")
    elif kind == "path-not-absolute":
        headers = base(port, path="h2/hello")
    elif kind == "method-not-token":
        headers = base(port, method="GE(T")
    elif kind == "value-with-control":
        headers = h + [("x-note", "a\x01b")]
    elif kind == "host-differs":
        headers = h + [("host", "elsewhere.example")]
    elif kind == "bad-authority":
        headers = [x for x in h if x[0] != ":authority"] + [(":authority", "local host")]
    else:
        raise SystemExit(f"unknown malformed kind {kind}")
    return request(port, headers)


def case_length_mismatch(port, declared, sent):
    """A POST declaring `declared` bytes and sending `sent`."""
    return request(port, base(port, path="/h2/echo", method="POST") + [("content-length", declared)], body="x" * int(sent))


def case_early_answer(port, declared, sent):
    """A POST declaring `declared` bytes and sending only `sent` of them, its stream left open: the answer, if any comes
    before the body would end, and how the server ends the stream."""
    sock, conn = connect(port)
    sid = conn.get_next_available_stream_id()
    conn.send_headers(sid, base(port, path="/h2/early", method="POST") + [("content-length", declared)])
    left = int(sent)
    while left > 0:
        n = min(left, 16384)
        conn.send_data(sid, b"x" * n)
        left -= n
    sock.sendall(conn.data_to_send())
    events, why = read_events(sock, conn, lambda ev: any(
        isinstance(e, (h2.events.StreamReset, h2.events.ConnectionTerminated)) for e in ev))
    sock.close()
    return outcome(events, sid, why)


def case_big_headers(port, size):
    return request(port, base(port) + [("x-big", "y" * int(size))], validate=True)


def case_rapid_reset(port, count):
    """Opens and at once resets `count` streams (CVE-2023-44487), then reports how the connection ended."""
    sock, conn = connect(port)
    out = bytearray()
    for i in range(int(count)):
        sid = 1 + 2 * i
        conn.send_headers(sid, base(port, path="/h2/slow"), end_stream=True)
        conn.reset_stream(sid, error_code=8)  # CANCEL
        out += conn.data_to_send()
    try:
        sock.sendall(bytes(out))
    except OSError:
        pass
    goaway, why = connection_end(sock, conn, TIMEOUT)
    return {"why": why, "goaway": goaway, "served_after": serve_check(port)}


def raw_end(sock, seconds):
    """Reads and drops what the server sends, unparsed, until it closes the connection (`closed`), resets it (`reset`)
    or `seconds` pass (`timeout`)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        sock.settimeout(max(0.05, deadline - time.time()))
        try:
            if not sock.recv(1 << 20):
                return "closed"
        except socket.timeout:
            return "timeout"
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError, OSError):
            return "reset"
    return "timeout"


def flood(port, frames, total, unread=False):
    """Sends `total` frames from `frames()` without reading what comes back; reports when the server cut it off, by
    closing the connection or by no longer reading it (nothing taken for FLOOD_STALL seconds). `unread`: what the
    server wrote is then drained unparsed, for how the connection ended (`end`: closed, reset, or timeout if the server
    kept it)."""
    sock, conn = connect(port)
    sock.settimeout(FLOOD_STALL)
    sent = 0
    cut = None
    chunk = 1000
    try:
        while sent < total:
            sock.sendall(b"".join(frames() for _ in range(chunk)))
            sent += chunk
    except (socket.timeout, OSError) as e:
        cut = type(e).__name__
    if unread:
        end = raw_end(sock, 10)
        sock.close()
        return {"sent": sent, "cut": cut, "end": end, "served_after": serve_check(port)}
    # What the server says last: a GOAWAY among what it wrote, or the connection's end; a server that stopped
    # reading may write neither, and is not waited for long
    goaway, why = connection_end(sock, conn, 1 if cut == "TimeoutError" else 5)
    return {"sent": sent, "cut": cut, "why": why, "goaway": goaway, "served_after": serve_check(port)}


def case_settings_flood(port, total, unread="no"):
    frame = SettingsFrame(0, settings={SettingsFrame.MAX_CONCURRENT_STREAMS: 100}).serialize()
    return flood(port, lambda: frame, int(total), unread == "unread")


def case_ping_flood(port, total, unread="no"):
    frame = PingFrame(0, opaque_data=b"12345678").serialize()
    return flood(port, lambda: frame, int(total), unread == "unread")


def case_continuation_flood(port, total):
    """A HEADERS frame without END_HEADERS, then CONTINUATION frames without end."""
    sock, conn = connect(port)
    first = HeadersFrame(1)
    first.data = conn.encoder.encode(base(port))
    frames = [first.serialize()]
    cont = ContinuationFrame(1)
    cont.data = b""
    piece = cont.serialize()
    sent = 0
    cut = None
    try:
        sock.sendall(frames[0])
        while sent < int(total):
            sock.sendall(piece * 1000)
            sent += 1000
    except OSError as e:
        cut = type(e).__name__
    goaway, why = connection_end(sock, conn)
    return {"sent": sent, "cut": cut, "why": why, "goaway": goaway, "served_after": serve_check(port)}


def case_empty_data(port, total):
    """A POST whose body is empty DATA frames without end."""
    sock, conn = connect(port)
    sid = 1
    conn.send_headers(sid, base(port, path="/h2/echo", method="POST"), end_stream=False)
    sock.sendall(conn.data_to_send())
    empty = DataFrame(sid)
    empty.data = b""
    piece = empty.serialize()
    sent = 0
    cut = None
    try:
        while sent < int(total):
            sock.sendall(piece * 100)
            sent += 100
    except OSError as e:
        cut = type(e).__name__
    goaway, why = connection_end(sock, conn)
    return {"sent": sent, "cut": cut, "why": why, "goaway": goaway, "served_after": serve_check(port)}


def case_streams(port, count):
    """Opens `count` streams whose bodies never come; reports how many the server refused (REFUSED_STREAM)."""
    sock, conn = connect(port, validate=False)
    out = bytearray()
    ids = []
    for i in range(int(count)):
        sid = 1 + 2 * i
        ids.append(sid)
        block = conn.encoder.encode(base(port, path="/h2/echo", method="POST"))
        frame = HeadersFrame(sid)
        frame.data = block
        frame.flags.add("END_HEADERS")
        out += frame.serialize()
    sock.sendall(bytes(out))
    # The library never saw these streams: the frames that come back are read raw
    refused = 0
    deadline = time.time() + 5
    buf = b""
    while time.time() < deadline:
        sock.settimeout(max(0.05, deadline - time.time()))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            break
        if not data:
            break
        buf += data
    i = 0
    goaway = None
    while i + 9 <= len(buf):
        length = int.from_bytes(buf[i:i + 3], "big")
        ftype = buf[i + 3]
        payload = buf[i + 9:i + 9 + length]
        if ftype == 0x3 and int.from_bytes(payload[:4], "big") == 7:
            refused += 1
        if ftype == 0x7:
            goaway = int.from_bytes(payload[4:8], "big")
        i += 9 + length
    sock.close()
    return {"refused": refused, "goaway": goaway, "served_after": serve_check(port)}


def case_zero_window(port, count, path):
    """Announces a window of 0 and asks `count` responses it never opens the window for, reading on (PINGs and all)
    until the server ends the connection; reports how long that took."""
    sock, conn = connect(port, settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    for i in range(int(count)):
        conn.send_headers(conn.get_next_available_stream_id(), base(port, path=path), end_stream=True)
    sock.sendall(conn.data_to_send())
    start = time.time()
    events, why = read_events(sock, conn, lambda ev: False, 30)
    sock.close()
    heads = sum(1 for e in events if isinstance(e, h2.events.ResponseReceived))
    goaway = [int(e.error_code) for e in events if isinstance(e, h2.events.ConnectionTerminated)]
    return {"heads": heads, "why": why, "seconds": round(time.time() - start, 1),
            "goaway": goaway[0] if goaway else None, "served_after": serve_check(port)}


def case_stalled(port, streams, path, ping, trickle, seconds):
    """Opens `streams` streams of `path` on a connection whose client keeps their windows shut (an initial window of 0),
    pinging every `ping` seconds and, if `trickle` > 0, opening each stream's window by that many bytes as often, for
    `seconds` or until the server ends the connection. Reports the answers begun, the streams the server reset (CANCEL
    and others) and when the first and last reset came, the DATA bytes received, and how and when the connection
    ended."""
    sock, conn = connect(port, settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    ids = []
    for _ in range(int(streams)):
        sid = conn.get_next_available_stream_id()
        ids.append(sid)
        conn.send_headers(sid, base(port, path=path), end_stream=True)
    sock.sendall(conn.data_to_send())
    start = time.time()
    end = start + float(seconds)
    every = float(ping)
    next_ping = start + every
    heads, cancels, others, data = 0, 0, 0, 0
    first_reset, last_reset, goaway, why = None, None, None, "timeout"
    while time.time() < end and why == "timeout":
        sock.settimeout(max(0.01, min(next_ping, end) - time.time()))
        try:
            chunk = sock.recv(65536)
            if not chunk:
                why = "closed"
                break
            events = conn.receive_data(chunk)
        except socket.timeout:
            events = []
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
            why = "reset"
            break
        except Exception as e:
            why = f"client-error:{type(e).__name__}"
            break
        for e in events:
            if isinstance(e, h2.events.ResponseReceived):
                heads += 1
            elif isinstance(e, h2.events.DataReceived):
                data += len(e.data)
            elif isinstance(e, h2.events.StreamReset):
                at = round(time.time() - start, 2)
                first_reset = first_reset if first_reset is not None else at
                last_reset = at
                if int(e.error_code) == 8:
                    cancels += 1
                else:
                    others += 1
            elif isinstance(e, h2.events.ConnectionTerminated):
                goaway = int(e.error_code)
                why = "goaway"
        if time.time() >= next_ping and why == "timeout":
            next_ping += every
            conn.ping(b"stalling")
            if int(trickle) > 0:
                for sid in ids:
                    try:
                        conn.increment_flow_control_window(int(trickle), stream_id=sid)
                    except Exception:  # a stream the server reset
                        pass
        try:
            out = conn.data_to_send()
            if out:
                sock.sendall(out)
        except OSError:
            why = "reset"
    seconds_taken = round(time.time() - start, 2)
    sock.close()
    return {"heads": heads, "cancels": cancels, "other_resets": others, "first_reset": first_reset,
            "last_reset": last_reset, "data": data, "goaway": goaway, "why": why, "seconds": seconds_taken,
            "served_after": serve_check(port)}


def case_provoked_resets(port, kind, count):
    """Streams the server must reset for the client's mistake, `count` of them one after another: HEADERS ending the
    stream while declaring `content-length: 5` (`length`), or DATA on a stream the client ended (`after-end`). Reports
    the resets received and how the connection ended: a server that counts the resets it makes ends it."""
    sock, conn = connect(port, validate=False)
    sent, resets, goaway, why = 0, 0, None, "timeout"

    def take(events):
        nonlocal resets, goaway
        for e in events:
            if isinstance(e, h2.events.StreamReset):
                resets += 1
            elif isinstance(e, h2.events.ConnectionTerminated):
                goaway = int(e.error_code)

    for _ in range(int(count)):
        # Streams the server has not reset yet still count as open: their resets are awaited, for 5 s at most
        waited, ended = time.time(), None
        while (goaway is None and ended is None and time.time() - waited < 5
               and conn.open_outbound_streams >= conn.remote_settings.max_concurrent_streams):
            events, read = read_events(sock, conn, lambda ev: False, 0.05)
            take(events)
            if read in ("closed", "reset"):
                ended = read
        if goaway is not None:
            why = "goaway"
            break
        if ended is not None:
            why = ended
            break
        if conn.open_outbound_streams >= conn.remote_settings.max_concurrent_streams:
            why = "streams never reset"
            break
        sid = conn.get_next_available_stream_id()
        if kind == "length":
            conn.send_headers(sid, base(port, path="/h2/echo", method="POST") + [("content-length", "5")], end_stream=True)
            frames = conn.data_to_send()
        else:
            conn.send_headers(sid, base(port, path="/h2/slow"), end_stream=True)
            frames = conn.data_to_send()
            late = DataFrame(sid)
            late.data = b"late"
            frames += late.serialize()
        try:
            sock.sendall(frames)
        except OSError:
            why = "reset"
            break
        sent += 1
        take(read_events(sock, conn, lambda ev: False, 0.001)[0])
        if goaway is not None:
            why = "goaway"
            break
    if why == "timeout":
        events, why = read_events(sock, conn, lambda ev: any(isinstance(e, h2.events.ConnectionTerminated) for e in ev), 3)
        resets += sum(1 for e in events if isinstance(e, h2.events.StreamReset))
        goaway = next((int(e.error_code) for e in events if isinstance(e, h2.events.ConnectionTerminated)), goaway)
    sock.close()
    return {"sent": sent, "resets": resets, "goaway": goaway, "why": why, "served_after": serve_check(port)}


def case_partial_preface(port, seconds):
    """Sends the first line of HTTP/2's preface and nothing more; reports whether, and when, the server closed the
    connection within `seconds`."""
    sock = socket.create_connection(("localhost", port), timeout=TIMEOUT)
    sock.sendall(b"PRI * HTTP/2.0\r\n")
    start = time.time()
    end = raw_end(sock, float(seconds))
    return {"end": end, "seconds": round(time.time() - start, 2)}


def case_header_trickle(port, mode, pieces, interval):
    """A header block sent a piece at a time, `interval` seconds apart, never ended: as CONTINUATION frames of one
    byte each (`continuation`), or as one HEADERS frame whose payload comes a byte at a time (`frame`). Reports how
    long the server took to end the connection."""
    sock, conn = connect(port)
    pieces, interval = int(pieces), float(interval)
    block = conn.encoder.encode(base(port, extra=[("x-pad", "p" * 64)]))
    if mode == "continuation":
        first = HeadersFrame(1)
        first.data = block[:1]
        frames = [first.serialize()]
        for i in range(1, pieces):
            cont = ContinuationFrame(1)
            cont.data = block[i:i + 1]
            frames.append(cont.serialize())
    else:
        whole = HeadersFrame(1)
        whole.data = block
        whole.flags.add("END_HEADERS")
        serialized = whole.serialize()
        frames = [serialized[:10]] + [serialized[10 + i:11 + i] for i in range(pieces - 1)]
    # The server's SETTINGS acknowledged first: nothing of the client library's may go out amid the block
    read_events(sock, conn, lambda ev: any(isinstance(e, h2.events.RemoteSettingsChanged) for e in ev), 5)
    ended = lambda ev: any(isinstance(e, h2.events.ConnectionTerminated) for e in ev)
    start = time.time()
    sent = 0
    events, why = [], "timeout"
    try:
        for frame in frames:
            sock.sendall(frame)
            sent += 1
            events, why = read_events(sock, conn, ended, interval, reply=False)
            if why != "timeout":
                break
        if why == "timeout":
            events, why = read_events(sock, conn, ended, 5, reply=False)
    except OSError as e:
        why = type(e).__name__
    seconds = round(time.time() - start, 1)
    sock.close()
    goaway = [int(e.error_code) for e in events if isinstance(e, h2.events.ConnectionTerminated)]
    return {"sent": sent, "why": why, "seconds": seconds, "goaway": goaway[0] if goaway else None,
            "served_after": serve_check(port)}


def case_split_preface(port):
    """A GET whose connection's first bytes (the preface among them) come a few at a time, as reads may cut them."""
    sock = socket.create_connection(("localhost", port), timeout=TIMEOUT)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
    conn = h2.connection.H2Connection(config=config)
    conn.initiate_connection()
    sid = conn.get_next_available_stream_id()
    conn.send_headers(sid, base(port), end_stream=True)
    data = conn.data_to_send()
    for i in range(0, 40, 3):
        sock.sendall(data[i:min(i + 3, 40)])
        time.sleep(0.02)
    sock.sendall(data[40:])
    events, why = read_events(sock, conn, stream_done(sid))
    sock.close()
    return outcome(events, sid, why)


CASES = {
    "get": case_get,
    "malformed": case_malformed,
    "length-mismatch": case_length_mismatch,
    "big-headers": case_big_headers,
    "early-answer": case_early_answer,
    "rapid-reset": case_rapid_reset,
    "settings-flood": case_settings_flood,
    "ping-flood": case_ping_flood,
    "continuation-flood": case_continuation_flood,
    "empty-data": case_empty_data,
    "streams": case_streams,
    "zero-window": case_zero_window,
    "header-trickle": case_header_trickle,
    "split-preface": case_split_preface,
    "stalled": case_stalled,
    "provoked-resets": case_provoked_resets,
    "partial-preface": case_partial_preface,
}

if __name__ == "__main__":
    name, port, *args = sys.argv[1:]
    if port.startswith("tls:"):
        TLS = True
        port = port[4:]
    result = CASES[name](int(port), *args)
    if result is not None:
        print(json.dumps(result), flush=True)
