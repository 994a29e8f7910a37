package rapier.server.internal

import rapier.model.{HeaderNames, StatusCode}
import rapier.server.*
import rapier.server.spi.{BodyBudget, BodyTooLargeException, RequestBodyException, ServerRequest}
import rapier.server.interceptor.DecodeFailure

/**
 * Serves one endpoint: the innermost handler of its chain.
 *
 * The steps, in order — each runs only if the one before succeeded, so a request with bad credentials never has its
 * body read:
 *   1. decode the security inputs
 *   2. run the security logic
 *   3. decode the other inputs, except the body
 *   4. read and decode the body, or open it as a stream
 *   5. run the logic
 *   6. encode its output, or its error output
 */
private[server] final class EndpointHandler[F[_]](
    ce: CompiledEndpoint[F],
    options: ServerOptions,
    temporary: TempFiles,
    bodies: BodyBudget
)(
    using m: Monad[F]
) extends Handler[F]:
  private val endpoint = ce.route.endpoint

  private val securityLogic: (Any => F[Either[Any, Any]]) | Null =
    ce.serverEndpoint.securityLogic.map(_.asInstanceOf[Any => F[Either[Any, Any]]]).orNull

  private val logic: ServerLogic[Any, Any, Any, Any, F] =
    ce.serverEndpoint.logic.asInstanceOf[ServerLogic[Any, Any, Any, Any, F]]

  private val render = options.problemRenderer
  private val negotiates = ce.output.negotiates || ce.errorOutput.negotiates

  // Functions built once, so that encoding a result allocates no closure per request.
  private val encodeEither: Either[Any, Any] => ServerResponse =
    case Right(o) => encode(ce.output, o, StatusCode.Ok.code)
    case Left(e) => encodeError(e)
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
            m.flatMap(inContext(request)(securityLogic.nn(s))) {
              case Right(principal) => afterSecurity(request, principal)
              case Left(e) => startStream(encodeError(e, acceptOf(request)))
            }

  private def afterSecurity(request: ServerRequest, principal: Any): F[ServerResponse] =
    val plan = ce.input
    val slots = if plan.needsSlots then plan.newSlots() else null
    // 3. decode the other inputs, except the body
    plan.decodeHead(request, slots) match
      case f: Failed if plan.hasBody =>
        // Every failure is reported, the body's too: it costs little more, as the body has to be read anyway
        val withFailures = (bytes: Array[Byte]) =>
          val all = plan.bodyFailures(request, bytes, f)
          deleteTemporaryFiles(request)
          m.unit(failure(all, security = false))
        request.readableBodyOrNull match
          case bytes: Array[Byte] => withFailures(bytes)
          case null => readBody(request, f, withFailures)
      // A streamed body is not read to report its failures: it may be large, and arrives only as it is read.
      case f: Failed => m.unit(failure(f, security = false))
      case _ if plan.streamsBody =>
        // 4. open the body's stream: the logic reads it as it arrives
        plan.decodeStream(request, slots) match
          case f: Failed => m.unit(failure(f, security = false))
          case pending: StreamBodyReader.Pending =>
            // A body read into a file or split into parts: the logic runs once it has arrived. In direct style the
            // wait blocks, and what fails throws: all of it happens inside `deletingFiles` and `recover`.
            deletingFiles(
              request,
              m.recover(m.flatMap(m.async[Any](pending.register)) { v =>
                plan.completeBody(v, slots) match
                  case f: Failed => m.unit(failure(f, security = false))
                  case input => run(request, principal, input)
              })(clientsBody)
            )
          case input => m.recover(run(request, principal, input))(clientsBody)
      case head if !plan.hasBody =>
        (if plan.needsSlots then plan.assemble(slots.nn) else head) match
          case f: Failed => m.unit(failure(f, security = false))
          case input => run(request, principal, input)
      case _ =>
        // 4. read and decode the body; a backend that holds it already saves a round through F
        request.readableBodyOrNull match
          case bytes: Array[Byte] => withBody(request, principal, slots, bytes)
          case null => readBody(request, null, bytes => withBody(request, principal, slots, bytes))

  /**
   * Reads the body on demand, then runs `next`, the body's bytes counted in the server's budget until `next` is done.
   * A body over the limit is answered 413, or with `earlier` failures if any; one past the budget 503.
   */
  private def readBody(
      request: ServerRequest,
      earlier: Failed | Null,
      next: Array[Byte] => F[ServerResponse]
  ): F[ServerResponse] =
    val read = m.async[BodyCollector.Collected] { done =>
      val collector = BodyCollector(request.readableBodySource, bodies, done)
      // Given back once the request is answered, or its effect stopped before it got that far
      request.whenCancelled(collector.release)
      collector.start()
    }
    val used = (body: BodyCollector.Collected) => m.guarantee(m.recover(next(body.bytes))(m.error))(body.release)
    m.recover(m.flatMap(read)(used)) {
      case e: RequestBodyException =>
        m.unit(
          if earlier != null && e.isInstanceOf[BodyTooLargeException] then failure(earlier.nn, security = false)
          else render(e.refusal.problem)
        )
      case e => m.error(e)
    }

  /**
   * A failure of logic that read a streamed body: the client's doing when the body could not be read (413, 400, 408)
   * or an element of it could not be decoded (400), whatever the logic wrapped it in; else the logic's, for the
   * exception handler.
   */
  private val clientsBody: Throwable => F[ServerResponse] = e =>
    RequestBodyException.findIn(e) match
      case client: RequestBodyException => m.unit(render(client.refusal.problem))
      case invalid: rapier.InvalidStreamException =>
        m.unit(render(Problem(StatusCode.BadRequest, s"Invalid request body: ${invalid.getMessage}")))
      case null => m.error(e)

  private def withBody(request: ServerRequest, principal: Any, slots: Array[Any] | Null, bytes: Array[Byte]) =
    ce.input.decodeBody(request, slots, bytes) match
      case f: Failed =>
        deleteTemporaryFiles(request)
        m.unit(failure(f, security = false))
      case input if request.temporaryFiles.isEmpty => run(request, principal, input)
      case input => deletingFiles(request, run(request, principal, input))

  /** Uploaded files live until the logic is done with them, whatever its outcome, its cancellation included. */
  private def deletingFiles(request: ServerRequest, result: => F[ServerResponse]): F[ServerResponse] =
    val started =
      try result
      catch
        case e @ (scala.util.control.NonFatal(_) | _: InterruptedException) =>
          deleteTemporaryFiles(request)
          throw e
    val delete = () => deleteTemporaryFiles(request)
    request.whenCancelled(delete)
    m.guarantee(started)(delete)

  /** `fa` computed within the request's [[LogicContext]], if an interceptor gave it one; inlined, so free without. */
  private inline def inContext[A](request: ServerRequest)(inline fa: F[A]): F[A] =
    val c = request.logicContext
    if c == null then fa else m.within(c.nn)(fa)

  private def deleteTemporaryFiles(request: ServerRequest): Unit =
    val files = request.temporaryFiles
    request.temporaryFiles = Nil
    files.foreach(temporary.delete)

  // 5. run the logic, 6. encode what it returns, and 7. start the stream it is written from, if that is an effect's
  private def run(request: ServerRequest, principal: Any, input: Any): F[ServerResponse] =
    if upgrades then upgrading(request, principal, input) else runLogic(request, principal, input)

  private val upgrades = ce.output.webSocket != null

  /** The WebSocket handshake checked before the logic runs; the 101 it answers carries the handshake's headers. */
  private def upgrading(request: ServerRequest, principal: Any, input: Any): F[ServerResponse] =
    WebSocketHandshake.accept(request, render, ce.output.webSocket.nn.origins) match
      case refused: ServerResponse => m.unit(refused)
      case accept: String =>
        m.map(runLogic(request, principal, input)) { r =>
          if r.webSocket != null then
            r.addHeader(HeaderNames.Upgrade, "websocket")
            r.addHeader(HeaderNames.Connection, "Upgrade")
            r.addHeader("Sec-WebSocket-Accept", accept)
          r
        }

  private def runLogic(request: ServerRequest, principal: Any, input: Any): F[ServerResponse] =
    val encoded =
      if negotiates then negotiated(request, principal, input)
      else
        logic match
          case ServerLogic.Full(f) => m.map(inContext(request)(f(principal, input)))(encodeEither)
          case ServerLogic.SuccessOnly(f) => m.map(inContext(request)(f(principal, input)))(encodeOutput)
    val started = if startsStreams then m.flatMap(encoded)(startStream) else encoded
    if !sendsFiles then started
    else if FileConditions.asked(request) then
      m.map(started)(r => FileRanges(request, FileConditions(request, r, render), render))
    else if request.headerOrNull(HeaderNames.Range) != null then m.map(started)(FileRanges(request, _, render))
    else started

  // Decided once: only endpoints that write an effect module's stream pay for the extra step.
  private val startsStreams = ce.output.startsStreams || ce.errorOutput.startsStreams

  // Decided once: only endpoints that may send a file read a request's Range.
  private val sendsFiles = ce.output.sendsFiles || ce.errorOutput.sendsFiles

  private val startStream: ServerResponse => F[ServerResponse] = r =>
    val start = r.streamStart
    if start == null then m.unit(r)
    else
      r.streamStart = null
      m.map(start.asInstanceOf[F[Any]])(_ => r)

  private def acceptOf(request: ServerRequest): List[rapier.model.MediaRange] =
    if negotiates then rapier.model.Accept.parse(request.headerValues(HeaderNames.Accept)) else Nil

  /** Outputs written in the representation `Accept` prefers: parsed here, and 406 before the logic runs if none. */
  private def negotiated(request: ServerRequest, principal: Any, input: Any): F[ServerResponse] =
    val ranges = acceptOf(request)
    val offers = ce.output.offers
    if offers != null && rapier.model.Accept.choose(ranges, offers.nn) < 0 then
      m.unit(
        render(
          Problem(
            StatusCode.NotAcceptable,
            s"This endpoint answers in ${offers.nn.map(_.copy(charset = None).render).distinct.mkString(", ")}; " +
              "the Accept header allows none of them."
          )
        )
      )
    else
      logic match
        case ServerLogic.Full(f) =>
          m.map(inContext(request)(f(principal, input))) {
            case Right(o) => encode(ce.output, o, StatusCode.Ok.code, ranges)
            case Left(e) => encodeError(e, ranges)
          }
        case ServerLogic.SuccessOnly(f) =>
          m.map(inContext(request)(f(principal, input)))(o => encode(ce.output, o, StatusCode.Ok.code, ranges))

  private def encode(
      plan: OutputPlan,
      value: Any,
      defaultStatus: Int,
      accept: List[rapier.model.MediaRange] = Nil
  ): ServerResponse =
    val response = plan.newResponse()
    plan.write(value, response, accept)
    if response.status == 0 then response.setStatus(defaultStatus)
    if response.stream != null then response.lengthFromHeader()
    response

  /** An error output; a 401 carries the endpoint's challenges unless the output set its own. */
  private def encodeError(e: Any, accept: List[rapier.model.MediaRange] = Nil): ServerResponse =
    val response = encode(ce.errorOutput, e, StatusCode.BadRequest.code, accept)
    if response.status == StatusCode.Unauthorized.code && ce.challenges.nonEmpty &&
      !response.hasHeader(HeaderNames.WwwAuthenticate)
    then ce.challenges.foreach(response.addHeader(HeaderNames.WwwAuthenticate, _))
    response

  private def failure(f: Failed, security: Boolean): ServerResponse =
    options.decodeFailureHandler(DecodeFailure(endpoint, f.failures, security, ce.challenges), render)
