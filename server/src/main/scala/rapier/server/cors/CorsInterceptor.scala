package rapier.server.cors

import rapier.model.{HeaderNames, Method, StatusCode}
import rapier.server.*
import rapier.server.interceptor.Interceptor
import rapier.server.spi.ServerRequest

/**
 * [[Cors]] around every route: a preflight routed to the rejection chain (by `ServerInterpreter.routeOrNull`, with the
 * path's methods in its rejection) is answered here; every other response gets the headers its `Origin` earns. The
 * headers that don't depend on the request are made once.
 */
private[server] final class CorsInterceptor(cors: Cors, render: ProblemRenderer) extends Interceptor:
  import CorsInterceptor.*
  import HeaderNames.*

  // `*` only without credentials (the Fetch standard ignores it with them); otherwise the origin, and Vary on it.
  private val star = cors.origins == AllowedOrigins.All && !cors.credentials
  private val exposed = if cors.exposedHeaders.isEmpty then null else cors.exposedHeaders.mkString(", ")
  private val maxAge = cors.maxAge.map(_.toSeconds.toString).orNull
  private val methods = cors.methods.map(ms => (ms.map(_.name).toSet, ms.map(_.name).mkString(", ")))
  private val allowedHeaders = cors.headers match
    case AllowedHeaders.Only(names) => names.map(_.toLowerCase(java.util.Locale.ROOT))
    case AllowedHeaders.All => null
  private val preflightVary =
    if star then s"$AccessControlRequestMethod, $AccessControlRequestHeaders"
    else s"$Origin, $AccessControlRequestMethod, $AccessControlRequestHeaders"

  def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] =
    val decorated: Handler[F] = request =>
      val origin = request.headerOrNull(Origin)
      if origin == null then if star then next(request) else m.map(next(request))(varyOnOrigin)
      else if cors.origins.allows(origin) then m.map(next(request))(allow(_, origin))
      else if star then next(request)
      else m.map(next(request))(varyOnOrigin)
    route match
      case Route.Rejected =>
        request =>
          request.rejection match
            case Rejection.MethodNotAllowed(allowed) if isPreflight(request) => m.unit(preflight(request, allowed))
            case _ => decorated(request)
      case _ => decorated

  private val varyOnOrigin: ServerResponse => ServerResponse = r =>
    r.addVary(Origin)
    r

  private def allow(r: ServerResponse, origin: String): ServerResponse =
    // A 101 leaves HTTP: CORS doesn't apply to the WebSocket after it (its Origin is checked at the upgrade).
    if r.webSocket == null then
      r.addHeader(AccessControlAllowOrigin, if star then "*" else origin)
      if cors.credentials then r.addHeader(AccessControlAllowCredentials, "true")
      if exposed != null then r.addHeader(AccessControlExposeHeaders, exposed.nn)
      if !star then r.addVary(Origin)
    r

  private def preflight(request: ServerRequest, allowed: List[Method]): ServerResponse =
    val origin = request.headerOrNull(Origin).nn
    val method = request.headerOrNull(AccessControlRequestMethod).nn.trim
    val asked = requestedHeaders(request)
    val (methodSet, methodList) = methods.getOrElse((allowed.map(_.name).toSet, allowed.map(_.name).mkString(", ")))
    val refusal =
      if !cors.origins.allows(origin) then "This origin may not call this server from a browser."
      else if !methodSet.contains(method) then s"The method asked for is not allowed here; these are: $methodList."
      else if allowedHeaders != null && !asked.forall(allowedHeaders.nn.contains) then
        s"A request header asked for is not allowed; these are: ${allowedHeaders.nn.toList.sorted.mkString(", ")}."
      else null
    val r =
      if refusal != null then render(Problem(StatusCode.Forbidden, s"CORS preflight refused. ${refusal.nn}"))
      else
        val ok = ServerResponse(StatusCode.NoContent)
        ok.addHeader(AccessControlAllowOrigin, if star then "*" else origin)
        if cors.credentials then ok.addHeader(AccessControlAllowCredentials, "true")
        ok.addHeader(AccessControlAllowMethods, methodList)
        if asked.nonEmpty then ok.addHeader(AccessControlAllowHeaders, asked.mkString(", "))
        if maxAge != null then ok.addHeader(AccessControlMaxAge, maxAge.nn)
        ok
    r.addHeader(Vary, preflightVary)
    r

private[server] object CorsInterceptor:
  /** An `OPTIONS` request with `Origin` and `Access-Control-Request-Method`: a browser asking before a request. */
  def isPreflight(request: ServerRequest): Boolean =
    request.method.name == "OPTIONS" && request.headerOrNull(HeaderNames.Origin) != null &&
      request.headerOrNull(HeaderNames.AccessControlRequestMethod) != null

  // The names in Access-Control-Request-Headers (a list, in one field or several), lower case as browsers send them.
  private def requestedHeaders(request: ServerRequest): List[String] =
    request
      .headerValues(HeaderNames.AccessControlRequestHeaders)
      .flatMap(_.split(','))
      .map(_.trim.toLowerCase(java.util.Locale.ROOT))
      .filter(_.nonEmpty)
      .distinct
