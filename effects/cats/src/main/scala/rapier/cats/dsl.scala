package rapier.cats

import cats.effect.Async
import fs2.Stream
import rapier.{Codec, EndpointIO, RawBodyType}

/**
 * The body as an fs2 `Stream[F, Byte]`, `application/octet-stream`: a request's is read from the connection as the
 * stream pulls it, a response's is written as the connection takes it (chunked, unless the endpoint sets
 * `Content-Length`). See [[Fs2Body]].
 */
def fs2Body[F[_]](using Async[F]): EndpointIO.Body[Stream[F, Byte], Stream[F, Byte]] =
  EndpointIO.Body(RawBodyType.StreamBody(Fs2Body[F]()), Codec.stream)
