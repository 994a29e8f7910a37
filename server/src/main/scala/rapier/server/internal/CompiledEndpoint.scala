package rapier.server.internal

import rapier.*
import rapier.server.{Route, ServerEndpoint}

/**
 * Everything about an endpoint that does not depend on the request, computed once when the server starts: its
 * path shape and method for routing, its label for logs, and its compiled inputs and outputs.
 */
private[server] final class CompiledEndpoint[F[_]](
    val serverEndpoint: ServerEndpoint[F],
    val route: Route.ToEndpoint,
    val pathParts: List[PathPart],
    val method: Option[String],
    val security: InputPlan,
    val input: InputPlan,
    val output: OutputPlan,
    val errorOutput: OutputPlan,
    val challenges: List[String]
)

private[server] object CompiledEndpoint:
  /** Compiles an endpoint, or explains why it can't be served. */
  def compile[F[_]](
      se: ServerEndpoint[F],
      blocking: java.util.concurrent.Executor,
      files: TempFiles
  ): CompiledEndpoint[F] =
    val e = se.endpoint
    def refuse(why: String) = throw IllegalArgumentException(s"Endpoint ${e.show} can't be served: $why")

    val methods = Endpoint.methods(e.securityInput) ++ Endpoint.methods(e.input)
    if methods.distinct.size > 1 then refuse(s"it requires several methods (${methods.map(_.name).mkString(", ")})")

    val parts = Endpoint.pathParts(e.securityInput) ++ Endpoint.pathParts(e.input)
    val shape = parts.map {
      case EndpointInput.FixedPath(s, _) => PathPart.Fixed(s)
      case _: EndpointInput.PathCapture[?] => PathPart.Capture
      case _ => PathPart.Rest
    }
    if shape.dropRight(1).contains(PathPart.Rest) then refuse("the rest of the path (paths) must come last")

    val captures = InputPlan.Counter()
    val security =
      try InputPlan.compile(e.securityInput, captures, bodyAllowed = false, blocking, files)
      catch case ex: IllegalArgumentException => refuse(ex.getMessage)
    val input =
      try InputPlan.compile(e.input, captures, bodyAllowed = true, blocking, files)
      catch case ex: IllegalArgumentException => refuse(ex.getMessage)

    def outputs(o: EndpointOutput[?]) =
      try OutputPlan.compile(o, blocking)
      catch case ex: IllegalArgumentException => refuse(ex.getMessage)

    val method = methods.headOption.map(_.name)
    val output = outputs(e.output)
    val errorOutput = outputs(e.errorOutput)
    if errorOutput.webSocket != null then refuse("a WebSocket is an answer of the logic's success, not of its errors")
    if output.webSocket != null then
      if method != Some("GET") then refuse("a WebSocket is opened by a GET: `endpoint.get`")
      if input.hasBody then refuse("a WebSocket's request has no body to read")
    val label = s"${method.getOrElse("*")} ${e.pathTemplate}"
    new CompiledEndpoint(
      se,
      Route.ToEndpoint(e, label),
      shape,
      method,
      security,
      input,
      output,
      errorOutput,
      (Endpoint.authSchemes(e.securityInput) ++ Endpoint.authSchemes(e.input)).map(_.challenge).distinct
    )
