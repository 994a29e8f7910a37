package rapier

import rapier.model.StatusCode

/**
 * One variant of a `oneOf` output: an output, the status code it sends (if it sets one), and which values it
 * writes.
 */
final case class OneOfVariant[T](
    output: EndpointOutput[T],
    statusCode: Option[StatusCode],
    appliesTo: Any => Boolean,
    description: Option[String] = None
):
  def description(d: String): OneOfVariant[T] = copy(description = Some(d))
