package rapier.openapi

import scala.collection.immutable.ListMap

/**
 * A JSON value, for the parts of a document that are free-form: examples, enumerations, extensions. Objects keep
 * their members in order, so a document is written the same way every time.
 */
enum Json:
  case Null
  case Bool(value: Boolean)
  case Num(value: BigDecimal)
  case Str(value: String)
  case Arr(values: List[Json])
  case Obj(members: ListMap[String, Json])

object Json:
  def obj(members: (String, Json)*): Json = Obj(ListMap.from(members))
  def arr(values: Json*): Json = Arr(values.toList)
