package rapier.server.internal

import rapier.model.StatusCode
import rapier.server.*
import rapier.server.interceptor.DecodeFailure

/**
 * Serves one endpoint: the innermost handler of its chain.
 *
 * The steps, in order — each runs only if the one before succeeded, so a request with bad credentials never has its
 * body read:
 *   1. decode the security inputs
 *   2. run the security logic
 *   3. decode the other inputs, except the body
 *   4. read and decode the body
 *   5. run the logic
 *   6. encode its output, or its error output
 */
private[server] final class EndpointHandler[F[_]](
    ce: CompiledEndpoint[F],
    body: RequestBody[F],
    options: ServerOptions
)(
    using m: Monad[F]
) extends Handler[F]:
  private val endpoint = ce.route.endpoint

  private val securityLogic: (Any => F[Either[Any, Any]]) | Null =
    ce.serverEndpoint.securityLogic.map(_.asInstanceOf[Any => F[Either[Any, Any]]]).orNull

  private val logic: ServerLogic[Any, Any, Any, Any, F] =
    ce.serverEndpoint.logic.asInstanceOf[ServerLogic[Any, Any, Any, Any, F]]

  // Functions built once, so that encoding a result allocates no closure per request.
  private val encodeEither: Either[Any, Any] => ServerResponse =
    case Right(o) => encode(ce.output, o, StatusCode.Ok.code)
    case Left(e) => encode(ce.errorOutput, e, StatusCode.BadRequest.code)
  private val encodeOutput: Any => ServerResponse = o => encode(ce.output, o, StatusCode.Ok.code)

  def apply(request: ServerRequest): F[ServerResponse] =
    // 1. decode the security inputs
    val plan = ce.security
    val slots = if plan.needsSlots then plan.newSlots() else null
    plan.decodeHead(request, slots) match
      case f: Failed => m.unit(failure(f, security = true))
      case head =>
        (if plan.needsSlots then plan.assemble(slots.nn) else head) match
          case f: Failed => m.unit(failure(f, security = true))
          case s if securityLogic == null => afterSecurity(request, ())
          case s =>
            // 2. run the security logic
            m.flatMap(securityLogic.nn(s)) {
              case Right(principal) => afterSecurity(request, principal)
              case Left(e) => m.unit(encode(ce.errorOutput, e, StatusCode.BadRequest.code))
            }

  private def afterSecurity(request: ServerRequest, principal: Any): F[ServerResponse] =
    val plan = ce.input
    val slots = if plan.needsSlots then plan.newSlots() else null
    // 3. decode the other inputs, except the body
    plan.decodeHead(request, slots) match
      case f: Failed => m.unit(failure(f, security = false))
      case head if !plan.hasBody =>
        (if plan.needsSlots then plan.assemble(slots.nn) else head) match
          case f: Failed => m.unit(failure(f, security = false))
          case input => run(principal, input)
      case _ =>
        // 4. read and decode the body; a backend that holds it already saves a round through F
        body.bytesIfRead(request) match
          case bytes: Array[Byte] => withBody(request, principal, slots, bytes)
          case null =>
            m.handleError(m.flatMap(body.bytes(request))(bytes => withBody(request, principal, slots, bytes))) {
              case e: BodyTooLargeException =>
                m.unit(ServerResponse.text(StatusCode.ContentTooLarge, s"The body is larger than ${e.limit} bytes"))
              case e => m.error(e)
            }

  private def withBody(request: ServerRequest, principal: Any, slots: Array[Any] | Null, bytes: Array[Byte]) =
    ce.input.decodeBody(request, slots, bytes) match
      case f: Failed => m.unit(failure(f, security = false))
      case input => run(principal, input)

  // 5. run the logic, and 6. encode what it returns
  private def run(principal: Any, input: Any): F[ServerResponse] = logic match
    case ServerLogic.Full(f) => m.map(f(principal, input))(encodeEither)
    case ServerLogic.SuccessOnly(f) => m.map(f(principal, input))(encodeOutput)

  private def encode(plan: OutputPlan, value: Any, defaultStatus: Int): ServerResponse =
    val response = plan.newResponse()
    plan.write(value, response)
    if response.status == 0 then response.setStatus(defaultStatus)
    response

  private def failure(f: Failed, security: Boolean): ServerResponse =
    options.decodeFailureHandler(DecodeFailure(endpoint, f.failures, security))
