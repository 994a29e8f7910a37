package rapier.codec

import rapier.*

/**
 * Codecs for inputs that may occur several times (query parameters, headers) or not at all (cookies), derived from
 * a codec for one string value. Each is a class of its own so that an interpreter can recognize it at start and
 * read the single value directly, without building a list per request.
 */
trait MultiValueCodecs:
  /** Exactly one occurrence. */
  given single[T](using c: Codec[String, T]): Codec[List[String], T] = SingleValue(c)

  /** At most one occurrence. */
  given optional[T](using c: Codec[String, T]): Codec[List[String], Option[T]] = OptionalValue(c)

  /** Any number of occurrences, in order. */
  given list[T](using c: Codec[String, T]): Codec[List[String], List[T]] = AllValues(c)

  /** A cookie that must be present. */
  given requiredCookie[T](using c: Codec[String, T]): Codec[Option[String], T] =
    Codec(c.schema, c.mediaType) { (raw: Option[String]) =>
      raw match
        case Some(v) => c.rawDecode(v)
        case None => DecodeResult.Missing
    }(v => Some(c.encode(v)))

  /** A cookie that may be absent. */
  given optionalCookie[T](using c: Codec[String, T]): Codec[Option[String], Option[T]] =
    Codec(c.schema.asOption, c.mediaType) { (raw: Option[String]) =>
      raw match
        case Some(v) => c.rawDecode(v).map(Some(_))
        case None => DecodeResult.Value(None)
    }(_.map(c.encode))

/** Exactly one value. Validation rules added to it apply to the value itself, so they stay on the inner codec. */
final case class SingleValue[T](inner: Codec[String, T]) extends Codec[List[String], T]:
  def rawDecode(raw: List[String]): DecodeResult[T] = raw match
    case v :: Nil => inner.rawDecode(v)
    case Nil => DecodeResult.Missing
    case vs => DecodeResult.Multiple(vs.length)
  def encode(value: T): List[String] = inner.encode(value) :: Nil
  def schema: Schema[T] = inner.schema
  def mediaType = inner.mediaType
  override protected def withSchema(s: Schema[T]): Codec[List[String], T] = SingleValue(inner.schema(s))

/** Zero or one value. Rules of the value are checked by the schema (an option's schema checks what it holds). */
final case class OptionalValue[T](inner: Codec[String, T]) extends Codec[List[String], Option[T]]:
  def rawDecode(raw: List[String]): DecodeResult[Option[T]] = raw match
    case Nil => DecodeResult.Value(None)
    case v :: Nil => inner.rawDecode(v).map(Some(_))
    case vs => DecodeResult.Multiple(vs.length)
  def encode(value: Option[T]): List[String] = value.map(inner.encode).toList
  val schema: Schema[Option[T]] = inner.schema.asOption
  def mediaType = inner.mediaType

/**
 * Every value, in order; the first value that fails to parse fails the whole input. Validation rules of the values
 * are checked on each, by the schema (each failure names its position: `[2]`).
 */
final case class AllValues[T](inner: Codec[String, T]) extends Codec[List[String], List[T]]:
  def rawDecode(raw: List[String]): DecodeResult[List[T]] = DecodeResult.sequence(raw.map(inner.rawDecode))
  def encode(value: List[T]): List[String] = value.map(inner.encode)
  val schema: Schema[List[T]] = inner.schema.asIterable[List[T]]
  def mediaType = inner.mediaType
