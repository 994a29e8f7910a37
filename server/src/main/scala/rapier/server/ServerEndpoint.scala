package rapier.server

import rapier.Endpoint

/**
 * An endpoint with the logic that serves it: what a server interpreter runs.
 *
 * The types are members, so endpoints of different shapes fit in one `List[ServerEndpoint[F]]`.
 *
 * @tparam F
 *   the effect the logic runs in: `Future`, or [[Identity]] for direct style
 */
abstract class ServerEndpoint[F[_]]:
  type SecurityInput
  type Principal
  type Input
  type ErrorOutput
  type Output

  def endpoint: Endpoint[SecurityInput, Input, ErrorOutput, Output]

  /** Checks the security inputs before anything else is decoded; none for endpoints without security. */
  def securityLogic: Option[SecurityInput => F[Either[ErrorOutput, Principal]]]

  def logic: ServerLogic[Principal, Input, ErrorOutput, Output, F]

  /** `GET /books/{id}`. */
  def show: String = endpoint.show

  /**
   * The same endpoint with its logic in `G`: each result of the logic (and of the security logic) turned by `fk`
   * when the logic runs — `Future` logic served by an effect's server, say, with `IO.fromFuture`.
   */
  def mapEffect[G[_]](fk: [A] => F[A] => G[A]): ServerEndpoint[G] =
    val security = securityLogic.map(s => (in: SecurityInput) => fk(s(in)))
    val mapped: ServerLogic[Principal, Input, ErrorOutput, Output, G] = logic match
      case ServerLogic.Full(run) => ServerLogic.Full((p, i) => fk(run(p, i)))
      case ServerLogic.SuccessOnly(run) => ServerLogic.SuccessOnly((p, i) => fk(run(p, i)))
    ServerEndpoint(endpoint, security, mapped)

  override def toString: String = s"ServerEndpoint($show)"

object ServerEndpoint:
  /** A server endpoint with its types spelled out. */
  type Full[S, P, I, E, O, F[_]] = ServerEndpoint[F] {
    type SecurityInput = S; type Principal = P; type Input = I; type ErrorOutput = E; type Output = O
  }

  def apply[S, P, I, E, O, F[_]](
      e: Endpoint[S, I, E, O],
      security: Option[S => F[Either[E, P]]],
      run: ServerLogic[P, I, E, O, F]
  ): Full[S, P, I, E, O, F] =
    new ServerEndpoint[F]:
      type SecurityInput = S
      type Principal = P
      type Input = I
      type ErrorOutput = E
      type Output = O
      val endpoint: Endpoint[S, I, E, O] = e
      val securityLogic: Option[S => F[Either[E, P]]] = security
      val logic: ServerLogic[P, I, E, O, F] = run

/** The main logic of an endpoint, given the principal its security logic established and the decoded input. */
sealed trait ServerLogic[P, I, E, O, F[_]]

object ServerLogic:
  /** Logic that may fail with an error output. */
  final case class Full[P, I, E, O, F[_]](run: (P, I) => F[Either[E, O]]) extends ServerLogic[P, I, E, O, F]

  /** Logic that always succeeds (or throws): its result needs no `Right` around it. */
  final case class SuccessOnly[P, I, E, O, F[_]](run: (P, I) => F[O]) extends ServerLogic[P, I, E, O, F]

/** An endpoint with its security logic, waiting for its main logic. */
final class PartialServerEndpoint[S, P, I, E, O, F[_]](
    val endpoint: Endpoint[S, I, E, O],
    val securityLogic: S => F[Either[E, P]]
):
  /** The main logic, given the principal and the input. */
  def serverLogic(f: (P, I) => F[Either[E, O]]): ServerEndpoint.Full[S, P, I, E, O, F] =
    ServerEndpoint(endpoint, Some(securityLogic), ServerLogic.Full(f))

  /** Main logic that can't fail with an error output. */
  def serverLogicSuccess(f: (P, I) => F[O]): ServerEndpoint.Full[S, P, I, E, O, F] =
    ServerEndpoint(endpoint, Some(securityLogic), ServerLogic.SuccessOnly(f))

extension [I, E, O](e: Endpoint[Unit, I, E, O])
  /** Serves the endpoint with `f`: `Right` for the output, `Left` for the error output. */
  def serverLogic[F[_]](f: I => F[Either[E, O]]): ServerEndpoint.Full[Unit, Unit, I, E, O, F] =
    ServerEndpoint(e, None, ServerLogic.Full((_: Unit, i: I) => f(i)))

  /** Serves the endpoint with `f`, which always produces the output. */
  def serverLogicSuccess[F[_]](f: I => F[O]): ServerEndpoint.Full[Unit, Unit, I, E, O, F] =
    ServerEndpoint(e, None, ServerLogic.SuccessOnly((_: Unit, i: I) => f(i)))

extension [S, I, E, O](e: Endpoint[S, I, E, O])
  /**
   * Checks the security inputs with `f` first: `Right` gives the principal the main logic receives, `Left` the
   * error output to send instead. The other inputs (and the body) are decoded only after `f` succeeds.
   */
  def serverSecurityLogic[P, F[_]](f: S => F[Either[E, P]]): PartialServerEndpoint[S, P, I, E, O, F] =
    PartialServerEndpoint(e, f)
