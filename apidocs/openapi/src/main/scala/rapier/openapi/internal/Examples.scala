package rapier.openapi.internal

import com.fasterxml.jackson.core.{JsonFactory, JsonParser, JsonProcessingException, JsonToken}
import rapier.openapi.{Json, SchemaObject}

import scala.collection.immutable.ListMap

/**
 * Values given as text, as JSON: a JSON body's example as JSON, when it parses as such, else as the text; a
 * parameter's example, or a value of an enumeration, as a number or boolean when its schema says so and the text is
 * one.
 */
private[openapi] object Examples:
  private val factory = JsonFactory()

  def of(text: String, schema: SchemaObject): Json =
    if schema.types.exists(t => t == "integer" || t == "number") then
      try Json.Num(BigDecimal(text))
      catch case _: NumberFormatException => Json.Str(text)
    else if schema.types.contains("boolean") && (text == "true" || text == "false") then Json.Bool(text == "true")
    else Json.Str(text)

  def json(text: String): Json =
    try
      val parser = factory.createParser(text)
      try
        parser.nextToken()
        val value = read(parser)
        if parser.nextToken() != null then Json.Str(text) else value
      finally parser.close()
    catch case _: JsonProcessingException => Json.Str(text)

  private def read(p: JsonParser): Json = p.currentToken match
    case JsonToken.START_OBJECT =>
      val members = ListMap.newBuilder[String, Json]
      while p.nextToken() == JsonToken.FIELD_NAME do
        val name = p.currentName
        p.nextToken()
        members += name -> read(p)
      Json.Obj(members.result())
    case JsonToken.START_ARRAY =>
      val values = List.newBuilder[Json]
      while p.nextToken() != JsonToken.END_ARRAY do values += read(p)
      Json.Arr(values.result())
    case JsonToken.VALUE_STRING => Json.Str(p.getText)
    case JsonToken.VALUE_NUMBER_INT | JsonToken.VALUE_NUMBER_FLOAT => Json.Num(BigDecimal(p.getDecimalValue))
    case JsonToken.VALUE_TRUE => Json.Bool(true)
    case JsonToken.VALUE_FALSE => Json.Bool(false)
    case _ => Json.Null
