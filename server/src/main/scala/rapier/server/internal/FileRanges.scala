package rapier.server.internal

import rapier.model.{HeaderNames, HttpDate, Method, StatusCode}
import rapier.server.{Problem, ProblemRenderer, ServerResponse}
import rapier.server.spi.{ResponseStream, ServerRequest}

/**
 * Byte ranges of a file body (RFC 9110 §14), for resumed downloads and media players that seek. A GET whose `Range`
 * asks for one range of bytes gets that range, 206 with its `Content-Range`, still sent zero-copy from the file; a
 * range that holds none of its bytes (one starting past its end, `bytes=-0`) is a 416 whose `Content-Range` gives the
 * file's length. Every other case gets the whole file, 200, as the RFC lets a server answer: several ranges (a
 * `multipart/byteranges` body would be needed), an `If-Range` that doesn't hold (§13.1.5: a strong `ETag` or the
 * `Last-Modified` date of the response, exactly), a `Range` that can't be read, an empty file, another method. Every
 * file response says `Accept-Ranges: bytes` (written by the body's writer).
 */
private[server] object FileRanges:
  /** `response` with the range `request` asks for applied, if it asks for one of the file `response` sends. */
  def apply(request: ServerRequest, response: ServerResponse, render: ProblemRenderer): ServerResponse =
    response.stream match
      case file: ResponseStream.File if response.status == StatusCode.Ok.code && request.method == Method.GET =>
        val range = request.headerValues(HeaderNames.Range)
        if range.size != 1 || !ifRangeHolds(request, response) || file.length == 0 then response
        else
          parse(range.head, file.length) match
            case Whole => response
            case Unsatisfiable =>
              val refused = render(
                Problem(
                  StatusCode.RangeNotSatisfiable,
                  s"The range asked for holds no byte of the file, which has ${file.length}."
                )
              )
              refused.addHeader(HeaderNames.ContentRange, s"bytes */${file.length}")
              response.abandon()
              refused
            case Bytes(first, last) =>
              response.setStatus(StatusCode.PartialContent.code)
              response.setStream(ResponseStream.File(file.path, file.offset + first, last - first + 1))
              response.addHeader(HeaderNames.ContentRange, s"bytes $first-$last/${file.length}")
              response
      case _ => response

  /** Whether the request has no `If-Range`, or one naming the representation `response` sends (RFC 9110 §13.1.5). */
  private def ifRangeHolds(request: ServerRequest, response: ServerResponse): Boolean =
    request.headerOrNull(HeaderNames.IfRange) match
      case null => true
      case value: String =>
        val condition = value.trim
        if condition.startsWith("\"") then response.header(HeaderNames.ETag).contains(condition)
        else if condition.startsWith("W/") then false // a weak tag never allows a range
        else
          (HttpDate.parseOrNull(condition), response.header(HeaderNames.LastModified).map(HttpDate.parseOrNull)) match
            case (asked: java.time.Instant, Some(modified: java.time.Instant)) => asked == modified
            case _ => false

  /** What a `Range` value asks of a file of `length` bytes (more than none). */
  private sealed trait Asked
  private case object Whole extends Asked
  private case object Unsatisfiable extends Asked
  private final case class Bytes(first: Long, last: Long) extends Asked

  /**
   * `bytes=first-last`, `bytes=first-` or `bytes=-suffix` (RFC 9110 §14.1.2), the unit without case, spaces around the
   * range allowed; a last position past the end stands for the end, a suffix longer than the file for all of it, and
   * an empty suffix (`bytes=-0`) for nothing.
   */
  private def parse(value: String, length: Long): Asked =
    val eq = value.indexOf('=')
    if eq < 0 || !value.substring(0, eq).trim.equalsIgnoreCase("bytes") then Whole
    else
      val spec = value.substring(eq + 1).trim
      val dash = spec.indexOf('-')
      if dash < 0 || spec.indexOf(',') >= 0 then Whole
      else
        val first = digits(spec, 0, dash)
        val last = digits(spec, dash + 1, spec.length)
        if dash == 0 then
          if last < 0 then Whole
          else if last == 0 then Unsatisfiable
          else Bytes(math.max(0L, length - last), length - 1)
        else if first < 0 || (last < 0 && dash + 1 < spec.length) || (last >= 0 && last < first) then Whole
        else if first >= length then Unsatisfiable
        else Bytes(first, if last < 0 || last >= length then length - 1 else last)

  /**
   * The number the digits of `s` from `from` to `to` spell, saturating at `Long.MaxValue`; -1 if there are none or
   * anything else is there.
   */
  private def digits(s: String, from: Int, to: Int): Long =
    if from >= to then -1L
    else
      var n = 0L
      var i = from
      while i < to do
        val c = s.charAt(i)
        if c < '0' || c > '9' then return -1L
        n = if n > (Long.MaxValue - 9) / 10 then Long.MaxValue else n * 10 + (c - '0')
        i += 1
      n
