package rapier

import java.time.*
import java.util.UUID
import scala.compiletime.{erasedValue, summonFrom, summonInline}
import scala.deriving.Mirror

/**
 * The shape of a value, for documentation and validation: its type (`SchemaType`), whether it may be absent, a
 * format hint (`int32`, `uuid`, `date-time`), a description, and the validator its values must satisfy.
 *
 * Validators nest: a product's fields, a collection's elements and an option's value carry their own, and
 * [[check]] runs all of them, reporting each broken rule with the path to the value that broke it
 * (`items[2].price`). Derive the schema of a case class, a sealed trait or an enum with `Schema.derived` (or
 * `derives Schema`), then attach rules to fields with `modify`:
 * {{{
 * given Schema[Order] = Schema.derived[Order].modify(_.items.each.quantity)(_.validate(Validator.positive))
 * }}}
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

  /**
   * For a sealed trait's schema: its JSON says which alternative a value is in the field `field`, whose value is the
   * alternative's simple name (`{"type": "Circle", …}`, what jsoniter-scala's codecs write by default).
   * Documentation shows it as a discriminator.
   * @throws IllegalArgumentException
   *   if this is not the schema of several alternatives
   */
  def discriminator(field: String): Schema[T] = schemaType match
    case c: SchemaType.SCoproduct => copy(schemaType = c.copy(discriminator = Some(field)))
    case other => throw IllegalArgumentException(s"a discriminator needs a sealed trait's schema, not ${other.kind}")

  /**
   * Whether checking a value can find anything: this schema or a nested one has a validator. Computed once; values
   * of schemas without rules are never walked.
   */
  lazy val hasRules: Boolean = validator.canFail ||
    (schemaType match
      case SchemaType.SProduct(fields) => fields.exists(_.schema.hasRules)
      case SchemaType.SArray(element) => element.hasRules
      case SchemaType.SOption(element) => element.hasRules
      case SchemaType.SCoproduct(alternatives, _, _) => alternatives.exists(_.hasRules)
      case _ => false)

  /** Every rule `value` breaks, this schema's and those of the values inside it, each with its path. */
  def check(value: T): List[ValidationError] =
    if !hasRules then Nil
    else
      val own = validator(value)
      val nested = schemaType match
        case SchemaType.SProduct(fields) =>
          fields.flatMap(f => Schema.checkNested(f.schema, f.get(value), f.name))
        case SchemaType.SArray(element) if element.hasRules =>
          ValidationError.atEachIndex(Schema.elements(value))(Schema.checkNested(element, _, null))
        case SchemaType.SOption(element) =>
          value match
            case Some(v) => Schema.checkNested(element, v, null)
            case _ => Nil
        case SchemaType.SCoproduct(alternatives, _, alternativeOf) =>
          alternatives.lift(alternativeOf(value)) match
            case Some(alternative) => Schema.checkNested(alternative, value, null)
            case None => Nil
        case _ => Nil
      own ++ nested

  /**
   * The schema with the one at `path` (field names, and `each` for the elements of a collection or the value of an
   * option) changed by `f`. Prefer `modify(_.field.each.other)`, which the compiler checks.
   */
  def modifyAt(path: List[String])(f: Schema[Any] => Schema[Any]): Schema[T] = path match
    case Nil => f(this.asInstanceOf[Schema[Any]]).asInstanceOf[Schema[T]]
    case segment :: rest =>
      def nowhere(what: String) = throw IllegalArgumentException(
        s"can't modify ${(path).mkString(".")}: $what in ${name.fold(schemaType.kind)(_.shortName)}"
      )
      val changed = schemaType match
        case SchemaType.SProduct(fields) if segment != "each" =>
          if !fields.exists(_.name == segment) then nowhere(s"no field '$segment'")
          SchemaType.SProduct(fields.map(fd =>
            if fd.name == segment then fd.copy(schema = fd.schema.modifyAt(rest)(f)) else fd
          ))
        case SchemaType.SArray(element) if segment == "each" => SchemaType.SArray(element.modifyAt(rest)(f))
        case SchemaType.SOption(element) if segment == "each" => SchemaType.SOption(element.modifyAt(rest)(f))
        case _ => nowhere(s"no '$segment'")
      copy(schemaType = changed)

  /** The schema with the one of a field (or nested field, or `each` element) changed: `modify(_.items.each.price)`. */
  inline def modify[U](inline path: T => U)(f: Schema[U] => Schema[U]): Schema[T] =
    modifyAt(SchemaMacros.selectorPath(path))(f.asInstanceOf[Schema[Any] => Schema[Any]])

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

  private def checkNested(schema: Schema[?], value: Any, segment: String | Null): List[ValidationError] =
    if !schema.hasRules then Nil
    else
      val errors = schema.asInstanceOf[Schema[Any]].check(value)
      if segment == null then errors else errors.map(_.prependPath(segment.nn))

  private def elements(value: Any): Iterator[Any] = value match
    case i: Iterable[?] => i.iterator
    case a: Array[?] => a.iterator
    case _ => Iterator.empty

  /**
   * The schema of a case class (a product of its fields' schemas), a sealed trait or enum (the alternatives' schemas;
   * an enum of singleton cases is a string with its case names), derived from its `Mirror`. A field's schema is the
   * given one for its type, or derived in turn. A type that refers back to itself, directly or through another
   * (`case class Tree(children: List[Tree])`), is derived too: the inner mention is an [[SchemaType.SRef]] to the
   * named schema (rules of values below such a reference are not checked).
   */
  inline def derived[T](using m: Mirror.Of[T]): Schema[T] = derivedWithin[T *: EmptyTuple, T]

  private inline def nameOf[T]: Name = Name(SchemaMacros.typeName[T], SchemaMacros.typeArguments[T])

  /** Derives `T`, with `Stack` the types being derived around it, which a field may refer back to. */
  private inline def derivedWithin[Stack <: Tuple, T](using m: Mirror.Of[T]): Schema[T] =
    inline m match
      case p: Mirror.ProductOf[T] =>
        val labels = Derivation.labels[p.MirroredElemLabels]
        Schema[T](
          SchemaType.SProduct(fieldsOf(labels, fieldSchemas[Stack, p.MirroredElemTypes])),
          name = Some(nameOf[T])
        )
      case s: Mirror.SumOf[T] =>
        singletons[s.MirroredElemTypes] match
          case Some(values) =>
            Schema[T](
              SchemaType.SString,
              name = Some(nameOf[T]),
              validator = Validator.Enumeration(values.asInstanceOf[List[T]], _.toString, exhaustive = true)
            )
          case None =>
            val alternatives = alternativeSchemas[Stack, s.MirroredElemTypes]
            Schema[T](
              SchemaType.SCoproduct(alternatives, None, (v: Any) => s.ordinal(v.asInstanceOf[T])),
              name = Some(nameOf[T])
            )

  /** A product's fields from their names and schemas, each reading its value by position. */
  private def fieldsOf(labels: List[String], schemas: List[Schema[?]], at: Int = 0): List[SchemaField] =
    labels match
      case label :: more =>
        SchemaField(label, schemas.head, (v: Any) => v.asInstanceOf[Product].productElement(at)) ::
          fieldsOf(more, schemas.tail, at + 1)
      case Nil => Nil

  /** The values of the alternatives when all are singletons (enum cases without fields, case objects). */
  private inline def singletons[Ts <: Tuple]: Option[List[Any]] =
    val values = singletonValues[Ts]
    if values.forall(_.isDefined) then Some(values.map(_.get)) else None

  // Eight at a time, like Derivation's walks: one per step would stop at 32 alternatives (the compiler's inline limit)
  private inline def singletonValues[Ts <: Tuple]: List[Option[Any]] =
    inline erasedValue[Ts] match
      case _: (t1 *: t2 *: t3 *: t4 *: t5 *: t6 *: t7 *: t8 *: ts) =>
        valueOf[t1] :: valueOf[t2] :: valueOf[t3] :: valueOf[t4] :: valueOf[t5] :: valueOf[t6] :: valueOf[t7] ::
          valueOf[t8] :: singletonValues[ts]
      case _: (t *: ts) => valueOf[t] :: singletonValues[ts]
      case _: EmptyTuple => Nil

  private inline def valueOf[A]: Option[Any] =
    summonFrom {
      case v: ValueOf[A] => Some(v.value)
      case _ => None
    }

  private inline def fieldSchemas[Stack <: Tuple, Ts <: Tuple]: List[Schema[?]] =
    inline erasedValue[Ts] match
      case _: (t1 *: t2 *: t3 *: t4 *: t5 *: t6 *: t7 *: t8 *: ts) =>
        givenOrDerivedWithin[Stack, t1] :: givenOrDerivedWithin[Stack, t2] :: givenOrDerivedWithin[Stack, t3] ::
          givenOrDerivedWithin[Stack, t4] :: givenOrDerivedWithin[Stack, t5] :: givenOrDerivedWithin[Stack, t6] ::
          givenOrDerivedWithin[Stack, t7] :: givenOrDerivedWithin[Stack, t8] :: fieldSchemas[Stack, ts]
      case _: (t *: ts) => givenOrDerivedWithin[Stack, t] :: fieldSchemas[Stack, ts]
      case _: EmptyTuple => Nil

  /** The alternatives of a sum: each its given schema, or derived with the sum on the stack. */
  private inline def alternativeSchemas[Stack <: Tuple, Ts <: Tuple]: List[Schema[?]] =
    inline erasedValue[Ts] match
      case _: (t1 *: t2 *: t3 *: t4 *: t5 *: t6 *: t7 *: t8 *: ts) =>
        givenOrDerivedAlternative[Stack, t1] :: givenOrDerivedAlternative[Stack, t2] ::
          givenOrDerivedAlternative[Stack, t3] :: givenOrDerivedAlternative[Stack, t4] ::
          givenOrDerivedAlternative[Stack, t5] :: givenOrDerivedAlternative[Stack, t6] ::
          givenOrDerivedAlternative[Stack, t7] :: givenOrDerivedAlternative[Stack, t8] :: alternativeSchemas[Stack, ts]
      case _: (t *: ts) => givenOrDerivedAlternative[Stack, t] :: alternativeSchemas[Stack, ts]
      case _: EmptyTuple => Nil

  private inline def givenOrDerivedAlternative[Stack <: Tuple, A]: Schema[A] =
    summonFrom {
      case s: Schema[A] => s
      case _ => derivedWithin[A *: Stack, A](using summonInline[Mirror.Of[A]])
    }

  /**
   * The given schema of `A`, or one derived: collections and options of derived types included, so that a
   * `List[Line]` field needs no schema for `Line` in scope.
   */
  inline def givenOrDerived[A]: Schema[A] = givenOrDerivedWithin[EmptyTuple, A]

  private inline def givenOrDerivedWithin[Stack <: Tuple, A]: Schema[A] =
    // A type being derived, or a collection of one, is never summoned: its given (if any) is what is being built.
    inline if SchemaMacros.mentions[Stack, A] then
      inline if SchemaMacros.isOneOf[Stack, A] then Schema[A](SchemaType.SRef(nameOf[A]))
      else structural[Stack, A]
    else
      summonFrom {
        case s: Schema[A] => s
        case _ => structural[Stack, A]
      }

  private inline def structural[Stack <: Tuple, A]: Schema[A] =
    inline erasedValue[A] match
      case _: Option[e] => givenOrDerivedWithin[Stack, e].asOption.asInstanceOf[Schema[A]]
      case _: List[e] => givenOrDerivedWithin[Stack, e].asIterable[List[e]].asInstanceOf[Schema[A]]
      case _: Vector[e] => givenOrDerivedWithin[Stack, e].asIterable[Vector[e]].asInstanceOf[Schema[A]]
      case _: Set[e] => givenOrDerivedWithin[Stack, e].asIterable[Set[e]].asInstanceOf[Schema[A]]
      case _: Seq[e] => givenOrDerivedWithin[Stack, e].asIterable[Seq[e]].asInstanceOf[Schema[A]]
      case _: Array[e] => Schema[A](SchemaType.SArray(givenOrDerivedWithin[Stack, e]))
      case _: Map[String, v] => Schema[A](SchemaType.SOpenProduct(givenOrDerivedWithin[Stack, v]))
      case _ => derivedWithin[A *: Stack, A](using summonInline[Mirror.Of[A]])

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
  /** A word for this kind, for messages: `object`, `array`, `string`, … */
  def kind: String = this match
    case SString => "string"
    case SInteger => "integer"
    case SNumber => "number"
    case SBoolean => "boolean"
    case SBinary => "binary"
    case SDate => "date"
    case SDateTime => "date-time"
    case _: SArray => "array"
    case _: SOption => "optional value"
    case _: SProduct => "object"
    case _: SCoproduct => "one of several types"
    case _: SOpenProduct => "map"
    case _: SRef => "reference"

  case SString, SInteger, SNumber, SBoolean, SBinary, SDate, SDateTime

  /** A sequence of elements. */
  case SArray(element: Schema[?])

  /** A value that may be absent. */
  case SOption(element: Schema[?])

  /** A record with named fields. */
  case SProduct(fields: List[SchemaField])

  /**
   * One of several alternatives, told apart by `discriminator` when there is one; `alternativeOf` gives the index of
   * the alternative a value belongs to (-1 when unknown), so that its rules can be checked.
   */
  case SCoproduct(alternatives: List[Schema[?]], discriminator: Option[String], alternativeOf: Any => Int = _ => -1)

  /** A map from string keys to values. */
  case SOpenProduct(values: Schema[?])

  /** A reference to a named schema, for recursive types. */
  case SRef(name: Schema.Name)

/** One field of a product schema; `get` reads it from a value of the product, to check its rules. */
final case class SchemaField(name: String, schema: Schema[?], get: Any => Any)
