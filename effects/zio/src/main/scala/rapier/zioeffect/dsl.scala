package rapier.zioeffect

import rapier.server.{PartialServerEndpoint, ServerEndpoint, serverLogic, serverSecurityLogic}
import rapier.{Codec, Endpoint, EndpointIO, EndpointOutput, RawBodyType, ServerSentEvent, WebSocketCodec}
import zio.stream.ZStream
import zio.{Chunk, IO, RIO, Task, ZIO}

import java.util.concurrent.TimeUnit
import scala.concurrent.duration.{Duration, FiniteDuration}

/**
 * The body as a ZIO `ZStream[Any, Throwable, Byte]`, `application/octet-stream`: a request's is read from the
 * connection as the stream pulls it, a response's is written as the connection takes it (chunked, unless the endpoint
 * sets `Content-Length`). See [[ZStreamBody]].
 */
val zioStreamBody: EndpointIO.Body[ZStream[Any, Throwable, Byte], ZStream[Any, Throwable, Byte]] =
  EndpointIO.Body(RawBodyType.StreamBody(ZStreamBody), Codec.stream)

/**
 * A `text/event-stream` response (Server-Sent Events) from a `ZStream[Any, Throwable, ServerSentEvent]`: each event
 * written as the stream emits it, as the connection takes it; while no event has gone out for `keepAlive`, a comment
 * line keeps the connection from being closed as idle. Sent with `Cache-Control: no-cache`; the stream ending ends the
 * response, failing cuts it. `Duration.Inf` sends no comment.
 */
def zioSseBody(
    keepAlive: Duration = FiniteDuration(15, TimeUnit.SECONDS)
): EndpointOutput[ZStream[Any, Throwable, ServerSentEvent]] =
  val nanos = rapier.keepAliveNanos(keepAlive)
  rapier.eventStreamOutput(ZStreamBody, eventStream(_, nanos), eventsOf)

/** The events of a `text/event-stream`'s bytes, for a client: parsed chunk by chunk as the stream is pulled. */
private def eventsOf(bytes: ZStream[Any, Throwable, Byte]): ZStream[Any, Throwable, ServerSentEvent] =
  ZStream.suspend {
    val parser = rapier.flow.EventParser()
    bytes.mapChunks { chunk =>
      val events = zio.ChunkBuilder.make[ServerSentEvent]()
      parser.feed(java.nio.ByteBuffer.wrap(chunk.toArray), events += _)
      events.result()
    }
  }

/** The events' bytes, with a comment at each tick of `keepAliveNanos` (if any) after which no event went out. */
private def eventStream(events: ZStream[Any, Throwable, ServerSentEvent], keepAliveNanos: Long) =
  val encoded = events.map(e => Chunk.fromArray(e.encode))
  val bytes =
    if keepAliveNanos == 0 then encoded
    else
      ZStream.unwrap(ZIO.succeed {
        val sent = java.util.concurrent.atomic.AtomicBoolean(false)
        val comments = ZStream
          .tick(zio.Duration.fromNanos(keepAliveNanos))
          .drop(1)
          .filter(_ => !sent.getAndSet(false))
          .as(Chunk.fromArray(ServerSentEvent.KeepAlive))
        encoded.tap(_ => ZIO.succeed(sent.set(true))).merge(comments, ZStream.HaltStrategy.Left)
      })
  bytes.flattenChunks

extension [I, E, O](e: Endpoint[Unit, I, E, O])
  /** Serves the endpoint with ZIO logic: its failure `E` is the error output, its value the output. */
  def zServerLogic(f: I => IO[E, O]): ServerEndpoint.Full[Unit, Unit, I, E, O, Task] =
    e.serverLogic[Task](i => f(i).either)

  /**
   * Serves the endpoint with ZIO logic that needs `R` from the environment (`ZIO.serviceWith[Db]`), named, as Scala
   * can't infer it: `zServerLogicNeeding[Db](...)`. The server's start needs `R` too, and gives it to the logic (see
   * `NettyZioServer.needing`).
   */
  def zServerLogicNeeding[R](f: I => ZIO[R, E, O]): ServerEndpoint.Full[Unit, Unit, I, E, O, [A] =>> RIO[R, A]] =
    e.serverLogic[[A] =>> RIO[R, A]](i => f(i).either)

extension [S, I, E, O](e: Endpoint[S, I, E, O])
  /**
   * Checks the security inputs with ZIO logic first: its value is the principal the main logic receives, its failure
   * `E` the error output to send instead.
   */
  def zServerSecurityLogic[P](f: S => IO[E, P]): PartialServerEndpoint[S, P, I, E, O, Task] =
    e.serverSecurityLogic[P, Task](s => f(s).either)

  /**
   * As [[zServerSecurityLogic]], for logic that needs `R` from the environment, named: `R` is then given to the main
   * logic too.
   */
  def zServerSecurityLogicNeeding[R, P](f: S => ZIO[R, E, P]): PartialServerEndpoint[S, P, I, E, O, [A] =>> RIO[R, A]] =
    e.serverSecurityLogic[P, [A] =>> RIO[R, A]](s => f(s).either)

extension [S, P, I, E, O, R](e: PartialServerEndpoint[S, P, I, E, O, [A] =>> RIO[R, A]])
  /**
   * The main logic in ZIO, given the principal and the input: its failure `E` is the error output. It needs what the
   * security logic needed, or less.
   */
  def zServerLogic(f: P => I => ZIO[R, E, O]): ServerEndpoint.Full[S, P, I, E, O, [A] =>> RIO[R, A]] =
    e.serverLogic((p, i) => f(p)(i).either)

extension [R](e: ServerEndpoint[[A] =>> RIO[R, A]])
  /**
   * The endpoint served where more is in the environment than its logic needs (ZIO's environment is contravariant: an
   * `RIO[R, A]` runs wherever an `R1 <: R` is given), to serve it beside endpoints that need more:
   * `NettyZioServer.needing[Db].addEndpoints(List(users, health.widen[Db]))`.
   */
  def widen[R1 <: R]: ServerEndpoint[[A] =>> RIO[R1, A]] = e.asInstanceOf[ServerEndpoint[[A] =>> RIO[R1, A]]]

/**
 * A WebSocket whose logic is a [[ZioPipe]] from the client's messages to the server's, each read and written by its
 * [[rapier.WebSocketCodec]]: `endpoint.get.in("echo").out(zioWebSocketBody[String, String])` with
 * `.serverLogicSuccess[Task](_ => ZIO.succeed(in => in))` echoes every text message. See [[ZioWebSocket]].
 */
def zioWebSocketBody[In, Out](using
    in: WebSocketCodec[In],
    out: WebSocketCodec[Out]
): EndpointOutput.WebSocketBody[In, Out, ZioPipe[In, Out]] =
  EndpointOutput.WebSocketBody(ZioWebSocket.typed[In, Out], in, out)
