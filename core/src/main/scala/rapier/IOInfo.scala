package rapier

/** What documentation says about one input or output. */
final case class IOInfo(
    description: Option[String] = None,
    example: Option[String] = None,
    deprecated: Boolean = false
):
  def description(d: String): IOInfo = copy(description = Some(d))
  def example(e: String): IOInfo = copy(example = Some(e))
  def deprecate: IOInfo = copy(deprecated = true)

object IOInfo:
  val empty: IOInfo = IOInfo()
