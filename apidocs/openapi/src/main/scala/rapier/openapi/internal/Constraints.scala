package rapier.openapi.internal

import rapier.openapi.SchemaObject
import rapier.{SchemaType, Validator}

/**
 * Validators as JSON Schema keywords: `Min` as `minimum` (or `exclusiveMinimum`), `MaxLength` as `maxLength`,
 * `Pattern` as `pattern`, `Enumeration` as `enum`, and so on; an optional value's rules on the value, a collection's
 * element rules on its `items`. A custom rule has no keyword: its description is added to the schema's, so a reader
 * still learns it. A `contramap`ped rule can't be shown: its function hides what it checks.
 */
private[openapi] object Constraints:
  def add(o: SchemaObject, v: Validator[?], tpe: SchemaType): SchemaObject = v match
    case Validator.All(vs) => vs.foldLeft(o)((acc, each) => add(acc, each, tpe))
    case Validator.Min(value, exclusive) =>
      if exclusive then o.copy(exclusiveMinimum = Some(number(value))) else o.copy(minimum = Some(number(value)))
    case Validator.Max(value, exclusive) =>
      if exclusive then o.copy(exclusiveMaximum = Some(number(value))) else o.copy(maximum = Some(number(value)))
    case Validator.MinLength(n) => o.copy(minLength = Some(n))
    case Validator.MaxLength(n) => o.copy(maxLength = Some(n))
    case Validator.Pattern(regex) => o.copy(pattern = Some(regex))
    case Validator.MinSize(n) => o.copy(minItems = Some(n))
    case Validator.MaxSize(n) => o.copy(maxItems = Some(n))
    case e: Validator.Enumeration[?] =>
      val render = e.render.asInstanceOf[Any => String]
      o.copy(enumValues = e.values.map(value => Examples.of(render(value), o)))
    case Validator.ForOption(inner) =>
      val valueType = tpe match
        case SchemaType.SOption(element) => element.schemaType
        case other => other
      add(o, inner, valueType)
    case Validator.ForEach(inner) =>
      tpe match
        case SchemaType.SArray(element) => o.copy(items = o.items.map(add(_, inner, element.schemaType)))
        case _ => o
    case c: Validator.Custom[?] =>
      o.copy(description = Some(o.description.fold(s"Must be ${c.expected}.")(d => s"$d Must be ${c.expected}.")))
    case _ => o

  private def number(value: Any): BigDecimal = BigDecimal(value.toString)
