package rapier

import rapier.model.{Header, MediaType, Text}

import java.nio.charset.{Charset, StandardCharsets}
import java.nio.file.Path
import scala.annotation.implicitNotFound
import scala.deriving.Mirror

/**
 * Limits on a `multipart/form-data` body, checked as it arrives. The body as a whole is a streamed body, within the
 * server's `maxStreamedBodySize`; it is never held whole, and these bound what it can cost.
 *
 * @param maxParts
 *   how many parts; one more is a 400
 * @param maxPartSize
 *   how large one part may be, in memory or in its file; a larger one is a 413 naming the limit
 * @param maxHeaderSize
 *   how large a part's header section may be (a 400 past it); a preamble before the first boundary and an epilogue
 *   after the last are held to it too
 * @param maxInMemorySize
 *   how many bytes the parts kept in memory (those not written to files) may hold together; past it, a 413
 */
final case class MultipartLimits(
    maxParts: Int = 100,
    maxPartSize: Long = 10L * 1024 * 1024,
    maxHeaderSize: Int = 8192,
    maxInMemorySize: Long = 10L * 1024 * 1024
):
  require(maxParts > 0 && maxPartSize >= 0 && maxHeaderSize > 0 && maxInMemorySize >= 0, "limits must be positive")

object MultipartLimits:
  val default: MultipartLimits = MultipartLimits()

/** Where the content of a part is: in memory, or in a temporary file that is deleted once the request is answered. */
enum PartData:
  case InMemory(bytes: Array[Byte])
  case OnDisk(file: Path, length: Long)

  /** The size of the content, in bytes. */
  def size: Long = this match
    case InMemory(bytes) => bytes.length.toLong
    case OnDisk(_, length) => length

/** One part of a multipart body: its name, content, and what its headers say. */
final case class Part[T](
    name: String,
    body: T,
    fileName: Option[String] = None,
    contentType: Option[String] = None,
    headers: List[Header] = Nil
):
  def header(n: String): Option[String] = headers.find(_.is(n)).map(_.value)
  def map[U](f: T => U): Part[U] = copy(body = f(body))

/** The parts of a multipart body, in order. */
final case class Multipart(parts: List[Part[PartData]]):
  /** The first part with this name. */
  def get(name: String): Option[Part[PartData]] = parts.find(_.name == name)

  /** Every part with this name. */
  def all(name: String): List[Part[PartData]] = parts.filter(_.name == name)

/**
 * How a field of a case class is read from the parts of a multipart body that carry its name: `String` (a text
 * part), `Array[Byte]`, `java.nio.file.Path` (a file part, on disk), `Part[...]` of these to keep the part's
 * file name and headers, any type with a `Codec[String, T]` (a text part, decoded), and `Option` / `List` of them.
 */
@implicitNotFound(
  "No PartCodec[${T}]: multipart fields are String, Array[Byte], java.nio.file.Path, Part[String | Array[Byte] | Path], " +
    "types with a Codec[String, T], and Option or List of these"
)
trait PartCodec[T]:
  /** Whether the parts are written to temporary files. */
  def toDisk: Boolean
  def schema: Schema[T]

  /** The value from every part with the field's name (possibly none). */
  def decode(parts: List[Part[PartData]]): DecodeResult[T]

  /** The parts that send `value` as the field `name` (a client's request). */
  def encode(name: String, value: T): List[Part[PartData]]

object PartCodec extends LowPriorityPartCodecs:
  /** A codec for exactly one part, read by `f` and written by `g`. */
  private[rapier] def single[T](disk: Boolean, s: Schema[T])(f: Part[PartData] => DecodeResult[T])(
      g: (String, T) => Part[PartData]
  ): PartCodec[T] =
    new PartCodec[T]:
      val toDisk = disk
      val schema = s
      def decode(parts: List[Part[PartData]]): DecodeResult[T] = parts match
        case p :: Nil => f(p)
        case Nil => DecodeResult.Missing
        case many => DecodeResult.Multiple(many.length)
      def encode(name: String, value: T): List[Part[PartData]] = List(g(name, value))

  private val OctetStream = Some(MediaType.ApplicationOctetStream.render)

  private[rapier] def textPart(name: String, text: String): Part[PartData] =
    Part(name, PartData.InMemory(text.getBytes(StandardCharsets.UTF_8)))

  private def onDisk(file: Path): PartData = PartData.OnDisk(file, java.nio.file.Files.size(file))

  private val notInMemory = DecodeResult.Error("a field, not a file")
  private val notOnDisk = DecodeResult.Error("a file")
  private val unknownCharset = DecodeResult.Error("text in a charset the server can read")

  private[rapier] def bytesOf(p: Part[PartData]): DecodeResult[Array[Byte]] = p.body match
    case PartData.InMemory(bytes) => DecodeResult.Value(bytes)
    case _ => notInMemory

  private[rapier] def textOf(p: Part[PartData]): DecodeResult[String] = bytesOf(p).flatMap { bytes =>
    Text.charsetOf(p.contentType.orNull, StandardCharsets.UTF_8) match
      case null => unknownCharset
      case charset: Charset =>
        Text.decodeOrNull(bytes, charset) match
          case null => DecodeResult.Error(s"text in ${charset.name}")
          case s: String => DecodeResult.Value(s)
  }

  private[rapier] def fileOf(p: Part[PartData]): DecodeResult[Path] = p.body match
    case PartData.OnDisk(file, _) => DecodeResult.Value(file)
    case _ => notOnDisk

  given text: PartCodec[String] = single(false, Schema.string)(textOf)(textPart)
  given bytes: PartCodec[Array[Byte]] =
    single(false, Schema.binary)(bytesOf)((n, b) => Part(n, PartData.InMemory(b), contentType = OctetStream))
  given file: PartCodec[Path] = single(true, Schema.binary)(fileOf) { (n, f) =>
    Part(n, onDisk(f), Some(f.getFileName.toString), OctetStream)
  }
  given textPart: PartCodec[Part[String]] = single(false, Schema.string)(p => textOf(p).map(v => p.map(_ => v))) {
    (n, p) => p.copy(name = n).map(t => PartData.InMemory(t.getBytes(StandardCharsets.UTF_8)))
  }
  given bytesPart: PartCodec[Part[Array[Byte]]] =
    single(false, Schema.binary)(p => bytesOf(p).map(v => p.map(_ => v)))((n, p) =>
      p.copy(name = n).map(PartData.InMemory(_))
    )
  given filePart: PartCodec[Part[Path]] = single(true, Schema.binary)(p => fileOf(p).map(v => p.map(_ => v))) {
    (n, p) => p.copy(name = n, fileName = p.fileName.orElse(Some(p.body.getFileName.toString))).map(onDisk)
  }

  given optional[T](using c: PartCodec[T]): PartCodec[Option[T]] = new PartCodec[Option[T]]:
    val toDisk = c.toDisk
    val schema = c.schema.asOption
    def decode(parts: List[Part[PartData]]): DecodeResult[Option[T]] =
      if parts.isEmpty then DecodeResult.Value(None) else c.decode(parts).map(Some(_))
    def encode(name: String, value: Option[T]): List[Part[PartData]] = value.toList.flatMap(c.encode(name, _))

  given list[T](using c: PartCodec[T]): PartCodec[List[T]] = new PartCodec[List[T]]:
    val toDisk = c.toDisk
    val schema = c.schema.asIterable[List[T]]
    def decode(parts: List[Part[PartData]]): DecodeResult[List[T]] =
      DecodeResult.sequence(parts.map(p => c.decode(p :: Nil)))
    def encode(name: String, value: List[T]): List[Part[PartData]] = value.flatMap(c.encode(name, _))

private[rapier] trait LowPriorityPartCodecs:
  /** A text part decoded by a string codec: `Int`, `UUID`, an enum, … */
  given fromStringCodec[T](using c: Codec[String, T]): PartCodec[T] =
    PartCodec.single(false, c.schema)(p => PartCodec.textOf(p).flatMap(c.decode))((n, v) =>
      PartCodec.textPart(n, c.encode(v))
    )

/** How to read a `T` from the parts of a multipart body. */
@implicitNotFound(
  "No MultipartCodec[${T}]: derive one for a case class: `final case class Upload(...) derives MultipartCodec`"
)
final case class MultipartCodec[T](codec: Codec[Multipart, T], toDisk: (String, Option[String]) => Boolean)

object MultipartCodec:
  /** All parts as they are; parts with a file name are written to temporary files. */
  given all: MultipartCodec[Multipart] =
    MultipartCodec(
      Codec.id(Schema(SchemaType.SOpenProduct(Schema.binary)), MediaType.MultipartFormData),
      (_, f) => f.isDefined
    )

  /**
   * A case class from the parts named as its fields, each read by its type's [[PartCodec]]. Every field that fails
   * is reported under its name; parts no field names are ignored.
   */
  inline def derived[T](using m: Mirror.ProductOf[T]): MultipartCodec[T] =
    product[T](
      Derivation.labels[m.MirroredElemLabels],
      Derivation.instances[m.MirroredElemTypes, PartCodec],
      values => m.fromProduct(Tuple.fromArray(values))
    )

  /** The codec of a product with these fields, built from its values in order by `make`. */
  def product[T](names: List[String], codecs: List[PartCodec[Any]], make: Array[Any] => T): MultipartCodec[T] =
    val files = names.zip(codecs).filter(_._2.toDisk).map(_._1).toSet
    MultipartCodec(ProductParts[T](names, codecs, make), (name, _) => files(name))

/** The codec behind [[MultipartCodec.derived]]: a server reads the parts, a client writes them. */
private final class ProductParts[T](names: List[String], codecs: List[PartCodec[Any]], make: Array[Any] => T)
    extends FieldsCodec[Multipart, T](names, codecs.map(_.schema), make, MediaType.MultipartFormData):
  private val codecArray = codecs.toArray

  protected def field(raw: Multipart, i: Int): DecodeResult[Any] = codecArray(i).decode(raw.all(fieldNames(i)))

  def encode(value: T): Multipart =
    val product = value.asInstanceOf[Product]
    Multipart(fieldNames.indices.toList.flatMap(i => codecArray(i).encode(fieldNames(i), product.productElement(i))))
