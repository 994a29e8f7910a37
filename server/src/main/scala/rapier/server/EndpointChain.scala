package rapier.server

import rapier.server.spi.ServerRequest

/**
 * One endpoint's chain — its interceptors around its handler — as routing finds it, with what a backend must know
 * before it reads the body: whether the endpoint reads a body at all (`readsBody`), and whether as a stream, in which
 * case the backend hands the request over at once and feeds the body as the logic pulls it, rather than reading it
 * first.
 */
final class EndpointChain[F[_]] private[server] (
    chain: Handler[F],
    val streamsBody: Boolean,
    val readsBody: Boolean = true
) extends Handler[F]:
  def apply(request: ServerRequest): F[ServerResponse] = chain(request)
