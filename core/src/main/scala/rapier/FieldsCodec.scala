package rapier

import rapier.model.MediaType

/**
 * A codec for a case class whose fields are read one by one from a raw `R` (a form's fields, a multipart body's
 * parts): every field that fails is reported under its name, and the schema is the product of the fields' schemas.
 */
private[rapier] abstract class FieldsCodec[R, T](
    names: List[String],
    fieldSchemas: List[Schema[?]],
    make: Array[Any] => T,
    val mediaType: MediaType
) extends Codec[R, T]:
  protected val fieldNames: Array[String] = names.toArray

  /** The value of field `i`, read from `raw`. */
  protected def field(raw: R, i: Int): DecodeResult[Any]

  val schema: Schema[T] = Schema(
    SchemaType.SProduct(names.zip(fieldSchemas).zipWithIndex.map { case ((name, s), i) =>
      SchemaField(name, s, (v: Any) => v.asInstanceOf[Product].productElement(i))
    })
  )

  def rawDecode(raw: R): DecodeResult[T] =
    val values = new Array[Any](fieldNames.length)
    val errors = List.newBuilder[ValidationError]
    var i = 0
    while i < fieldNames.length do
      DecodeResult.collectInto(field(raw, i), fieldNames(i), errors) match
        case DecodeResult.Value(v) => values(i) = v
        case _ =>
      i += 1
    val all = errors.result()
    if all.isEmpty then DecodeResult.Value(make(values)) else DecodeResult.InvalidValue(all)
