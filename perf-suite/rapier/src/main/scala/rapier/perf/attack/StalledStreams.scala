package rapier.perf.attack

import rapier.perf.common.{PerfApi, TlsFiles}

import java.io.{InputStream, OutputStream}
import java.net.{InetSocketAddress, Socket, SocketTimeoutException}
import java.nio.charset.StandardCharsets
import javax.net.ssl.SSLSocket
import scala.util.Try

/**
 * [[Hostile.StalledH2]]'s connections: each speaks HTTP/2 (h2c by prior knowledge, or h2 by ALPN over TLS), shuts its
 * window (an initial window of 0), opens `streams` streams of the large static file, and pings every 2 s, reading
 * and dropping what the server sends; a connection the server closes is opened again, as an attacker would. One
 * thread each: what they hold is the server's to bound, not theirs to go fast.
 */
final class StalledStreams(address: InetSocketAddress, tls: Boolean, count: Int, streams: Int = 100):
  @volatile private var running = true
  private val openedCount = java.util.concurrent.atomic.AtomicLong()
  private val closedCount = java.util.concurrent.atomic.AtomicLong()
  private val threads = List.tabulate(count)(i => Thread(() => run(), s"perf-stalled-$i"))

  def opened: Long = openedCount.get
  def closedByServer: Long = closedCount.get

  def start(): Unit = threads.foreach { t =>
    t.setDaemon(true)
    t.start()
  }

  def stop(): Unit =
    running = false
    threads.foreach(_.join(5000))

  private def run(): Unit =
    while running do
      Try(connect()).toOption match
        case None => Thread.sleep(100)
        case Some(socket) =>
          openedCount.incrementAndGet()
          try
            hold(socket.getInputStream, socket.getOutputStream)
            if running then closedCount.incrementAndGet()
          catch case _: java.io.IOException => if running then closedCount.incrementAndGet()
          finally Try(socket.close())

  private def connect(): Socket =
    val plain = Socket()
    plain.connect(address, 5000)
    plain.setSoTimeout(StalledStreams.PingMillis)
    if !tls then plain
    else
      val secure = TlsFiles.trusting.getSocketFactory
        .createSocket(plain, address.getHostString, address.getPort, true)
        .asInstanceOf[SSLSocket]
      val parameters = secure.getSSLParameters
      parameters.setApplicationProtocols(Array("h2"))
      secure.setSSLParameters(parameters)
      secure.startHandshake()
      secure

  // The opening, then a PING every 2 s until the server ends the connection (or the attack does)
  private def hold(in: InputStream, out: OutputStream): Unit =
    out.write(StalledStreams.opening(streams, tls))
    out.flush()
    val sink = new Array[Byte](65536)
    var nextPing = System.nanoTime() + StalledStreams.PingMillis * 1_000_000L
    var open = true
    while running && open do
      try open = in.read(sink) >= 0
      catch case _: SocketTimeoutException => ()
      if open && System.nanoTime() >= nextPing then
        out.write(StalledStreams.Ping)
        out.flush()
        nextPing = System.nanoTime() + StalledStreams.PingMillis * 1_000_000L

private object StalledStreams:
  private val PingMillis = 2000
  private val Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII)
  private val Ping = frame(6, 0, 0, "stalling".getBytes(StandardCharsets.US_ASCII))

  /**
   * The client's preface, its SETTINGS with an initial window of 0, an acknowledgement of the server's, and `streams`
   * GETs of the large file, each a HEADERS frame ending its stream. The header block is HPACK without state: static
   * indexes for the method and scheme, literal fields not indexed for the path and authority.
   */
  def opening(streams: Int, tls: Boolean): Array[Byte] =
    val path = s"/static/${PerfApi.StaticLarge}".getBytes(StandardCharsets.US_ASCII)
    val block = Array[Byte](0x82.toByte, (if tls then 0x87 else 0x86).toByte, 0x04, path.length.toByte) ++ path ++
      Array[Byte](0x01, 0x01, 'x')
    val settings = frame(4, 0, 0, Array[Byte](0, 4, 0, 0, 0, 0))
    val acknowledged = frame(4, 1, 0, Array.emptyByteArray)
    val heads = (0 until streams).flatMap(i => frame(1, 0x5, 1 + 2 * i, block))
    Preface ++ settings ++ acknowledged ++ heads

  private def frame(kind: Int, flags: Int, stream: Int, payload: Array[Byte]): Array[Byte] =
    val head = Array[Byte](
      (payload.length >>> 16).toByte,
      (payload.length >>> 8).toByte,
      payload.length.toByte,
      kind.toByte,
      flags.toByte,
      (stream >>> 24).toByte,
      (stream >>> 16).toByte,
      (stream >>> 8).toByte,
      stream.toByte
    )
    head ++ payload
