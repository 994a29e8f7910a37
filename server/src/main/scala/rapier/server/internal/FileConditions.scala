package rapier.server.internal

import rapier.model.{HeaderNames, HttpDate, Method, StatusCode}
import rapier.server.files.{Conditions, Preconditions}
import rapier.server.spi.{ResponseStream, ServerRequest}
import rapier.server.{Problem, ProblemRenderer, ServerResponse}

/**
 * A file body's conditional requests (RFC 9110 §13), as static files have them: a GET or HEAD whose `If-None-Match`
 * or `If-Modified-Since` finds the client's copy current gets a 304 without the file; one whose `If-Match` or
 * `If-Unmodified-Since` fails gets a 412. Judged against the response's own `ETag` and `Last-Modified`, which a
 * `fileBody` output sets from the file unless the endpoint set its own.
 */
private[server] object FileConditions:
  /** Whether `request` asks anything of the file's validators. */
  def asked(request: ServerRequest): Boolean =
    request.headerOrNull(HeaderNames.IfNoneMatch) != null ||
      request.headerOrNull(HeaderNames.IfModifiedSince) != null ||
      request.headerOrNull(HeaderNames.IfMatch) != null || request.headerOrNull(HeaderNames.IfUnmodifiedSince) != null

  /** `response`, or the 304 or 412 its request's conditions decide instead. */
  def apply(request: ServerRequest, response: ServerResponse, render: ProblemRenderer): ServerResponse =
    response.stream match
      case _: ResponseStream.File
          if response.status == StatusCode.Ok.code && (request.method == Method.GET || request.method == Method.HEAD) =>
        response.header(HeaderNames.ETag) match
          case None => response
          case Some(etag) =>
            val modified = response.header(HeaderNames.LastModified).map(HttpDate.parseOrNull).orNull
            val conditions = Conditions(
              slashed = false,
              ifMatch = request.headerValues(HeaderNames.IfMatch),
              ifNoneMatch = request.headerValues(HeaderNames.IfNoneMatch),
              ifModifiedSince = request.headerOrNull(HeaderNames.IfModifiedSince),
              ifUnmodifiedSince = request.headerOrNull(HeaderNames.IfUnmodifiedSince),
              acceptEncoding = Nil
            )
            Preconditions.evaluate(conditions, etag, modified) match
              case Preconditions.Outcome.Proceed => response
              case Preconditions.Outcome.NotModified =>
                response.abandon()
                ServerResponse(StatusCode.NotModified, response.headers.filter(h => Kept.exists(h.is)))
              case Preconditions.Outcome.Failed =>
                response.abandon()
                render(Problem(StatusCode.PreconditionFailed, FailedDetail))
      case _ => response

  // What a 304 says of the representation it stands for (RFC 9110 §15.4.5)
  private val Kept = List(
    HeaderNames.ETag,
    HeaderNames.LastModified,
    HeaderNames.CacheControl,
    HeaderNames.Vary,
    "Expires",
    "Content-Location"
  )

  private val FailedDetail = "The file does not meet the request's If-Match or If-Unmodified-Since."
