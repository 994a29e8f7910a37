package rapier

/**
 * A validation rule a value breaks. `rule` names the rule (`minimum`, `maxLength`, `pattern`, `required`, …),
 * `expected` states what it requires, `path` locates the value inside a structure: field names and `[index]`
 * segments, as in `items`, `[2]`, `price`; empty for a plain value. The value itself is never kept: messages built
 * from this can be sent to a client safely.
 */
final case class ValidationError(rule: String, expected: String, path: List[String] = Nil):
  def message: String =
    if path.isEmpty then s"must be $expected" else s"$pathString must be $expected"

  /** The path as written in messages and reports: `items[2].price`; empty for a plain value. */
  def pathString: String = ValidationError.render(path)

  /** The same error, one level deeper in a structure: under a field name or an `[index]` segment. */
  def prependPath(segment: String): ValidationError = copy(path = segment :: path)

object ValidationError:
  /** The path segment of the element at `index` of a sequence. */
  def index(i: Int): String = s"[$i]"

  /** What `check` finds in each of `values`, each error's path starting with the value's `[index]`. */
  def atEachIndex[A](values: Iterator[A])(check: A => List[ValidationError]): List[ValidationError] =
    values.zipWithIndex.flatMap((v, i) => check(v).map(_.prependPath(index(i)))).toList

  /** `items`, `[2]`, `price` as `items[2].price`. */
  def render(path: List[String]): String =
    val b = new StringBuilder
    path.foreach { segment =>
      if b.nonEmpty && !segment.startsWith("[") then b.append('.')
      b.append(segment)
    }
    b.toString

  /** `prefix` followed by `path`: `body` and `items[2]` as `body.items[2]`. */
  def render(prefix: String, path: List[String]): String =
    if path.isEmpty then prefix
    else if prefix.isEmpty then render(path)
    else if path.head.startsWith("[") then prefix + render(path)
    else s"$prefix.${render(path)}"
