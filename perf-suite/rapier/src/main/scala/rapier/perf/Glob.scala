package rapier.perf

/**
 * Shell-like patterns for server and scenario names: `*` any run of characters (dots included), `?` one character,
 * everything else literal.
 */
object Glob:
  def matches(pattern: String, name: String): Boolean = regex(pattern).matches(name)

  private def regex(pattern: String): scala.util.matching.Regex =
    pattern.map {
      case '*' => ".*"
      case '?' => "."
      case c if "\\^$.|+()[]{}".contains(c) => s"\\$c"
      case c => c.toString
    }.mkString.r
