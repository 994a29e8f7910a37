package rapier.cats

import cats.effect.Async
import fs2.{Chunk, Pipe, Stream}
import rapier.{Codec, EndpointIO, EndpointOutput, RawBodyType, ServerSentEvent, WebSocketCodec}

import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.{Duration, FiniteDuration}

/**
 * The body as an fs2 `Stream[F, Byte]`, `application/octet-stream`: a request's is read from the connection as the
 * stream pulls it, a response's is written as the connection takes it (chunked, unless the endpoint sets
 * `Content-Length`). See [[Fs2Body]].
 */
def fs2Body[F[_]](using Async[F]): EndpointIO.Body[Stream[F, Byte], Stream[F, Byte]] =
  EndpointIO.Body(RawBodyType.StreamBody(Fs2Body[F]()), Codec.stream)

/**
 * A WebSocket whose logic is an fs2 `Pipe[F, In, Out]` from the client's messages to the server's, each read and
 * written by its [[rapier.WebSocketCodec]]: `endpoint.get.in("echo").out(fs2WebSocketBody[IO, String, String])` with
 * `.serverLogicSuccess(_ => IO.pure(in => in))` echoes every text message. See [[Fs2WebSocket]].
 */
def fs2WebSocketBody[F[_], In, Out](using
    F: Async[F],
    in: WebSocketCodec[In],
    out: WebSocketCodec[Out]
): EndpointOutput.WebSocketBody[In, Out, Pipe[F, In, Out]] =
  EndpointOutput.WebSocketBody(Fs2WebSocket[F]().typed[In, Out], in, out)

/**
 * A `text/event-stream` response (Server-Sent Events) from an fs2 `Stream[F, ServerSentEvent]`: each event written as
 * the stream emits it, as the connection takes it; while no event has gone out for `keepAlive`, a comment line keeps
 * the connection from being closed as idle. Sent with `Cache-Control: no-cache`; the stream ending ends the response,
 * failing cuts it. A client reads the events back as its stream is pulled.
 *
 * The keep-alive's timer runs merged with the events (fs2's `mergeHaltL`), which hands each event from one fiber to
 * another: `Duration.Inf` (no keep-alive) writes the events as the stream emits them, in its own fiber.
 */
def fs2SseBody[F[_]](
    keepAlive: Duration = FiniteDuration(15, TimeUnit.SECONDS)
)(using F: Async[F]): EndpointOutput[Stream[F, ServerSentEvent]] =
  val nanos = rapier.keepAliveNanos(keepAlive)
  rapier.eventStreamOutput(Fs2Body[F](), eventStream(_, nanos), eventsOf[F])

/** The events of a `text/event-stream`'s bytes, for a client: parsed chunk by chunk as the stream is pulled. */
private def eventsOf[F[_]](bytes: Stream[F, Byte]): Stream[F, ServerSentEvent] =
  Stream.suspend {
    val parser = rapier.flow.EventParser()
    bytes.chunks.flatMap { chunk =>
      val events = scala.collection.mutable.ListBuffer.empty[ServerSentEvent]
      parser.feed(chunk.toByteBuffer, events += _)
      Stream.emits(events.toList)
    }
  }

/** The events' bytes, with a comment at each tick of `keepAliveNanos` (if any) after which no event went out. */
private def eventStream[F[_]](events: Stream[F, ServerSentEvent], keepAliveNanos: Long)(using
    F: Async[F]
): Stream[F, Byte] =
  if keepAliveNanos == 0 then events.map(e => Chunk.array(e.encode)).unchunks
  else eventsKeptAlive(events, FiniteDuration(keepAliveNanos, TimeUnit.NANOSECONDS))

private def eventsKeptAlive[F[_]](events: Stream[F, ServerSentEvent], keepAlive: FiniteDuration)(using
    F: Async[F]
): Stream[F, Byte] =
  Stream.eval(F.delay(AtomicBoolean(false))).flatMap { sent =>
    val encoded = events.map { e =>
      sent.set(true)
      Chunk.array(e.encode)
    }
    val comments = Stream
      .fixedRate[F](keepAlive)
      .evalMapFilter(_ => F.delay(Option.when(!sent.getAndSet(false))(Chunk.array(ServerSentEvent.KeepAlive))))
    encoded.mergeHaltL(comments).unchunks
  }
