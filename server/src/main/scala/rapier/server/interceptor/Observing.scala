package rapier.server.interceptor

import rapier.model.{HeaderNames, Method}
import rapier.server.internal.RequestTarget
import rapier.server.spi.ServerRequest
import rapier.server.{Handler, Monad, Route, ServerResponse}

/**
 * What metrics and tracing interceptors read of a request and its answer, named as OpenTelemetry's HTTP conventions
 * name them, and never taken raw from what a client sends: a route is its endpoint's template, a method outside
 * RFC 9110's is `_OTHER`.
 */
object Observing:
  /** The method labels: RFC 9110's methods, then `_OTHER` for every other. */
  val methods: IndexedSeq[String] =
    Vector("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "_OTHER")

  /** The path template of the endpoint `route` leads to (`/books/{id}`), or null when no endpoint took the request. */
  def template(route: Route): String | Null = route match
    case Route.ToEndpoint(endpoint, _) => endpoint.pathTemplate
    case Route.Rejected => null

  /** The method's name if RFC 9110 defines it, `_OTHER` otherwise. */
  def method(m: Method): String = methods(methodIndex(m))

  /** The index of the method's label in [[methods]]. */
  def methodIndex(m: Method): Int =
    val name = m.name
    var i = 0
    while i < methods.length - 1 && methods(i) != name do i += 1
    i

  /** The request's path, still percent-encoded, without its query (or the scheme and authority of an absolute form). */
  def path(request: ServerRequest): String =
    val uri = request.uri
    val start = RequestTarget.pathStart(uri)
    if start < 0 then uri else uri.substring(start, RequestTarget.pathEnd(uri, start))

  /** The protocol's version as OpenTelemetry names it: `1.1`, `1.0`, `2` (not `2.0`). */
  def protocolVersion(protocol: String): String =
    val version = protocol.stripPrefix("HTTP/")
    if version == "2.0" then "2" else version

  /** The request body's length as `Content-Length` declares it, or -1. */
  def declaredBodySize(request: ServerRequest): Long =
    request.headerOrNull(HeaderNames.ContentLength) match
      case null => -1L
      case v: String => v.trim.toLongOption.filter(_ >= 0).getOrElse(-1L)

  /** The answer's body length when known before it is sent, or -1 (a stream of unknown length, a WebSocket). */
  def bodySize(r: ServerResponse): Long =
    val bytes = r.body
    if bytes != null then bytes.nn.length.toLong
    else
      r.stream match
        case null => if r.webSocket == null then 0L else -1L
        case s => s.nn.length

  /**
   * `next(request)`, with `done` called once it is answered: with the status and the known body size; when it failed,
   * with the 500 the server answers instead, -1 and the failure; when it was cancelled (an effect's fiber, its client
   * gone), with 499, -1 and a `CancellationException`: the runner reports it (`ServerRequest.whenCancelled`) once the
   * effect has stopped, which costs the effect no step of its own.
   */
  def answered[F[_]](next: Handler[F], request: ServerRequest)(done: (Int, Long, Throwable | Null) => Unit)(using
      m: Monad[F]
  ): F[ServerResponse] =
    val once = Once(done)
    val cancelled = () => once(499, -1L, Cancelled)
    val result =
      try
        m.recover(
          m.map(next(request)) { r =>
            once(r.status, bodySize(r), null)
            r
          }
        ) { e =>
          once(500, -1L, e)
          m.error(e)
        }
      catch
        // Direct style: a client gone interrupts the logic's thread, and the interrupt passes `recover`
        case e: InterruptedException =>
          cancelled()
          throw e
    // A cancelled effect (its client gone) is the runner's to report, once it has stopped
    if !once.called then request.whenCancelled(cancelled)
    result

  /** What a request cancelled before its answer failed with: one, stackless, its stack being no one's. */
  private object Cancelled extends java.util.concurrent.CancellationException("cancelled before its answer"):
    override def fillInStackTrace(): Throwable = this

  /** `done`, called at most once, whichever of the answer, the failure and the cancellation comes first. */
  private final class Once(done: (Int, Long, Throwable | Null) => Unit)
      extends java.util.concurrent.atomic.AtomicBoolean:
    def called: Boolean = get
    def apply(status: Int, size: Long, failure: Throwable | Null): Unit =
      if compareAndSet(false, true) then done(status, size, failure)
