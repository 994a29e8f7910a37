package rapier.perf.servers

import rapier.*
import rapier.json.jsoniter.jsonBody
import rapier.netty.NettyServer
import rapier.netty.sync.NettySyncServer
import rapier.perf.common.{Order, PerfApi, PerfServer, ServerConfig}
import rapier.perf.vanilla.PayloadCodecs.given
import rapier.server.*

/**
 * The suite's endpoints in direct style, as such a user writes them: plain values, a streamed body read from an
 * `InputStream` (reads block the request's virtual thread) and counted, on Rapier's Netty server for direct style.
 * Needs JDK 21 or newer (the catalogue says so, and the suite finds one).
 */
class RapierNettySyncServer(threadStart: VirtualThreadStart) extends PerfServer:
  def this() = this(VirtualThreadStart.OnCarrier)

  private var binding: NettyServer.Binding | Null = null

  def start(config: ServerConfig): Int =
    val endpoints = (0 until config.routes).toList.flatMap(RapierNettySyncServer.endpoints) ++ StudyLogic.direct
    val started = NettySyncServer(endpoints, RapierNettyServer.options(config), threadStart).start()
    binding = started
    started.port

  /** One server compiles every endpoint into one routing trie. */
  def routeSets: Int = 1

  def stop(): Unit = if binding != null then binding.nn.stop()

/** The same, each request's thread first run on its connection's event loop ([[VirtualThreadStart.OnLoop]]). */
final class RapierNettySyncOnLoopServer extends RapierNettySyncServer(VirtualThreadStart.OnLoop)

object RapierNettySyncServer:
  private val orderJson = jsonBody[Order]

  def endpoints(n: Int): List[ServerEndpoint[Identity]] = List(
    endpoint.get.in(s"path$n" / path[Int]("id")).out(stringBody).serverLogicSuccess[Identity](PerfApi.ok(_)),
    endpoint.post.in(s"path$n").in(stringBody).out(stringBody).serverLogicSuccess[Identity](s => PerfApi.ok(s.length)),
    endpoint.post
      .in(s"pathBytes$n")
      .in(byteArrayBody)
      .out(stringBody)
      .serverLogicSuccess[Identity](b => PerfApi.ok(b.length)),
    endpoint.post.in(s"pathJson$n").in(orderJson).out(orderJson).serverLogicSuccess[Identity](identity),
    endpoint.post.in(s"pathStream$n").in(inputStreamBody).out(stringBody).serverLogicSuccess[Identity](count),
    endpoint.get.in(s"pathFile$n").out(fileBody).serverLogicSuccess[Identity](_ => PerfApi.file)
  )

  /** Counts a streamed body's bytes as they are read, through one buffer. */
  private def count(in: java.io.InputStream): String =
    val buffer = new Array[Byte](64 * 1024)
    var total = 0L
    var n = in.read(buffer)
    while n >= 0 do
      total += n
      n = in.read(buffer)
    PerfApi.ok(total)
