package rapier.codec

import rapier.*
import rapier.model.MediaType
import rapier.model.QueryParams

import java.nio.charset.Charset
import scala.annotation.implicitNotFound

/** Codecs for request and response bodies. */
trait BodyCodecs:
  /** Bytes as they are, `application/octet-stream`. */
  val byteArray: Codec[Array[Byte], Array[Byte]] =
    Codec.id(summon[Schema[Array[Byte]]], MediaType.ApplicationOctetStream)

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
  "No FormCodec[${T}]: form bodies decode into Map[String, String], Seq[(String, String)] or QueryParams; " +
    "for another type, map one of these: FormCodec(FormCodec.map.fromFields.map(...)(...))"
)
final case class FormCodec[T](fromFields: Codec[QueryParams, T])

object FormCodec:
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
