package rapier

/** What documentation says about an endpoint as a whole. */
final case class EndpointInfo(
    name: Option[String] = None,
    summary: Option[String] = None,
    description: Option[String] = None,
    tags: List[String] = Nil,
    deprecated: Boolean = false
)

object EndpointInfo:
  val empty: EndpointInfo = EndpointInfo()
