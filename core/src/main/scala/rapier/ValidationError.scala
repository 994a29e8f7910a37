package rapier

/**
 * A validation rule a value breaks. `rule` names the rule (`minimum`, `maxLength`, `pattern`, …), `expected` states
 * what it requires, `path` locates the value inside a structure (`items`, `2`, `price`), empty for a plain value.
 * The value itself is never kept: messages built from this can be sent to a client safely.
 */
final case class ValidationError(rule: String, expected: String, path: List[String] = Nil):
  def message: String =
    if path.isEmpty then s"must be $expected" else s"${path.mkString(".")} must be $expected"

  /** The same error, one level deeper in a structure. */
  def prependPath(segment: String): ValidationError = copy(path = segment :: path)
