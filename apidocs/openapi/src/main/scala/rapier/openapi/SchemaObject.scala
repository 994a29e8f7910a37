package rapier.openapi

import scala.collection.immutable.ListMap

/**
 * A JSON Schema (2020-12, the dialect of OpenAPI 3.1), as far as Rapier's schemas describe values: either a `$ref`
 * to a component or a schema of its own. `types` is OpenAPI 3.1's `type`, one name or several (`["string", "null"]`
 * for a value that may be null).
 */
final case class SchemaObject(
    ref: Option[String] = None,
    types: List[String] = Nil,
    format: Option[String] = None,
    description: Option[String] = None,
    properties: ListMap[String, SchemaObject] = ListMap.empty,
    required: List[String] = Nil,
    items: Option[SchemaObject] = None,
    additionalProperties: Option[SchemaObject] = None,
    oneOf: List[SchemaObject] = Nil,
    discriminator: Option[Discriminator] = None,
    enumValues: List[Json] = Nil,
    const: Option[Json] = None,
    minimum: Option[BigDecimal] = None,
    exclusiveMinimum: Option[BigDecimal] = None,
    maximum: Option[BigDecimal] = None,
    exclusiveMaximum: Option[BigDecimal] = None,
    minLength: Option[Int] = None,
    maxLength: Option[Int] = None,
    pattern: Option[String] = None,
    minItems: Option[Int] = None,
    maxItems: Option[Int] = None,
    contentMediaType: Option[String] = None,
    deprecated: Boolean = false,
    examples: List[Json] = Nil
)

object SchemaObject:
  /** A reference to the component schema `name`. */
  def ref(name: String): SchemaObject = SchemaObject(ref = Some(s"#/components/schemas/$name"))

  def of(tpe: String, format: Option[String] = None): SchemaObject = SchemaObject(types = List(tpe), format = format)

/** Which property of an object tells the alternatives of a `oneOf` apart, and the value naming each one. */
final case class Discriminator(propertyName: String, mapping: ListMap[String, String] = ListMap.empty)
