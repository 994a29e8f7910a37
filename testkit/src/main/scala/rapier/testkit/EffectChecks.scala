package rapier.testkit

import java.util.concurrent.atomic.{AtomicBoolean, AtomicReference}
import java.util.zip.CRC32
import scala.jdk.CollectionConverters.*

/**
 * What an effect module's own tests check from the client's side, whatever effect the logic is written in: each module
 * (cats-effect, ZIO) serves the endpoints a check names in its own effect, and the check reads the answers over a raw
 * connection. One place for what the server must do, so that the modules' tests differ only in how their logic says it.
 */
trait EffectChecks extends ServerTestSupport:
  import WebSocketFrames.{Close, Continuation, Ping, Pong, Text, closePayload, frame, handshake, readFrame}

  /** The CRC-32 of `bytes`, as the counting endpoints answer it. */
  def crc(bytes: Array[Byte]): Long =
    val c = CRC32()
    c.update(bytes)
    c.getValue

  /**
   * `path` counts a streamed request body and answers `"{bytes} {crc}"`: read whole and in order, and nothing held once
   * answered.
   */
  def checkStreamedUpload(t: Target, path: String): Unit =
    val bytes = Array.tabulate[Byte](5 * 1024 * 1024 + 7)(i => (i * 13 % 251).toByte)
    assertEquals(t.post(path, bytes).body, s"${bytes.length} ${crc(bytes)}")
    assertEquals(t.post(path, Array.emptyByteArray).body, s"0 ${crc(Array.emptyByteArray)}")
    eventually(t.bodyBytesHeld == 0, "nothing is held once the requests are answered")

  /**
   * `/numbers?n=` streams the lines `0` to `n - 1`, chunked, and `/echo` a streamed request body back as a streamed
   * response.
   */
  def checkStreamedResponses(t: Target): Unit =
    val bytes = Array.tabulate[Byte](1024 * 1024)(i => (i % 241).toByte)
    val r = t.rawExchange("GET /numbers?n=1000 HTTP/1.1\r\nHost: x\r\n\r\n")
    assertEquals(r.header("Transfer-Encoding"), Some("chunked"))
    assertEquals(r.body, (0 until 1000).map(i => s"$i\n").mkString)
    assert(java.util.Arrays.equals(t.post("/echo", bytes).bytes, bytes), "the echo differs from what was sent")

  /** `path` sends `abc` and then fails its stream: the response is cut, its connection closed. */
  def checkCutResponse(t: Target, path: String): Unit =
    val c = t.raw()
    try
      c.send(s"GET $path HTTP/1.1\r\nHost: x\r\n\r\n")
      val head = String(c.readBytes(512), "ISO-8859-1")
      assert(head.startsWith("HTTP/1.1 200") || head.startsWith("HTTP/1.1 500"), head)
      assert(c.closedByServer(3000), "a cut body closes its connection")
    finally c.close()

  /** `path` streams without end: a client gone after 256 KiB stops the stream and runs its finalizer (`finalized`). */
  def checkEndlessResponseStops(t: Target, path: String, finalized: AtomicBoolean): Unit =
    val c = t.raw()
    c.send(s"GET $path HTTP/1.1\r\nHost: x\r\n\r\n")
    assert(c.readBytes(256 * 1024).length == 256 * 1024)
    c.close()
    eventually(finalized.get, "the stream's finalizer ran")

  /** `path` sets `started` and never answers: its client going away ends its logic (`ended`). */
  def checkClientGoneEndsLogic(t: Target, path: String, started: AtomicBoolean, ended: AtomicBoolean): Unit =
    val c = t.raw()
    c.send(s"GET $path HTTP/1.1\r\nHost: x\r\n\r\n")
    eventually(started.get, "the logic started")
    c.close()
    eventually(ended.get, "the logic's fiber was stopped")
    assertEquals(t.get("/nowhere").status, 404)

  /**
   * `path` takes its body into a file, records the file in `saved` and never answers: its client going away stops the
   * logic, and the file is deleted with it.
   */
  def checkClientGoneDeletesUpload(t: Target, path: String, saved: AtomicReference[java.nio.file.Path | Null]): Unit =
    val c = t.raw()
    c.send(s"POST $path HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
    eventually(saved.get != null, "the logic has the upload's file")
    val file = saved.get.nn
    assert(java.nio.file.Files.exists(file), file.toString)
    c.close()
    eventually(!java.nio.file.Files.exists(file), "the upload's file is deleted once its client is gone")

  /** `/mistake` blocks its thread for 300 ms by mistake: `/quick` is still answered meanwhile. */
  def checkBlockingMistake(t: Target): Unit =
    val slow = new Thread(() => assertEquals(t.get("/mistake").body, "done"))
    slow.start()
    assertEquals(t.get("/quick").body, "quick")
    slow.join(10000)
    assert(!slow.isAlive, "the blocking request was answered")

  /** `/slow` sets `started` then answers `finished` 300 ms later: a stop begun meanwhile lets it finish. */
  def checkGracefulStop(running: RunningServer, started: AtomicBoolean): Unit =
    val answer = AtomicReference[String]("none")
    val client = new Thread(() => answer.set(TestClient(running.port).get("/slow").body))
    try
      client.start()
      eventually(started.get, "the request is in flight")
    finally running.stop()
    client.join(10000)
    assertEquals(answer.get, "finished")

  /**
   * `/stuck` sets `started` and never answers, its fiber's finalizer setting `ended` some time after it is stopped:
   * `running`'s stop, past its shutdown timeout, stops the fiber and returns once that finalizer has run.
   */
  def checkStopEndsStuckLogic(running: RunningServer, started: AtomicBoolean, ended: AtomicBoolean): Unit =
    val client = new Thread(() =>
      try TestClient(running.port).get("/stuck").status
      catch case _: java.io.IOException => 0
      ()
    )
    client.start()
    eventually(started.get, "the request is in flight")
    running.stop()
    assert(ended.get, "the stop returned before the stopped fiber's finalizer had run")
    client.join(10000)

  /**
   * `/sse` sends the event `first`, nothing for a second, then `second` with id 2, with a keep-alive of 100 ms: the
   * events come in order, and a comment goes out between them. Comments may come anywhere else too (a tick can beat
   * the first event on a loaded machine): they are what keep-alive is.
   */
  def checkSseKeepAlive(t: Target): Unit =
    val r = t.get("/sse")
    assertEquals(r.header("Content-Type"), Some("text/event-stream"))
    assertEquals(r.header("Cache-Control"), Some("no-cache"))
    assertEquals(r.body.replace(":\n\n", ""), "data: first\n\nid: 2\ndata: second\n\n")
    val first = r.body.indexOf("data: first\n\n")
    val second = r.body.indexOf("id: 2\ndata: second\n\n")
    assert(r.body.substring(first, second).contains(":\n\n"), r.body)

  /** A WebSocket opened on `/ws/{path}`. */
  def openWebSocket(t: Target, path: String): RawHttp =
    val c = t.raw()
    assertEquals(c.send(handshake(s"/ws/$path")).readResponse(head = true).status, 101)
    c

  /** The next frame is a close with `code`. */
  def closedWith(c: RawHttp, code: Int): Unit =
    val f = readFrame(c)
    assertEquals((f.opcode, f.closeCode), (Close, code))

  /** On a new WebSocket to `path`: a message answered as `answered` says, then one that closes it with `code`. */
  def answersThenCloses(t: Target, path: String, answered: (String, String), bad: String, code: Int): Unit =
    val c = openWebSocket(t, path)
    try
      c.send(frame(Text, answered(0)))
      assertEquals(readFrame(c).text, answered(1))
      c.send(frame(Text, bad))
      closedWith(c, code)
    finally c.close()

  /** `/ws/upper` answers five messages in capitals, in order, then its stream ends: 1000, and the connection ends. */
  def checkFiveInCapitals(t: Target): Unit =
    val c = openWebSocket(t, "upper")
    try
      for i <- 1 to 5 do c.send(frame(Text, s"message $i"))
      for i <- 1 to 5 do assertEquals(readFrame(c).text, s"MESSAGE $i")
      closedWith(c, 1000)
      c.send(frame(Close, closePayload(1000, "")))
      assert(c.closedByServer(2000))
    finally c.close()

  /** `/ws/first` answers its first message and drops its input: a ping after it is still answered. */
  def checkDroppedInputKeepsPings(t: Target): Unit =
    val c = openWebSocket(t, "first")
    try
      c.send(frame(Text, "one"))
      assertEquals(readFrame(c).text, "first: one")
      c.send(frame(Text, "dropped"))
      c.send(frame(Ping, "still there?"))
      val pong = readFrame(c)
      assertEquals((pong.opcode, pong.text), (Pong, "still there?"))
    finally c.close()

  /**
   * `/ws/slow` takes each message slowly into `heard` and sends nothing: the five a client sends just before its close
   * all reach it, in order (RFC 6455 §5.5.1), and its input then ends (`ended`).
   */
  def checkMessagesBeforeClose(t: Target, heard: java.util.Queue[String], ended: AtomicBoolean): Unit =
    val c = openWebSocket(t, "slow")
    try
      val said = (1 to 5).map(i => s"message $i").toList
      c.send(said.map(frame(Text, _)).reduce(_ ++ _) ++ frame(Close, closePayload(1000, "bye")))
      closedWith(c, 1000)
      eventually(ended.get, "the pipe's input ends after the messages")
      assertEquals(heard.asScala.toList, said)
    finally c.close()

  /** `/ws/held` echoes and runs its finalizer (`finalized`) when its client goes away. */
  def checkClientGoneEndsPipe(t: Target, finalized: AtomicBoolean): Unit =
    val c = openWebSocket(t, "held")
    c.send(frame(Text, "hello"))
    assertEquals(readFrame(c).text, "hello")
    c.close()
    eventually(finalized.get, "the pipe's finalizer ran once its client went away")

  /**
   * `/ws/small` echoes messages of at most 16 bytes: fragments are joined, a ping among them answered, and a longer
   * message closes with 1009, its pipe ended (`finalized`), what follows read and dropped until the client's close.
   */
  def checkFragmentsAndLimit(t: Target, finalized: AtomicBoolean): Unit =
    val c = openWebSocket(t, "small")
    try
      c.send(frame(Text, "frag", fin = false))
      c.send(frame(Ping, "between"))
      c.send(frame(Continuation, "ments"))
      val pong = readFrame(c)
      assertEquals((pong.opcode, pong.text), (Pong, "between"))
      assertEquals(readFrame(c).text, "fragments")
      c.send(frame(Text, "0123456789", fin = false))
      c.send(frame(Continuation, "0123456789"))
      closedWith(c, 1009)
      eventually(finalized.get, "the pipe is interrupted, its finalizers run")
      c.send(frame(Text, "after the close"))
      c.send(frame(Close, closePayload(1000, "")))
      assert(c.closedByServer(2000), "the connection ends after the client's close")
    finally c.close()

  /** `/ws/echo` on `running`: the server's stop closes it with 1001, and the stop completes. */
  def checkStopClosesWebSocket(running: RunningServer): Unit =
    val c = openWebSocket(Target(running), "echo")
    try
      c.send(frame(Text, "hi"))
      assertEquals(readFrame(c).text, "hi")
      val stopping = new Thread(() => running.stop())
      stopping.start()
      closedWith(c, 1001)
      c.send(frame(Close, closePayload(1001, "")))
      assert(c.closedByServer(2000), "the connection ends after the client's close")
      stopping.join(10000)
      assert(!stopping.isAlive, "the server stopped")
    finally c.close()
