package rapier.testkit

import rapier.*
import rapier.server.*

import java.nio.charset.StandardCharsets
import scala.concurrent.Future

/**
 * RFC 6455's framing rules, checked frame by frame with a raw client against echo endpoints: fragments joined, control
 * frames among them, every length encoding, pings and pongs, the close handshake, each protocol error closed with its
 * code, and no extension accepted. Every backend runs them through [[WebSocketTests]].
 */
trait WebSocketProtocolTests extends ServerTestSupport:
  import WebSocketFrames.*

  // How long a server may take to end the connection after its close: at once, or once its wait for the client's
  // close is over (pekko-http's: 3 s), which a loaded machine stretches past 4 s.
  private val ServerCloseWait = 8000

  protected val echo =
    endpoint.get.in("ws" / "echo").out(webSocketBody[String, String]).serverLogicSuccess(_ =>
      Future.successful(in => in)
    )
  private val binary = endpoint.get
    .in("ws" / "binary")
    .out(webSocketBody[Array[Byte], Array[Byte]])
    .serverLogicSuccess(_ => Future.successful(in => in))
  private val small = endpoint.get
    .in("ws" / "small")
    .out(webSocketBody[String, String].withMaxMessageSize(1024))
    .serverLogicSuccess(_ => Future.successful(in => in))

  /**
   * Where Autobahn's WebSocket cases run against this backend's server: the cases (by id, or a glob as `7.9.*`) its
   * WebSocket layer fails on its own, each with the reason (a declared case may pass). None: not run in this class
   * (the cases test the server's WebSocket layer, the same whatever the logic's style: they run in one class per
   * server).
   */
  def autobahnFailures: Option[Map[String, String]] = None

  /** Reads the server's close frame, checking its code; the frame, for its reason. */
  protected def closedWith(c: RawHttp, code: Int, clue: String = ""): Frame =
    val closing = readFrame(c)
    assertEquals((closing.opcode, closing.closeCode), (Close, code), clue)
    closing

  /** Sends a text message and reads it back. */
  protected def echoes(c: RawHttp, text: String): Unit =
    c.send(frame(Text, text))
    assertEquals(readFrame(c).text, text)

  /** A WebSocket opened on `path`, closed once `f` is done with it. */
  protected def connected[A](t: Target, path: String)(f: RawHttp => A): A =
    val c = open(t, path)
    try f(c)
    finally c.close()

  protected def open(t: Target, path: String): RawHttp =
    val c = t.raw()
    val r = c.send(handshake(path)).readResponse(head = true)
    assertEquals(r.status, 101, r.toString)
    c

  test(anyStyle("a message in fragments is joined, a ping among them answered with its payload")):
    withServer(echo, binary) { t =>
      connected(t, "/ws/echo") { c =>
        c.send(frame(Text, "Hel", fin = false))
        c.send(frame(Ping, "are you there"))
        c.send(frame(Continuation, "lo, ", fin = false))
        c.send(frame(Continuation, "world"))
        val pong = readFrame(c)
        assertEquals((pong.opcode, pong.text), (Pong, "are you there"))
        assertEquals(readFrame(c).text, "Hello, world")
      }
      val b = open(t, "/ws/binary")
      try
        val payload = Array.tabulate[Byte](100000)(i => (i * 31).toByte)
        b.send(frame(Binary, payload))
        val back = readFrame(b)
        assertEquals(back.opcode, Binary)
        assert(java.util.Arrays.equals(back.payload, payload))
      finally b.close()
    }

  test(anyStyle("protocol errors close the WebSocket with 1002")):
    val broken = List(
      "an unmasked frame" -> frame(Text, "hi", masked = false),
      "a reserved opcode" -> frame(3, "hi"),
      "a reserved bit" -> frame(Text, "hi", rsv = 0x40),
      "a fragmented ping" -> frame(Ping, "hi", fin = false),
      "a control frame over 125 bytes" -> frame(Ping, "x" * 126),
      "a continuation with nothing to continue" -> frame(Continuation, "hi"),
      "a reserved control opcode" -> frame(0xb, "hi"),
      "a new message before the last one's end" -> (frame(Text, "a", fin = false) ++ frame(Text, "b"))
    )
    withServer(echo) { t =>
      broken.zipWithIndex.foreach { case ((what, bytes), i) =>
        connected(t, "/ws/echo") { c =>
          c.send(bytes)
          closedWith(c, 1002, what)
          // A client answers a close with its own (RFC 6455 section 5.5.1); the first one doesn't, and is let go too
          if i > 0 then scala.util.Try(c.send(frame(Close, closePayload(1002, ""))))
          assert(c.closedByServer(ServerCloseWait), what)
        }
      }
    }

  test(anyStyle(
    "bad messages close the WebSocket with their code: invalid UTF-8 1007, binary for text 1003, too long 1009"
  )):
    withServer(small) { t =>
      def refused(what: String, code: Int, frames: Array[Byte]*): Unit =
        connected(t, "/ws/small") { c =>
          frames.foreach(c.send)
          closedWith(c, code, what)
        }
      refused("invalid UTF-8", 1007, frame(Text, Array[Byte](0x68, 0xc3.toByte, 0x28)))
      refused("a binary message", 1003, frame(Binary, "hi"))
      refused("one frame over the limit", 1009, frame(Text, "x" * 2000))
      refused("fragments over the limit", 1009, frame(Text, "x" * 800, fin = false), frame(Continuation, "x" * 800))
      connected(t, "/ws/small") { c =>
        c.send(frame(Text, "x" * 1024))
        assertEquals(readFrame(c).text.length, 1024, "a message of the limit's length is read")
      }
    }

  test(anyStyle("messages at each edge of the frame length's encodings are echoed, empty ones too")):
    withServer(echo, binary) { t =>
      val lengths = List(0, 1, 125, 126, 127, 65535, 65536)
      connected(t, "/ws/echo") { c =>
        lengths.foreach(n => echoes(c, "*" * n))
        // One message in frames of 1,300 bytes
        val long = "0123456789" * 6554
        long.grouped(1300).toList.zipWithIndex.foreach { (part, i) =>
          c.send(frame(if i == 0 then Text else Continuation, part, fin = (i + 1) * 1300 >= long.length))
        }
        assertEquals(readFrame(c).text, long)
      }
      connected(t, "/ws/binary") { c =>
        lengths.foreach { n =>
          val payload = Array.tabulate[Byte](n)(_.toByte)
          c.send(frame(Binary, payload))
          val back = readFrame(c)
          assertEquals(back.opcode, Binary)
          assert(java.util.Arrays.equals(back.payload, payload), s"$n bytes")
        }
      }
    }

  test(anyStyle("pings are answered with their payload, in order; a pong no one asked for is ignored")):
    withServer(echo) { t =>
      connected(t, "/ws/echo") { c =>
        val longest = Array.tabulate[Byte](125)(i => (255 - i).toByte)
        c.send(frame(Ping, longest))
        val pong = readFrame(c)
        assertEquals(pong.opcode, Pong)
        assert(java.util.Arrays.equals(pong.payload, longest), "a 125-byte binary payload")
        c.send(frame(Pong, "unasked"))
        c.send(frame(Ping, ""))
        val empty = readFrame(c)
        assertEquals((empty.opcode, empty.payload.length), (Pong, 0), "an empty ping's pong, and none for the pong")
        for i <- 1 to 10 do c.send(frame(Ping, s"ping $i"))
        for i <- 1 to 10 do assertEquals(readFrame(c).text, s"ping $i")
        c.send(frame(Text, "frag", fin = false))
        c.send(frame(Pong, "unasked"))
        c.send(frame(Continuation, "ment"))
        assertEquals(readFrame(c).text, "fragment", "a pong among fragments is ignored")
      }
    }

  test(anyStyle("a character split between fragments, a byte a frame, is joined whole")):
    withServer(echo) { t =>
      val text = "Hello-\u00b5@\u00df\u00f6\u00e4\u00fc\u00e0\u00e1-UTF-8!! \u03ba\u1f79\u03c3\u03bc\u03b5 \ud83d\ude00"
      val bytes = text.getBytes(StandardCharsets.UTF_8)
      connected(t, "/ws/echo") { c =>
        // A byte a frame: every character of two bytes or more is split
        bytes.indices.foreach { i =>
          c.send(frame(if i == 0 then Text else Continuation, Array(bytes(i)), fin = i == bytes.length - 1))
        }
        assertEquals(readFrame(c).text, text)
      }
    }

  test(anyStyle("invalid UTF-8 in a fragment is refused with 1007 at that fragment, before the message's end")):
    withServer(echo) { t =>
      connected(t, "/ws/echo") { c =>
        // \xed\xa0\x80 is a surrogate's encoding, which UTF-8 forbids
        c.send(frame(Text, "valid", fin = false))
        c.send(frame(Continuation, Array[Byte](0xed.toByte, 0xa0.toByte, 0x80.toByte), fin = false))
        closedWith(c, 1007)
      }
    }

  /** Sends `payload` as a close, then a message, and checks the server's close is one of `codes` and nothing more. */
  private def closeAnswered(t: Target, what: String, payload: Array[Byte], codes: Int*): Unit =
    connected(t, "/ws/echo") { c =>
      c.send(frame(Close, payload))
      c.send(frame(Text, "after the close"))
      val closing = readFrame(c)
      assertEquals(closing.opcode, Close, what)
      assert(codes.contains(closing.closeCode), s"$what: ${closing.closeCode}, not one of ${codes.mkString(", ")}")
      assert(c.closedByServer(ServerCloseWait), s"$what: the connection ends after the close")
    }

  test(anyStyle("a close is answered with its code, or with 1000, and nothing after it is read")):
    withServer(echo) { t =>
      closeAnswered(t, "a close without a code", Array.emptyByteArray, -1, 1000)
      closeAnswered(t, "a close with a code and a 123-byte reason", closePayload(1000, "r" * 123), 1000)
      // Not 1012-1014, registered after RFC 6455 and taken by some servers, refused by others; nor 5000 and over,
      // which the RFC leaves undefined
      for code <- List(1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999) do
        closeAnswered(t, s"a close with the valid code $code", closePayload(code, "bye"), code, 1000)
    }

  test(
    anyStyle("a close with a code RFC 6455 forbids, a one-byte payload or a reason that isn't UTF-8 is answered 1002")
  ):
    withServer(echo) { t =>
      for code <- List(0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999) do
        closeAnswered(t, s"a close with the invalid code $code", closePayload(code, ""), 1002)
      closeAnswered(t, "a close with a one-byte payload", Array[Byte](0x03), 1002)
      closeAnswered(t, "a close with a 124-byte reason", closePayload(1000, "r" * 124), 1002)
      closeAnswered(
        t,
        "a close whose reason isn't UTF-8",
        closePayload(1000, "") ++ Array[Byte](0xce.toByte, 0xba.toByte, 0xed.toByte, 0xa0.toByte, 0x80.toByte),
        1002,
        1007
      )
    }

  test(
    anyStyle("an offered permessage-deflate is declined: the answer names no extension, and messages go uncompressed")
  ):
    withServer(echo) { t =>
      val c = t.raw()
      try
        val offer = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
        val r = c.send(handshake("/ws/echo", extra = offer)).readResponse(head = true)
        assertEquals(r.status, 101, r.toString)
        assertEquals(r.header("Sec-WebSocket-Extensions"), None, r.toString)
        val text = "compress me " * 200
        c.send(frame(Text, text))
        val back = readFrame(c)
        assertEquals((back.opcode, back.rsv, back.text), (Text, 0, text), "no reserved bit: not compressed")
      finally c.close()
    }

  test(
    anyStyle("pings sent by a client that never reads the pongs: the server stops reading, and serves other clients")
  ):
    withServer(echo) { t =>
      val greedy = open(t, "/ws/echo")
      try
        val pings = Array.fill(1000)(frame(Ping, "p" * 125)).flatten
        // Sent until the server stops reading them: its pongs are not read, and it sends no more than the socket takes.
        @volatile var sent = 0L
        val sending = Future {
          while sent < (256L << 20) do
            greedy.send(pings)
            sent += pings.length
        }(using scala.concurrent.ExecutionContext.global)
        Thread.sleep(2000)
        val before = sent
        Thread.sleep(1000)
        assert(!sending.isCompleted, s"$sent bytes of pings were taken by a server whose pongs go unread")
        assert(sent < (128L << 20), s"$sent bytes of pings were taken by a server whose pongs go unread")
        // Stopped, not slowed: a server reading on takes tens of MiB a second
        assert(sent - before < (4L << 20), s"${(sent - before) >> 20} MiB of pings taken in the third second")
        connected(t, "/ws/echo")(echoes(_, "still here"))
      finally greedy.close()
    }

  test(anyStyle(
    "messages in 1-byte fragments are joined, and fragments never finished hold their bytes, not an object each"
  )):
    withServer(echo) { t =>
      val long = "0123456789abcdef" * 1024
      connected(t, "/ws/echo") { c =>
        val frames = java.io.ByteArrayOutputStream()
        long.zipWithIndex.foreach { (ch, i) =>
          frames.write(frame(if i == 0 then Text else Continuation, ch.toString, fin = i == long.length - 1))
        }
        c.send(frames.toByteArray)
        assertEquals(readFrame(c).text, long)
      }
      val before = RetainedHeap.now()
      val fragments = 50000
      val more = frame(Continuation, "x", fin = false)
      val unfinished = (1 to 10).map { _ =>
        val c = open(t, "/ws/echo")
        // A ping after them: its pong says the server has read them all
        c.send(frame(Text, "x", fin = false) ++ Array.fill(fragments - 1)(more).flatten ++ frame(Ping, "read?"))
        assertEquals(readFrame(c).opcode, Pong)
        c
      }
      try
        // Half a million fragments begun: held as the bytes joined, never as an array per fragment (24 bytes each),
        // once the server has joined what it read
        val bound = 10L * fragments * 16
        val deadline = System.nanoTime + 10_000_000_000L
        var grown = RetainedHeap.now() - before
        while grown >= bound && System.nanoTime < deadline do
          Thread.sleep(200)
          grown = RetainedHeap.now() - before
        assert(grown < bound, s"the heap grew by ${grown >> 10} KiB")
        connected(t, "/ws/echo")(echoes(_, "served meanwhile"))
      finally unfinished.foreach(_.close())
    }

  test(anyStyle("WebSockets open for same-origin pages, listed origins and clients with no Origin; others are a 403")):
    val listed = endpoint.get
      .in("ws" / "listed")
      .out(webSocketBody[String, String].withAllowedOrigins("https://app.example.com"))
      .serverLogicSuccess(_ => Future.successful(in => in))
    withServer(echo, listed) { t =>
      def status(path: String, origin: String): Int =
        val c = t.raw()
        try c.send(handshake(path, extra = s"Origin: $origin\r\n")).readResponse(head = true).status
        finally c.close()
      assertEquals(status("/ws/echo", "https://evil.example"), 403)
      assertEquals(status("/ws/echo", "null"), 403, "a sandboxed page's origin")
      assertEquals(status("/ws/echo", "http://x"), 101, "the Host the handshake names: the server's own page")
      assertEquals(status("/ws/echo", "http://x:80"), 101, "the same, with its default port")
      assertEquals(status("/ws/listed", "https://app.example.com"), 101)
      assertEquals(status("/ws/listed", "http://x"), 403, "not on the list")
      connected(t, "/ws/listed")(echoes(_, "no Origin: not a browser"))
    }

  test(anyStyle("Autobahn's cases 1-7, 9 and 10 find nothing but binary messages refused by a text endpoint")):
    // 16 MiB: the largest message of case 9
    val large = endpoint.get
      .in("ws" / "large")
      .out(webSocketBody[String, String].withMaxMessageSize(16 << 20))
      .serverLogicSuccess(_ => Future.successful(in => in))
    assume(autobahnFailures.isDefined, s"Autobahn's cases run in another class of ${server.name}")
    val declared = autobahnFailures.get
    withServer(large) { t =>
      val before = OpenFiles.sockets()
      val ran =
        WebSocketProtocolTests.autobahn(s"ws://127.0.0.1:${t.port}/ws/large", "1.*,2.*,3.*,4.*,5.*,6.*,7.*,9.*,10.*")
      assert(ran.size >= 300, s"${ran.size} cases ran")
      // Autobahn's verdicts, and strict ones on UTF-8 (6.x): invalid UTF-8 is refused at the byte that can't continue it
      val failed =
        ran.filter(c => !(c.passed && (c.strict || !c.id.startsWith("6."))) && !(c.binary && c.closeCode == 1003))
      val undeclared = failed.filterNot(c => declared.keys.exists(c.declaredBy))
      assert(undeclared.isEmpty, undeclared.mkString("Autobahn:\n", "\n", ""))
      // Every connection closed in the end, those refused for a broken rule too
      eventually(OpenFiles.sockets() <= before, s"${OpenFiles.sockets() - before} sockets more than before")
    }

object WebSocketProtocolTests:
  /** An Autobahn case as it ran: its verdicts, the server's close code, and whether it sent a binary message. */
  final case class AutobahnCase(
      id: String,
      passed: Boolean,
      behavior: String,
      closing: String,
      closeCode: Int,
      binary: Boolean,
      words: String
  ):
    private val fine = Set("OK", "INFORMATIONAL")
    def strict: Boolean = passed && fine(behavior) && fine(closing)
    def declaredBy(pattern: String): Boolean =
      if pattern.endsWith("*") then id.startsWith(pattern.dropRight(1)) else id == pattern
    override def toString: String = s"$id: $behavior, close $closing (code $closeCode): $words"

  private lazy val script: java.nio.file.Path =
    val file = java.nio.file.Files.createTempFile("rapier-autobahn", ".py")
    file.toFile.deleteOnExit()
    val in = getClass.getResourceAsStream("/rapier-ws/autobahn.py")
    try java.nio.file.Files.write(file, in.readAllBytes())
    finally in.close()
    file

  /**
   * Runs Autobahn's `cases` (comma-separated ids or globs) against the WebSocket at `url` with kosoku, a runner of
   * Autobahn's own case files (`pip install kosoku==0.1.0`): each case as it ran.
   */
  def autobahn(url: String, cases: String): List[AutobahnCase] =
    val process = ProcessBuilder("python3", script.toString, url, cases).redirectErrorStream(true).start()
    process.getOutputStream.close()
    val output = Future(String(process.getInputStream.readAllBytes(), StandardCharsets.UTF_8))(using
      scala.concurrent.ExecutionContext.global
    )
    if !process.waitFor(900, java.util.concurrent.TimeUnit.SECONDS) then
      process.destroyForcibly()
      throw AssertionError("Autobahn's cases ran past 900 s")
    val lines = scala.concurrent.Await.result(output, scala.concurrent.duration.Duration(5, "s")).linesIterator.toList
    if !lines.lastOption.exists(_.startsWith("ran ")) then
      throw AssertionError(lines.mkString("Autobahn's runner failed (is kosoku installed?):\n", "\n", ""))
    lines.map(_.split('\t')).collect { case Array(id, passed, behavior, closing, code, binary, words) =>
      AutobahnCase(id, passed == "true", behavior, closing, code.toIntOption.getOrElse(-1), binary == "true", words)
    }
