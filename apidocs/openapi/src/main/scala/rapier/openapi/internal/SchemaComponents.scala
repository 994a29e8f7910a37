package rapier.openapi.internal

import rapier.openapi.{Discriminator, Json, SchemaObject}
import rapier.{Schema, SchemaType, Validator}

import scala.collection.immutable.ListMap
import scala.collection.mutable

/**
 * Turns Rapier's schemas into JSON Schemas. Each named schema (a case class, a sealed trait, an enum) becomes a
 * component, written once and referred to by `$ref`; the first schema met under a name is the one documented.
 *
 * Component names are settled from every named schema at once, before any is written, so that they don't depend on
 * which endpoint comes first: a type's simple name, with its type arguments (`Page_Book`), or its full name with
 * dots (`com.shop.Item`) when two types would share a simple name.
 */
private[openapi] final class SchemaComponents(all: Iterable[Schema[?]]):
  private val names: Map[Schema.Name, String] =
    val found = mutable.LinkedHashSet[Schema.Name]()
    val visited = mutable.Set[Schema.Name]()
    def collect(s: Schema[?]): Unit =
      s.name.foreach(found += _)
      s.schemaType match
        case SchemaType.SRef(name) => found += name
        case _ =>
          if s.name.forall(visited.add) then
            s.schemaType match
              case SchemaType.SArray(e) => collect(e)
              case SchemaType.SOption(e) => collect(e)
              case SchemaType.SOpenProduct(v) => collect(v)
              case SchemaType.SProduct(fields) => fields.foreach(f => collect(f.schema))
              case SchemaType.SCoproduct(alternatives, _, _) => alternatives.foreach(collect)
              case _ => ()
    all.foreach(collect)
    def simple(n: Schema.Name) = (n.shortName :: n.typeParameters).mkString("_")
    def full(n: Schema.Name) = (n.fullName :: n.typeParameters).mkString("_")
    val bySimple = found.toList.groupBy(simple)
    found.iterator.map { n =>
      val name = if bySimple(simple(n)).size == 1 then simple(n) else full(n)
      n -> name.map(c => if c.isLetterOrDigit && c < 128 || c == '.' || c == '-' || c == '_' then c else '_')
    }.toMap

  private val components = mutable.Map[String, SchemaObject]()

  /**
   * A reference to the server's problem-details schema, which becomes a component once referred to: `Problem`, or
   * `RapierProblem` (then `RapierProblem2`, …) when a type of the application's is named `Problem`.
   */
  lazy val problem: SchemaObject =
    val taken = names.values.toSet
    val name = (Iterator("Problem", "RapierProblem") ++ Iterator.from(2).map(n => s"RapierProblem$n")).find(!taken(
      _
    )).get
    components(name) = Problems.schema
    SchemaObject.ref(name)
  private val inProgress = mutable.Set[String]()

  /** The components written so far, by name, in alphabetical order. */
  def schemas: ListMap[String, SchemaObject] = ListMap.from(components.toList.sortBy(_._1))

  /** Whether an input or header of this schema must be present: not an `Option`, nor a list that may be empty. */
  def isRequired(s: Schema[?]): Boolean = s.schemaType match
    case _: SchemaType.SOption | _: SchemaType.SArray => false
    case _ => !s.isOptional

  /** A schema for a value that must be present: an `Option`'s becomes its element's. */
  def required(s: Schema[?]): SchemaObject = s.schemaType match
    // Rules given for the option (`Validator.min(1).forOption`) apply to its value.
    case SchemaType.SOption(element) => Constraints.add(apply(element), s.validator, s.schemaType)
    case _ => apply(s)

  /** The JSON Schema of `s`, a `$ref` for a named one. */
  def apply(s: Schema[?]): SchemaObject = s.schemaType match
    case SchemaType.SRef(name) => SchemaObject.ref(names(name))
    case SchemaType.SOption(element) => nullable(apply(element))
    case _ =>
      s.name match
        case Some(n) if named(s) =>
          val name = names(n)
          if !components.contains(name) && inProgress.add(name) then
            components(name) = own(s)
            inProgress -= name
          SchemaObject.ref(name)
        case _ => own(s)

  /** Products, sums and enumerations with a name are components; a named string or number stays inline. */
  private def named(s: Schema[?]): Boolean = s.schemaType match
    case _: SchemaType.SProduct | _: SchemaType.SCoproduct => true
    case SchemaType.SString => hasEnumeration(s.validator)
    case _ => false

  private def hasEnumeration(v: Validator[?]): Boolean = v match
    case _: Validator.Enumeration[?] => true
    case Validator.All(vs) => vs.exists(hasEnumeration)
    case _ => false

  private def nullable(o: SchemaObject): SchemaObject =
    if o.ref.isDefined then SchemaObject(oneOf = List(o, SchemaObject.of("null")))
    else if o.types.isEmpty then o
    else o.copy(types = o.types :+ "null")

  /** The schema itself, never a reference to it. */
  private def own(s: Schema[?]): SchemaObject =
    val shape = s.schemaType match
      case SchemaType.SString => SchemaObject.of("string")
      case SchemaType.SInteger => SchemaObject.of("integer")
      case SchemaType.SNumber => SchemaObject.of("number")
      case SchemaType.SBoolean => SchemaObject.of("boolean")
      case SchemaType.SBinary => SchemaObject.of("string", Some("binary"))
      case SchemaType.SDate => SchemaObject.of("string", Some("date"))
      case SchemaType.SDateTime => SchemaObject.of("string", Some("date-time"))
      case SchemaType.SArray(element) => SchemaObject(types = List("array"), items = Some(apply(element)))
      case SchemaType.SOpenProduct(values) =>
        SchemaObject(types = List("object"), additionalProperties = Some(apply(values)))
      case SchemaType.SProduct(fields) =>
        SchemaObject(
          types = List("object"),
          properties = ListMap.from(fields.map(f => f.name -> required(f.schema))),
          required = fields.filterNot(_.schema.isOptional).map(_.name)
        )
      case SchemaType.SCoproduct(alternatives, discriminator, _) => coproduct(alternatives, discriminator)
      case SchemaType.SOption(element) => nullable(apply(element))
      case SchemaType.SRef(name) => SchemaObject.ref(names(name))
    val described = shape.copy(
      format = s.format.orElse(shape.format),
      description = s.description,
      deprecated = s.deprecated,
      examples = s.encodedExample.map(Json.Str(_)).toList
    )
    Constraints.add(described, s.validator, s.schemaType)

  /**
   * `oneOf` the alternatives; with a discriminator, each alternative's component gets the property, required and
   * holding the alternative's simple name, and the mapping names each one.
   */
  private def coproduct(alternatives: List[Schema[?]], discriminator: Option[String]): SchemaObject =
    val refs = alternatives.map(apply)
    discriminator match
      case None => SchemaObject(oneOf = refs)
      case Some(field) =>
        val mapping = alternatives.zip(refs).collect {
          case (alternative, ref) if alternative.name.isDefined && ref.ref.isDefined =>
            val value = alternative.name.get.shortName
            val component = names(alternative.name.get)
            components.get(component).foreach { c =>
              if !c.properties.contains(field) then
                components(component) = c.copy(
                  properties = ListMap(field -> SchemaObject(types = List("string"), const = Some(Json.Str(value))))
                    ++ c.properties,
                  required = field :: c.required
                )
            }
            value -> ref.ref.get
        }
        SchemaObject(oneOf = refs, discriminator = Some(Discriminator(field, ListMap.from(mapping))))
