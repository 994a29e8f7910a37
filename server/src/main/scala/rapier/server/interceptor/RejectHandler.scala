package rapier.server.interceptor

import rapier.model.{Header, HeaderNames, StatusCode}
import rapier.server.{Problem, ProblemRenderer, Rejection, ServerResponse}

/**
 * Answers a request no endpoint takes. The default: 404, or 405 with an `Allow` header listing the methods the
 * path accepts, or 400 for a request target that is not a path, each rendered as a [[Problem]]; and `OPTIONS *` with
 * an empty 200 whose `Allow` header lists the methods the server's endpoints accept.
 */
trait RejectHandler:
  def apply(rejection: Rejection, render: ProblemRenderer): ServerResponse

object RejectHandler:
  val default: RejectHandler = (rejection, render) =>
    rejection match
      case Rejection.NotFound => render(Problem(StatusCode.NotFound, "No endpoint serves this path."))
      case Rejection.MethodNotAllowed(allowed) =>
        val methods = allowed.map(_.name).mkString(", ")
        render(
          Problem(
            StatusCode.MethodNotAllowed,
            s"This path accepts only $methods.",
            headers = List(Header(HeaderNames.Allow, methods))
          )
        )
      case Rejection.InvalidTarget =>
        render(Problem(StatusCode.BadRequest, "The request target is not a path (origin or absolute form)."))
      case Rejection.ServerWide(allowed) =>
        ServerResponse(StatusCode.Ok, List(Header(HeaderNames.Allow, allowed.map(_.name).mkString(", "))))
