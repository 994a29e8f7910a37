package rapier.client

import rapier.Endpoint
import rapier.server.Monad

extension [I, E, O](endpoint: Endpoint[Unit, I, E, O])
  /**
   * The endpoint as a function that calls it at `baseUri`, in the effect `F`: `Future`, `Identity` (direct style,
   * blocking the caller), or an effect module's (`IO` with `import rapier.cats.given`, ZIO's `Task` with
   * `import rapier.zioeffect.given`). Its result is the endpoint's output (`Right`) or error output (`Left`).
   */
  def client[F[_]](baseUri: String, options: ClientOptions = ClientOptions.default)(using
      Monad[F]
  ): I => F[Either[E, O]] =
    val c = EndpointClient[F, Unit, I, E, O](endpoint, baseUri, options, ClientTransport.jdk(options.http))
    input => c((), input)

  /** As above, each call sent by `transport`: a server in memory for tests (the testkit's `StubTransport`). */
  def client[F[_]](transport: ClientTransport)(using Monad[F]): I => F[Either[E, O]] =
    val c = EndpointClient[F, Unit, I, E, O](endpoint, transport.baseUri, ClientOptions.default, transport)
    input => c((), input)

extension [S, I, E, O](endpoint: Endpoint[S, I, E, O])
  /** As [[client]], for an endpoint with security inputs: their values first, then the other inputs'. */
  def secureClient[F[_]](baseUri: String, options: ClientOptions = ClientOptions.default)(using
      Monad[F]
  ): S => I => F[Either[E, O]] =
    val c = EndpointClient[F, S, I, E, O](endpoint, baseUri, options, ClientTransport.jdk(options.http))
    security => input => c(security, input)

  /** As above, each call sent by `transport`. */
  def secureClient[F[_]](transport: ClientTransport)(using Monad[F]): S => I => F[Either[E, O]] =
    val c = EndpointClient[F, S, I, E, O](endpoint, transport.baseUri, ClientOptions.default, transport)
    security => input => c(security, input)
