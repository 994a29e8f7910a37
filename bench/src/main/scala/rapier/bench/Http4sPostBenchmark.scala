package rapier.bench

import cats.effect.IO
import cats.effect.unsafe.IORuntime
import com.comcast.ip4s.{SocketAddress, ipv4, port}
import fs2.{Chunk, Stream}
import org.http4s.{Headers, HttpApp, HttpRoutes, Method as H4Method, Request, Uri}
import org.openjdk.jmh.annotations.*
import rapier.*
import rapier.http4s.{Http4sServerInterpreter, Http4sServerOptions}
import rapier.server.*

import java.util.concurrent.TimeUnit

/**
 * Seed 002's lesson, checked on http4s: a 256-byte POST through Rapier's http4s app against the route an http4s user
 * writes with the DSL, in memory (no Ember, no socket), each request made as Ember hands one over — a Host field, its
 * Content-Length, the connection's addresses — so that Rapier's checks of the head run too. Both run on the same
 * `IORuntime`: the difference in bytes allocated per request (`-prof gc`) is what Rapier adds on http4s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
class Http4sPostBenchmark:
  private given IORuntime = IORuntime.global

  private val payload = Array.fill[Byte](256)('a')
  private val connection = Request.Connection(
    local = SocketAddress(ipv4"127.0.0.1", port"8080"),
    remote = SocketAddress(ipv4"127.0.0.1", port"50000"),
    secure = false
  )
  private val headers = Headers("Host" -> "localhost:8080", "Content-Length" -> "256")

  private val rapier: HttpApp[IO] = Http4sServerInterpreter[IO](
    List(
      endpoint.post
        .in("pathBytes0")
        .in(byteArrayBody)
        .out(stringBody)
        .serverLogicSuccess[IO](b => IO.pure(s"ok ${b.length}"))
    ),
    Http4sServerOptions().modifyServerOptions(_.withoutRequestLog)
  ).app

  private val vanilla: HttpApp[IO] = Http4sPostBenchmark.vanillaRoutes.orNotFound

  private def request: Request[IO] =
    Request[IO](H4Method.POST, Uri.unsafeFromString("/pathBytes0"), headers = headers)
      .withAttribute(Request.Keys.ConnectionInfo, connection)
      .withBodyStream(Stream.chunk(Chunk.array(payload)))

  private def exchange(app: HttpApp[IO]): IO[Int] = app.run(request).flatMap(_.body.chunks.compile.fold(0)(_ + _.size))

  // On the runtime's threads, as a server runs it: the hop there and back is most of the time measured.
  @Benchmark def rapierPostBytes(): Int = exchange(rapier).unsafeRunSync()
  @Benchmark def vanillaPostBytes(): Int = exchange(vanilla).unsafeRunSync()

  // On the benchmark's thread (`syncStep`: nothing in either exchange waits): the apps' own work, without the hop.
  @Benchmark def rapierPostBytesInline(): Int = onThisThread(exchange(rapier))
  @Benchmark def vanillaPostBytesInline(): Int = onThisThread(exchange(vanilla))

  private def onThisThread(exchange: IO[Int]): Int = exchange.syncStep(Int.MaxValue).unsafeRunSync() match
    case Right(size) => size
    case Left(_) => throw IllegalStateException("the exchange waited: it can't be run on the benchmark's thread")

object Http4sPostBenchmark:
  import org.http4s.dsl.io.*

  /** The route as an http4s user writes it with the DSL. */
  val vanillaRoutes: HttpRoutes[IO] = HttpRoutes.of[IO] { case request @ POST -> Root / "pathBytes0" =>
    request.as[Array[Byte]].flatMap(b => Ok(s"ok ${b.length}"))
  }
