package rapier.model

import java.nio.charset.Charset
import java.util.Locale

/**
 * A media type (RFC 9110 §8.3.1), such as `text/plain; charset=UTF-8`.
 *
 * `mainType` and `subType` are kept in lower case; `render` is computed once, so putting a media type into a
 * `Content-Type` header costs nothing per request.
 */
final case class MediaType(
    mainType: String,
    subType: String,
    charset: Option[String] = None,
    parameters: List[(String, String)] = Nil
):
  require(Tokens.isToken(mainType) && Tokens.isToken(subType), s"not a valid media type: $mainType/$subType")

  /** As a header value: `type/subtype` followed by the charset and any other parameters. */
  val render: String =
    val b = java.lang.StringBuilder(mainType).append('/').append(subType)
    charset.foreach(c => b.append("; charset=").append(c))
    parameters.foreach((k, v) => b.append("; ").append(k).append('=').append(v))
    b.toString

  override def toString: String = render

  /** The same type with a charset. */
  def charset(c: Charset): MediaType = copy(charset = Some(c.name))

  /** The same type with a charset. */
  def charset(c: String): MediaType = copy(charset = Some(c))

  /** Whether a `Content-Type` value names this type and subtype (parameters and case ignored). */
  def matchesContentType(contentType: String): Boolean =
    val end = contentType.indexOf(';') match
      case -1 => contentType.length
      case i => i
    val slash = contentType.indexOf('/')
    slash > 0 && slash < end &&
    contentType.substring(0, slash).trim.equalsIgnoreCase(mainType) &&
    contentType.substring(slash + 1, end).trim.equalsIgnoreCase(subType)

  /** Whether this is `text/...`, a type whose body a String can hold. */
  def isText: Boolean = mainType == "text"

object MediaType:
  val TextPlain: MediaType = MediaType("text", "plain")
  val TextPlainUtf8: MediaType = TextPlain.charset("UTF-8")
  val TextHtml: MediaType = MediaType("text", "html")
  val TextCsv: MediaType = MediaType("text", "csv")
  val TextEventStream: MediaType = MediaType("text", "event-stream")
  val ApplicationJson: MediaType = MediaType("application", "json")
  val ApplicationOctetStream: MediaType = MediaType("application", "octet-stream")
  val ApplicationXWwwFormUrlencoded: MediaType = MediaType("application", "x-www-form-urlencoded")
  val MultipartFormData: MediaType = MediaType("multipart", "form-data")

  /** Parses a `Content-Type` or similar value, or says what is wrong with it. */
  def parse(value: String): Either[String, MediaType] =
    val typeAndSub = (value.indexOf(';') match
      case -1 => value
      case i => value.substring(0, i)
    ).trim.split('/')
    if typeAndSub.length != 2 || !Tokens.isToken(typeAndSub(0)) || !Tokens.isToken(typeAndSub(1)) then
      Left("a media type of the form type/subtype")
    else
      val params = HeaderParameters.all(value)
      Right(
        MediaType(
          typeAndSub(0).toLowerCase(Locale.ROOT),
          typeAndSub(1).toLowerCase(Locale.ROOT),
          params.collectFirst { case ("charset", c) => c },
          params.filterNot(_._1 == "charset")
        )
      )
