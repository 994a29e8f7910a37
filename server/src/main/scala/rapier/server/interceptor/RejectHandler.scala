package rapier.server.interceptor

import rapier.model.{Header, HeaderNames, StatusCode}
import rapier.server.{Rejection, ServerResponse}

/**
 * Answers a request no endpoint takes. The default: 404, or 405 with an `Allow` header listing the methods the
 * path accepts, or 400 for a request target that is not a path.
 */
trait RejectHandler:
  def apply(rejection: Rejection): ServerResponse

object RejectHandler:
  val default: RejectHandler =
    case Rejection.NotFound => ServerResponse.text(StatusCode.NotFound, "Not Found")
    case Rejection.MethodNotAllowed(allowed) =>
      ServerResponse.text(
        StatusCode.MethodNotAllowed,
        "Method Not Allowed",
        Header(HeaderNames.Allow, allowed.map(_.name).mkString(", "))
      )
    case Rejection.InvalidTarget => ServerResponse.text(StatusCode.BadRequest, "Invalid request target")
