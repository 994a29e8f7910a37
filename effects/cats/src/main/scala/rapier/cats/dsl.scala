package rapier.cats

import cats.effect.Async
import fs2.{Pipe, Stream}
import rapier.{Codec, EndpointIO, EndpointOutput, RawBodyType, WebSocketCodec}

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
