package rapier

import rapier.model.Method

/**
 * An HTTP endpoint, described as a value: what it reads from a request and what it writes to a response.
 *
 * Build one from [[rapier.endpoint]] with `in`, `out`, `errorOut` and `securityIn`; each returns a new endpoint whose
 * type tracks the values involved. An endpoint does nothing by itself: a server interpreter serves it (with logic
 * attached), a documentation interpreter documents it.
 *
 * @tparam S
 *   the value of the security inputs, passed to the security logic before anything else is decoded
 * @tparam I
 *   the value of the other inputs
 * @tparam E
 *   the value written when the logic fails
 * @tparam O
 *   the value written when the logic succeeds
 */
final case class Endpoint[S, I, E, O](
    securityInput: EndpointInput[S],
    input: EndpointInput[I],
    errorOutput: EndpointOutput[E],
    output: EndpointOutput[O],
    info: EndpointInfo
):
  /** Reads `next` as well; its value combines with the input value (see [[Combine]]). */
  def in[J](next: EndpointInput[J])(using c: Combine[I, J]): Endpoint[S, c.Out, E, O] =
    Endpoint(securityInput, input.and(next), errorOutput, output, info)

  /** Adds a fixed path segment. */
  def in(segment: String)(using c: Combine[I, Unit]): Endpoint[S, c.Out, E, O] = in(EndpointInput.FixedPath(segment))

  /** Reads `next` as a security input: decoded and checked by the security logic before the other inputs. */
  def securityIn[J](next: EndpointInput[J])(using c: Combine[S, J]): Endpoint[c.Out, I, E, O] =
    Endpoint(securityInput.and(next), input, errorOutput, output, info)

  /** Adds a fixed path segment to the security inputs (they come first in the path). */
  def securityIn(segment: String)(using c: Combine[S, Unit]): Endpoint[c.Out, I, E, O] =
    securityIn(EndpointInput.FixedPath(segment))

  /** Writes `next` as well when the logic succeeds. */
  def out[P](next: EndpointOutput[P])(using c: Combine[O, P]): Endpoint[S, I, E, c.Out] =
    Endpoint(securityInput, input, errorOutput, output.and(next), info)

  /** Writes `next` as well when the logic fails. */
  def errorOut[F](next: EndpointOutput[F])(using c: Combine[E, F]): Endpoint[S, I, c.Out, O] =
    Endpoint(securityInput, input, errorOutput.and(next), output, info)

  /**
   * The request must use this method. The method carries no value, so the input's value is unchanged; its arity
   * is left for the compiler of the endpoint to read from the input's structure (-1).
   */
  def method(m: Method): Endpoint[S, I, E, O] =
    copy(input = EndpointInput.Pair[I, Unit, I](input, EndpointInput.FixedMethod(m), -1, 0))

  def get: Endpoint[S, I, E, O] = method(Method.GET)
  def post: Endpoint[S, I, E, O] = method(Method.POST)
  def put: Endpoint[S, I, E, O] = method(Method.PUT)
  def delete: Endpoint[S, I, E, O] = method(Method.DELETE)
  def patch: Endpoint[S, I, E, O] = method(Method.PATCH)
  def head: Endpoint[S, I, E, O] = method(Method.HEAD)
  def options: Endpoint[S, I, E, O] = method(Method.OPTIONS)

  def name(n: String): Endpoint[S, I, E, O] = copy(info = info.copy(name = Some(n)))
  def summary(s: String): Endpoint[S, I, E, O] = copy(info = info.copy(summary = Some(s)))
  def description(d: String): Endpoint[S, I, E, O] = copy(info = info.copy(description = Some(d)))
  def tag(t: String): Endpoint[S, I, E, O] = copy(info = info.copy(tags = info.tags :+ t))
  def tags(ts: List[String]): Endpoint[S, I, E, O] = copy(info = info.copy(tags = info.tags ++ ts))
  def deprecated: Endpoint[S, I, E, O] = copy(info = info.copy(deprecated = true))

  /** The method this endpoint requires, if any. */
  def httpMethod: Option[Method] = Endpoint.methodOf(securityInput).orElse(Endpoint.methodOf(input))

  /**
   * The path as a template: `/books/{id}`; captures without a name show as `{param1}`, the rest of the path as
   * `{paths*}`.
   */
  def pathTemplate: String =
    val parts = Endpoint.pathParts(securityInput) ++ Endpoint.pathParts(input)
    var unnamed = 0
    parts
      .map {
        case EndpointInput.FixedPath(s, _) => s
        case EndpointInput.PathCapture(n, _, _, _) =>
          if n.nonEmpty then s"{$n}"
          else
            unnamed += 1
            s"{param$unnamed}"
        case _ => "{paths*}"
      }
      .mkString("/", "/", "")

  /** `GET /books/{id}`, or `* /books/{id}` for any method; the endpoint's name follows in brackets if it has one. */
  def show: String =
    s"${httpMethod.fold("*")(_.name)} $pathTemplate${info.name.fold("")(n => s" [$n]")}"

  override def toString: String = s"Endpoint($show)"

object Endpoint:
  /** The path inputs of an input tree, in order. */
  def pathParts(input: EndpointInput[?]): List[EndpointInput.Basic[?]] = IOTree.ofInput(input).leaves.collect {
    case p: (EndpointInput.FixedPath | EndpointInput.PathCapture[?] | EndpointInput.PathsCapture[?]) => p
  }

  /** The methods required by an input tree (normally none or one). */
  def methods(input: EndpointInput[?]): List[Method] =
    IOTree.ofInput(input).leaves.collect { case EndpointInput.FixedMethod(m) => m }

  /** The authentication schemes an input tree reads, in order. */
  def authSchemes(input: EndpointInput[?]): List[AuthScheme] = IOTree.ofInput(input).leaves.flatMap {
    case EndpointInput.Auth(scheme, _, _) => List(scheme)
    case EndpointInput.AuthAlternatives(alternatives, _) => alternatives.map(_.scheme)
    case _ => Nil
  }

  private def methodOf(input: EndpointInput[?]): Option[Method] = methods(input).headOption

/** An endpoint of any types, for lists of endpoints of different shapes (documentation, clients). */
type AnyEndpoint = Endpoint[?, ?, ?, ?]
