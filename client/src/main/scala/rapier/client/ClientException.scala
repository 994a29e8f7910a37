package rapier.client

import rapier.server.Problem

/**
 * A response that is neither the endpoint's output nor its error output. A call fails with one (in its effect);
 * the endpoint's own errors are never exceptions, but the `Left` of its result.
 */
sealed abstract class ClientException(message: String) extends RuntimeException(message)

object ClientException:
  /**
   * The server answered with an RFC 9457 problem (`application/problem+json`) rather than one of the endpoint's
   * outputs: what a Rapier server answers a request it refuses before the logic runs (400 with each input that failed,
   * 401, 404, 413, 415, …) or a failure of its own (500, with the id its log gives the request).
   */
  final case class ProblemAnswer(problem: Problem)
      extends ClientException(
        s"${problem.status.code} ${problem.titleOrReason}: ${problem.detail}" +
          problem.errors.map(e => s"\n  ${e.location}: ${e.message}").mkString
      )

  /**
   * An input's value the client won't send as it is: a path parameter of `.`, `..` or nothing, which would move the
   * call to another path (RFC 3986 §5.2.4 removes dot segments; an empty one changes the path's shape). The request is
   * not made.
   */
  final case class InvalidInput(input: String, detail: String)
      extends ClientException(s"$input can't be sent as it is: $detail")

  /**
   * The response's body is longer than [[ClientOptions.maxResponseSize]], for a body the call reads whole; it was
   * read no further.
   */
  final case class ResponseTooLarge(status: Int, limit: Long)
      extends ClientException(s"the $status response's body is longer than the $limit bytes a call reads whole")

  /** The response could not be read as the endpoint's output or error output: which, and why. */
  final case class UndecodableResponse(status: Int, detail: String)
      extends ClientException(s"a $status response the endpoint can't read: $detail")

  /**
   * The server answered a WebSocket's handshake with `status` rather than 101: a credential refused (401), an input
   * that failed (400), an origin not allowed (403). The JDK's WebSocket client does not read that answer's body.
   */
  final case class WebSocketRefused(status: Int)
      extends ClientException(s"the server refused to open the WebSocket: $status")

  /** The server closed the WebSocket with `code` other than a normal closure (1000), for `reason`. */
  final case class WebSocketClosed(code: Int, reason: String)
      extends ClientException(s"the WebSocket was closed with $code${if reason.isEmpty then "" else s": $reason"}")

  /** A message of the server's that the endpoint's codec can't read; the WebSocket is closed with 1007. */
  final case class UndecodableMessage(detail: String)
      extends ClientException(s"a WebSocket message the endpoint can't read: $detail")
