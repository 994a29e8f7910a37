package rapier.codec

import rapier.*
import rapier.model.MediaType
import rapier.model.QueryParams

import java.nio.charset.Charset
import scala.annotation.implicitNotFound
import scala.deriving.Mirror

/** Codecs for request and response bodies. */
trait BodyCodecs:
  /** Bytes as they are, `application/octet-stream`. */
  val byteArray: Codec[Array[Byte], Array[Byte]] =
    Codec.id(summon[Schema[Array[Byte]]], MediaType.ApplicationOctetStream)

  /** A body read as a stream, as it is: `application/octet-stream`, documented as binary. */
  def stream[S]: Codec[S, S] = Codec.id(Schema.binary[S], MediaType.ApplicationOctetStream)

  /** Text as it is, `text/plain` in the given charset. */
  def textPlain(charset: Charset): Codec[String, String] =
    Codec.id(summon[Schema[String]], MediaType.TextPlain.charset(charset))

  /** The fields of an `application/x-www-form-urlencoded` body. */
  val formFields: Codec[String, QueryParams] =
    Codec(
      Schema[QueryParams](SchemaType.SOpenProduct(summon[Schema[String]])),
      MediaType.ApplicationXWwwFormUrlencoded
    ) {
      (s: String) =>
        QueryParams.parseOrNull(s, 0, s.length) match
          case null => DecodeResult.Error("a form of name=value pairs, percent-encoded as UTF-8")
          case q: QueryParams => DecodeResult.Value(q)
    }(_.toList.map((n, v) => s"${encodeForm(n)}=${encodeForm(v)}").mkString("&"))

  private def encodeForm(s: String) = rapier.model.PercentEncoding.encodeFormComponent(s)

/** How to read a `T` from the fields of a form body. */
@implicitNotFound(
  "No FormCodec[${T}]: form bodies decode into Map[String, String], Seq[(String, String)], QueryParams, or a case " +
    "class that derives one: `final case class Login(user: String, remember: Option[Boolean]) derives FormCodec`"
)
final case class FormCodec[T](fromFields: Codec[QueryParams, T])

object FormCodec:
  /**
   * A case class from the fields of a form, one field per parameter, each read by the codec its type has for
   * query parameters: `T` (exactly once), `Option[T]` (at most once), `List[T]` (any number). Every field that fails
   * is reported, under its name (`body.year`); the schema is the product of the fields' schemas.
   */
  inline def derived[T](using m: Mirror.ProductOf[T]): FormCodec[T] =
    FormCodec(
      ProductForm[T](
        Derivation.labels[m.MirroredElemLabels],
        Derivation.instances[m.MirroredElemTypes, FieldCodec],
        values => m.fromProduct(Tuple.fromArray(values))
      )
    )

  /** How a form field of type `T` is read: by the codec its type has for query parameters. */
  type FieldCodec[T] = Codec[List[String], T]

  /** Each field at most once. */
  given map: FormCodec[Map[String, String]] = FormCodec(
    Codec[QueryParams, Map[String, String]](Schema(SchemaType.SOpenProduct(summon[Schema[String]]))) { fields =>
      val all = fields.toList
      val names = all.map(_._1)
      // Field names come from the client, so the message does not repeat them.
      if names.distinct.length == names.length then DecodeResult.Value(all.toMap)
      else DecodeResult.Error("each form field at most once")
    }(m => QueryParams(m.toSeq*))
  )

  /** Every field in order, repeats kept. */
  given seq: FormCodec[Seq[(String, String)]] = FormCodec(
    Codec[QueryParams, Seq[(String, String)]](Schema(SchemaType.SOpenProduct(summon[Schema[String]])))(q =>
      DecodeResult.Value(q.toList)
    )(s => QueryParams(s*))
  )

  given queryParams: FormCodec[QueryParams] =
    FormCodec(Codec.id(Schema(SchemaType.SOpenProduct(summon[Schema[String]]))))

/** The codec behind [[FormCodec.derived]]. */
private final class ProductForm[T](names: List[String], codecs: List[Codec[List[String], Any]], make: Array[Any] => T)
    extends FieldsCodec[QueryParams, T](names, codecs.map(_.schema), make, MediaType.ApplicationXWwwFormUrlencoded):
  private val codecArray = codecs.toArray

  protected def field(raw: QueryParams, i: Int): DecodeResult[Any] = codecArray(i).decode(raw.getAll(fieldNames(i)))

  def encode(value: T): QueryParams =
    val product = value.asInstanceOf[Product]
    QueryParams(codecArray.indices.flatMap(i =>
      codecArray(i).encode(product.productElement(i)).map(fieldNames(i) -> _)
    )*)
