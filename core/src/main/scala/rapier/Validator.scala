package rapier

import java.util.regex.Pattern as JPattern

/**
 * Rules a decoded value must satisfy. Validators are data: the interpreter runs them, and documentation renders
 * them (`Min` becomes `minimum`, `Pattern` becomes `pattern`, …).
 *
 * Running a validator reports every broken rule, not only the first.
 */
sealed trait Validator[T]:
  /** The rules `value` breaks; empty when it is valid. */
  def apply(value: T): List[ValidationError]

  /** Both this and `other`. */
  def and(other: Validator[T]): Validator[T] = (this, other) match
    case (Validator.Pass(), v) => v
    case (v, Validator.Pass()) => v
    case (Validator.All(a), Validator.All(b)) => Validator.All(a ++ b)
    case (Validator.All(a), v) => Validator.All(a :+ v)
    case (v, Validator.All(b)) => Validator.All(v :: b)
    case (a, b) => Validator.All(List(a, b))

  /** This validator applied to what `f` extracts from a `U`. */
  def contramap[U](f: U => T): Validator[U] = this match
    case Validator.Pass() => Validator.Pass()
    case _ => Validator.Contramapped(this, f)

  /**
   * This validator for an optional value: a present value must satisfy it, an absent one is fine. Unlike
   * `contramap`, documentation still shows the rules: `query[Option[Int]]("limit").validate(Validator.min(1).forOption)`
   * documents `minimum: 1`.
   */
  def forOption: Validator[Option[T]] = this match
    case Validator.Pass() => Validator.Pass()
    case _ => Validator.ForOption(this)

  /** This validator for every element of a collection; documentation shows the rules on the elements. */
  def forEach[C <: Iterable[T]]: Validator[C] = this match
    case Validator.Pass() => Validator.Pass()
    case _ => Validator.ForEach(this)

  /**
   * Whether some value can break this validator; false for `pass`, and for an enumeration of every value of its
   * type (a derived enum's schema lists its cases for documentation, but a decoded value is always one of them).
   */
  def canFail: Boolean = this match
    case Validator.Pass() => false
    case e: Validator.Enumeration[?] => !e.exhaustive
    case Validator.All(vs) => vs.exists(_.canFail)
    case Validator.Contramapped(inner, _) => inner.canFail
    case Validator.ForOption(inner) => inner.canFail
    case Validator.ForEach(inner) => inner.canFail
    case _ => true

  /** Whether this validator accepts everything, so running it can be skipped. */
  def isPass: Boolean = this match
    case Validator.Pass() => true
    case _ => false

object Validator:
  /** A single rule. */
  sealed trait Primitive[T] extends Validator[T]:
    def rule: String
    def expected: String
    def check(value: T): Boolean
    final def apply(value: T): List[ValidationError] =
      if check(value) then Nil else ValidationError(rule, expected) :: Nil

  final case class Pass[T]() extends Validator[T]:
    def apply(value: T): List[ValidationError] = Nil

  final case class Min[T](value: T, exclusive: Boolean)(using num: Numeric[T]) extends Primitive[T]:
    def rule = if exclusive then "exclusiveMinimum" else "minimum"
    def expected = if exclusive then s"greater than $value" else s"at least $value"
    def check(v: T) = if exclusive then num.gt(v, value) else num.gteq(v, value)

  final case class Max[T](value: T, exclusive: Boolean)(using num: Numeric[T]) extends Primitive[T]:
    def rule = if exclusive then "exclusiveMaximum" else "maximum"
    def expected = if exclusive then s"less than $value" else s"at most $value"
    def check(v: T) = if exclusive then num.lt(v, value) else num.lteq(v, value)

  /** A minimum length in characters (Unicode code points). */
  final case class MinLength(value: Int) extends Primitive[String]:
    def rule = "minLength"
    def expected = s"at least $value character${if value == 1 then "" else "s"} long"
    def check(v: String) = v.codePointCount(0, v.length) >= value

  /** A maximum length in characters (Unicode code points). */
  final case class MaxLength(value: Int) extends Primitive[String]:
    def rule = "maxLength"
    def expected = s"at most $value character${if value == 1 then "" else "s"} long"
    def check(v: String) = v.codePointCount(0, v.length) <= value

  /** The whole string matches a regular expression. */
  final case class Pattern(regex: String) extends Primitive[String]:
    private val compiled = JPattern.compile(regex)
    def rule = "pattern"
    def expected = s"matching the pattern $regex"
    def check(v: String) = compiled.matcher(v).matches()

  /** A minimum number of elements. */
  final case class MinSize[C <: Iterable[?]](value: Int) extends Primitive[C]:
    def rule = "minItems"
    def expected = s"at least $value item${if value == 1 then "" else "s"}"
    def check(v: C) = v.sizeCompare(value) >= 0

  /** A maximum number of elements. */
  final case class MaxSize[C <: Iterable[?]](value: Int) extends Primitive[C]:
    def rule = "maxItems"
    def expected = s"at most $value item${if value == 1 then "" else "s"}"
    def check(v: C) = v.sizeCompare(value) <= 0

  /** One of a fixed set of values; `render` shows them in messages and documentation. */
  final case class Enumeration[T](values: List[T], render: T => String, exhaustive: Boolean = false)
      extends Primitive[T]:
    private val allowed = values.toSet
    def rule = "enum"
    def expected = values.map(render).mkString("one of: ", ", ", "")
    def check(v: T) = allowed.contains(v)

  /** A rule given as a function; `expected` describes it for messages and documentation. */
  final case class Custom[T](expected: String, predicate: T => Boolean) extends Primitive[T]:
    def rule = "custom"
    def check(v: T) = predicate(v)

  final case class All[T](validators: List[Validator[T]]) extends Validator[T]:
    def apply(value: T): List[ValidationError] = validators.flatMap(_(value))

  final case class Contramapped[T, U](inner: Validator[T], f: U => T) extends Validator[U]:
    def apply(value: U): List[ValidationError] = inner(f(value))

  /** `inner` for the value of an `Option`, when there is one. */
  final case class ForOption[T](inner: Validator[T]) extends Validator[Option[T]]:
    def apply(value: Option[T]): List[ValidationError] = value match
      case Some(v) => inner(v)
      case None => Nil

  /** `inner` for each element of a collection; a broken rule's path names the element's index. */
  final case class ForEach[T, C <: Iterable[T]](inner: Validator[T]) extends Validator[C]:
    def apply(value: C): List[ValidationError] = ValidationError.atEachIndex(value.iterator)(inner(_))

  def pass[T]: Validator[T] = Pass()
  def min[T: Numeric](value: T, exclusive: Boolean = false): Validator[T] = Min(value, exclusive)
  def max[T: Numeric](value: T, exclusive: Boolean = false): Validator[T] = Max(value, exclusive)
  def inRange[T: Numeric](min: T, max: T): Validator[T] = Min(min, false).and(Max(max, false))
  def positive[T](using num: Numeric[T]): Validator[T] = Min(num.zero, exclusive = true)
  def nonNegative[T](using num: Numeric[T]): Validator[T] = Min(num.zero, exclusive = false)
  def minLength(value: Int): Validator[String] = MinLength(value)
  def maxLength(value: Int): Validator[String] = MaxLength(value)
  def nonEmptyString: Validator[String] = MinLength(1)
  def pattern(regex: String): Validator[String] = Pattern(regex)
  def minSize[C <: Iterable[?]](value: Int): Validator[C] = MinSize(value)
  def maxSize[C <: Iterable[?]](value: Int): Validator[C] = MaxSize(value)
  def enumeration[T](values: List[T], render: T => String = (t: T) => t.toString): Validator[T] =
    Enumeration(values, render)
  def custom[T](expected: String)(predicate: T => Boolean): Validator[T] = Custom(expected, predicate)
