package rapier

import java.time.*
import java.util.UUID

/**
 * The shape of a value, for documentation and validation: its type (`SchemaType`), whether it may be absent, a
 * format hint (`int32`, `uuid`, `date-time`), a description, and the validator its values must satisfy.
 *
 * @tparam T
 *   the Scala type described; it ties the validator to the values it checks
 */
final case class Schema[T](
    schemaType: SchemaType,
    isOptional: Boolean = false,
    format: Option[String] = None,
    description: Option[String] = None,
    encodedExample: Option[String] = None,
    name: Option[Schema.Name] = None,
    deprecated: Boolean = false,
    validator: Validator[T] = Validator.pass[T]
):
  def validate(v: Validator[T]): Schema[T] = copy(validator = validator.and(v))
  def description(d: String): Schema[T] = copy(description = Some(d))
  def format(f: String): Schema[T] = copy(format = Some(f))
  def encodedExample(e: String): Schema[T] = copy(encodedExample = Some(e))
  def name(n: Schema.Name): Schema[T] = copy(name = Some(n))
  def deprecated(d: Boolean = true): Schema[T] = copy(deprecated = d)

  /** The schema of a value that may be absent. */
  def asOption: Schema[Option[T]] =
    Schema(SchemaType.SOption(this), isOptional = true, validator = Validator.pass)

  /** The schema of a collection of such values. */
  def asIterable[C <: Iterable[T]]: Schema[C] = Schema(SchemaType.SArray(this))

  /**
   * The same shape describing another type, e.g. after a codec's `map`; validators of `T` are dropped, since they
   * can't check a `U`.
   */
  def as[U]: Schema[U] = Schema[U](schemaType, isOptional, format, description, encodedExample, name, deprecated)

object Schema:
  /** A named schema, e.g. for a case class: documentation refers to it by name. */
  final case class Name(fullName: String, typeParameters: List[String] = Nil):
    def shortName: String = fullName.substring(fullName.lastIndexOf('.') + 1)

  def string[T]: Schema[T] = Schema(SchemaType.SString)
  def binary[T]: Schema[T] = Schema(SchemaType.SBinary)

  given Schema[String] = Schema(SchemaType.SString)
  given Schema[Int] = Schema(SchemaType.SInteger, format = Some("int32"))
  given Schema[Long] = Schema(SchemaType.SInteger, format = Some("int64"))
  given Schema[Short] = Schema(SchemaType.SInteger, format = Some("int32"))
  given Schema[Byte] = Schema(SchemaType.SInteger, format = Some("int32"))
  given Schema[Float] = Schema(SchemaType.SNumber, format = Some("float"))
  given Schema[Double] = Schema(SchemaType.SNumber, format = Some("double"))
  given Schema[Boolean] = Schema(SchemaType.SBoolean)
  given Schema[BigDecimal] = Schema(SchemaType.SNumber)
  given Schema[BigInt] = Schema(SchemaType.SInteger)
  given Schema[UUID] = Schema(SchemaType.SString, format = Some("uuid"))
  given Schema[Instant] = Schema(SchemaType.SDateTime)
  given Schema[OffsetDateTime] = Schema(SchemaType.SDateTime)
  given Schema[ZonedDateTime] = Schema(SchemaType.SDateTime)
  given Schema[LocalDateTime] = Schema(SchemaType.SString, format = Some("local-date-time"))
  given Schema[LocalDate] = Schema(SchemaType.SDate)
  given Schema[LocalTime] = Schema(SchemaType.SString, format = Some("time"))
  given Schema[Duration] = Schema(SchemaType.SString, format = Some("duration"))
  given Schema[Array[Byte]] = Schema(SchemaType.SBinary)
  given Schema[Unit] = Schema(SchemaType.SProduct(Nil))
  given [T](using s: Schema[T]): Schema[Option[T]] = s.asOption
  given [T](using s: Schema[T]): Schema[List[T]] = s.asIterable
  given [T](using s: Schema[T]): Schema[Vector[T]] = s.asIterable
  given [T](using s: Schema[T]): Schema[Seq[T]] = s.asIterable
  given [T](using s: Schema[T]): Schema[Set[T]] = s.asIterable

/** What kind of value a schema describes. */
enum SchemaType:
  case SString, SInteger, SNumber, SBoolean, SBinary, SDate, SDateTime

  /** A sequence of elements. */
  case SArray(element: Schema[?])

  /** A value that may be absent. */
  case SOption(element: Schema[?])

  /** A record with named fields. */
  case SProduct(fields: List[SchemaField])

  /** One of several alternatives, told apart by `discriminator` when there is one. */
  case SCoproduct(alternatives: List[Schema[?]], discriminator: Option[String])

  /** A map from string keys to values. */
  case SOpenProduct(values: Schema[?])

  /** A reference to a named schema, for recursive types. */
  case SRef(name: Schema.Name)

/** One field of a product schema. */
final case class SchemaField(name: String, schema: Schema[?])
