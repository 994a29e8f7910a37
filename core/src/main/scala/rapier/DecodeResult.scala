package rapier

/**
 * The outcome of decoding a raw value: the value, or precisely what was wrong with the input.
 *
 * A small sealed ADT rather than `Either[String, T]`: the interpreter matches on it without allocating, and each
 * failure says enough to build a clear message — without ever carrying the raw input itself, so an error response
 * can't echo what the client sent.
 */
sealed trait DecodeResult[+T]:
  def map[U](f: T => U): DecodeResult[U] = this match
    case DecodeResult.Value(v) => DecodeResult.Value(f(v))
    case failure: DecodeResult.Failure => failure

  def flatMap[U](f: T => DecodeResult[U]): DecodeResult[U] = this match
    case DecodeResult.Value(v) => f(v)
    case failure: DecodeResult.Failure => failure

  def toOption: Option[T] = this match
    case DecodeResult.Value(v) => Some(v)
    case _ => None

object DecodeResult:
  /** Decoded. */
  final case class Value[+T](value: T) extends DecodeResult[T]

  /** Not decoded; `describe` completes a sentence about the input ("query parameter 'limit' " + describe). */
  sealed trait Failure extends DecodeResult[Nothing]:
    def describe: String

  /** The input is absent. */
  case object Missing extends Failure:
    def describe = "is missing"

  /** The input occurs `count` times where one was expected. */
  final case class Multiple(count: Int) extends Failure:
    def describe = s"is given $count times, but only once is allowed"

  /**
   * The input is present but has the wrong form; `expected` says what form ("an integer", "a UUID"). The cause, if
   * any, is for logs only.
   */
  final case class Error(expected: String, cause: Option[Throwable] = None) extends Failure:
    def describe = s"is invalid: expected $expected"

  /** The input must have one fixed value and has another, e.g. a fixed header. */
  final case class Mismatch(expected: String) extends Failure:
    def describe = s"does not match: expected $expected"

  /**
   * The input is not well-formed, e.g. a JSON body with a syntax error: `reason` says what the parser expected,
   * `position` where (in bytes from the start, when known), and `path` in which of the value's parts, in the type's own
   * names (`lines`, `[1]`, `quantity`; empty for the whole value or when unknown). None of them ever quotes the input.
   */
  final case class Malformed(reason: String, position: Option[Long] = None, path: List[String] = Nil) extends Failure:
    def describe =
      val where = if path.isEmpty then "" else s" in ${ValidationError.render(path)}"
      s"is malformed$where: $reason${position.fold("")(p => s" at byte $p")}"

  /** The input is larger than the server accepts (a part of a multipart body, say): answered with 413. */
  final case class TooLarge(limit: Long) extends Failure:
    def describe = s"is larger than the limit of $limit bytes"

  /** The input decoded, but breaks validation rules; every broken rule is listed. */
  final case class InvalidValue(errors: List[ValidationError]) extends Failure:
    def describe = errors.map(_.message).mkString("is invalid: ", "; ", "")

  /**
   * A failure as validation errors, so that the failures of a structure's parts (a form's fields, a multipart body's
   * parts) can be reported together, each under its path: `required`, `single`, `format`, … as the rule.
   */
  def asValidationErrors(failure: Failure): List[ValidationError] = failure match
    case InvalidValue(errors) => errors
    case Missing => List(ValidationError("required", "present"))
    case Multiple(_) => List(ValidationError("single", "given once"))
    case Error(expected, _) => List(ValidationError("format", expected))
    case Mismatch(expected) => List(ValidationError("const", expected))
    case Malformed(reason, _, path) => List(ValidationError("syntax", reason, path))
    case TooLarge(limit) => List(ValidationError("maxSize", s"at most $limit bytes"))

  /** Adds a field's failure, if it failed, to `errors` under the field's name; returns the result as it is. */
  def collectInto[T](
      result: DecodeResult[T],
      field: String,
      errors: scala.collection.mutable.Builder[ValidationError, ?]
  ): DecodeResult[T] =
    result match
      case failure: Failure => errors ++= asValidationErrors(failure).map(_.prependPath(field))
      case _ =>
    result

  /** `Value` when present, `Missing` otherwise. */
  def fromOption[T](o: Option[T]): DecodeResult[T] = o match
    case Some(v) => Value(v)
    case None => Missing

  /** Runs `f`, turning an exception into `Error(expected)`: for wrapping parsers that throw. */
  inline def attempt[T](expected: String)(inline f: T): DecodeResult[T] =
    try Value(f)
    catch case scala.util.control.NonFatal(e) => Error(expected, Some(e))

  /** All values, or the first failure. */
  def sequence[T](results: List[DecodeResult[T]]): DecodeResult[List[T]] =
    val values = List.newBuilder[T]
    val it = results.iterator
    while it.hasNext do
      it.next() match
        case Value(v) => values += v
        case failure: Failure => return failure
    Value(values.result())
