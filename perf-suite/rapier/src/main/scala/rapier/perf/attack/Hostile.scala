package rapier.perf.attack

import rapier.perf.common.PerfApi

import java.net.InetSocketAddress
import java.nio.ByteBuffer
import java.nio.channels.SocketChannel
import java.nio.charset.StandardCharsets
import scala.util.Try

/**
 * One kind of hostile client: what it sends when it connects, and each tick after. None reads what it is answered
 * except to notice that the server closed it (every kind but [[Hostile.NeverRead]], which reads nothing at all).
 */
enum Hostile(
    val description: String,
    val reads: Boolean,
    val reconnects: Boolean = false,
    val http2: Boolean = false
):
  /** A POST that announces a body at the servers' limit and sends one byte of it. */
  case Announced extends Hostile(s"a POST announcing ${PerfApi.MaxBodySize} bytes, sending one", true)

  /** A head sent a field at a time, never ended (slowloris). */
  case Slowloris extends Hostile("a head trickled, one field per tick, never ended", true)

  /** A chunked body sent in 1-byte chunks, one per tick. */
  case Chunks extends Hostile("a chunked POST trickled in 1-byte chunks", true)

  /** Pipelined GETs written as long as the server takes them, their answers never read. */
  case NeverRead extends Hostile("pipelined GETs whose answers are never read", false)

  /** A WebSocket sending pings as long as the server takes them, its pongs never read. */
  case Pings extends Hostile("a WebSocket's pings whose pongs are never read", false)

  /** A WebSocket text message sent in 1-byte fragments, never finished. */
  case Fragments extends Hostile("a WebSocket message in 1-byte fragments, never finished", true)

  /** A streamed upload that announces 1 MiB, sends 64 KiB and goes away, again every tick. */
  case Cancelled extends Hostile("an upload of 1 MiB cut after 64 KiB, again every tick", true, reconnects = true)

  /** HTTP/2 with its window shut: 100 streams of the large file, a PING every 2 s ([[StalledStreams]]). */
  case StalledH2
      extends Hostile("HTTP/2, its window shut, 100 streams of a 5 MB file, a PING every 2 s", true, http2 = true)

  def opening: Array[Byte] = ascii(this match
    case StalledH2 => "" // StalledStreams' own
    case Announced =>
      s"POST /pathBytes0 HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n" +
        s"Content-Length: ${PerfApi.MaxBodySize}\r\n\r\nx"
    case Slowloris => "GET /path0/4 HTTP/1.1\r\nHost: x\r\n"
    case Chunks =>
      "POST /pathBytes0 HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    case NeverRead => ""
    case Pings => Hostile.Handshake
    case Fragments => Hostile.Handshake + "\u0001\u0081\u0000\u0000\u0000\u0000a"
    case Cancelled =>
      "POST /pathStream0 HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n" +
        s"Content-Length: ${1 << 20}\r\n\r\n" + "x" * 65536)

  def tick: Array[Byte] = this match
    case Announced => Array.emptyByteArray
    case Slowloris => Hostile.Field
    case Chunks => Hostile.OneByteChunk
    case NeverRead => Hostile.Gets
    case Pings => Hostile.PingFrames
    case Fragments => Hostile.Continuation
    case Cancelled | StalledH2 => Array.emptyByteArray

  private def ascii(s: String) = s.getBytes(StandardCharsets.ISO_8859_1)

object Hostile:
  private val Field = "X-Slow: 1\r\n".getBytes(StandardCharsets.US_ASCII)
  private val OneByteChunk = "1\r\na\r\n".getBytes(StandardCharsets.US_ASCII)
  private val Handshake = "GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
  // Client frames are masked (RFC 6455 §5.3); a zero mask leaves the payload as it is.
  private val PingFrames =
    Array.fill(16)(Array[Byte](0x89.toByte, 0xfd.toByte, 0, 0, 0, 0) ++ Array.fill(125)(0.toByte)).flatten
  private val Continuation = Array[Byte](0x00, 0x81.toByte, 0, 0, 0, 0, 'a')
  private val Gets = ("GET /path0/4 HTTP/1.1\r\nHost: x\r\n\r\n" * 64).getBytes(StandardCharsets.US_ASCII)

  def parse(names: String): Either[String, List[Hostile]] =
    val all = names.split(',').toList.map(_.trim).filter(_.nonEmpty)
    val unknown = all.filterNot(n => values.exists(_.toString.equalsIgnoreCase(n)))
    if unknown.nonEmpty then Left(s"unknown hostile kind(s) ${unknown.mkString(", ")}: ${values.mkString(", ")}")
    else Right(all.flatMap(n => values.find(_.toString.equalsIgnoreCase(n))))

/**
 * `count` connections of each `kind` to `address`, kept open by one thread: every tick (100 ms) each sends its next
 * bytes, without blocking; one the server closed is opened again, as an attacker would. Counts what it opened. The
 * HTTP/2 kinds are [[StalledStreams]]'.
 */
final class Attackers(address: InetSocketAddress, kinds: List[Hostile], count: Int):
  // What a connection has still to write of its last tick: a write takes what the socket's buffer can
  private final class Connection(val kind: Hostile, val channel: SocketChannel, var pending: ByteBuffer):
    def send(): Unit =
      if !pending.hasRemaining then pending = ByteBuffer.wrap(kind.tick)
      channel.write(pending)
  @volatile private var running = true
  @volatile var opened = 0L
  @volatile var closedByServer = 0L
  private val thread = Thread(() => run(), "perf-attackers")

  def start(): Unit =
    thread.setDaemon(true)
    thread.start()

  def stop(): Unit =
    running = false
    thread.join(10000)

  private def open(kind: Hostile): Option[Connection] =
    Try {
      val channel = SocketChannel.open(address)
      channel.configureBlocking(false)
      val opening = ByteBuffer.wrap(kind.opening)
      channel.write(opening)
      opened += 1
      Connection(kind, channel, opening)
    }.toOption

  private def run(): Unit =
    var connections = kinds.filterNot(_.http2).flatMap(k => List.fill(count)(open(k)).flatten)
    val sink = ByteBuffer.allocate(65536)
    try
      while running do
        connections = connections.map { c =>
          val alive = Try {
            if c.kind.reads then
              sink.clear()
              c.channel.read(sink) >= 0
            else true
          }.getOrElse(false) && Try { c.send(); true }.getOrElse(false)
          if alive && !c.kind.reconnects then c
          else
            if !alive then closedByServer += 1
            Try(c.channel.close())
            open(c.kind).getOrElse(c)
        }
        Thread.sleep(100)
    finally connections.foreach(c => Try(c.channel.close()))
