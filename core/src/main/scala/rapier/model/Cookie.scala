package rapier.model

import java.time.Instant
import java.time.ZoneOffset
import java.time.format.DateTimeFormatter

/** A cookie sent by a client in its `Cookie` header: a name and a value. */
final case class Cookie(name: String, value: String)

object Cookie:
  /** The cookies of one `Cookie` header value (`a=1; b=2`). Malformed pairs are skipped, as browsers do. */
  def parseHeader(value: String): List[Cookie] =
    value
      .split(';')
      .iterator
      .flatMap { pair =>
        pair.indexOf('=') match
          case -1 => None
          case i =>
            val name = pair.substring(0, i).trim
            val raw = pair.substring(i + 1).trim
            val v =
              if raw.length >= 2 && raw.head == '"' && raw.last == '"' then raw.substring(1, raw.length - 1) else raw
            if Tokens.isToken(name) then Some(Cookie(name, v)) else None
      }
      .toList

  /** Whether `c` may appear in a cookie value (RFC 6265 §4.1.1 cookie-octet). */
  def isCookieOctet(c: Char): Boolean =
    c == 0x21 ||
      (c >= 0x23 && c <= 0x2b) ||
      (c >= 0x2d && c <= 0x3a) ||
      (c >= 0x3c && c <= 0x5b) ||
      (c >= 0x5d && c <= 0x7e)

/** The `SameSite` attribute of a cookie. */
enum SameSite:
  case Strict, Lax, None

/**
 * A cookie's value with the attributes a server sends in `Set-Cookie` (RFC 6265 §4.1). The name comes from the
 * output that sends it.
 */
final case class CookieValueWithMeta(
    value: String,
    expires: Option[Instant] = None,
    maxAge: Option[Long] = None,
    domain: Option[String] = None,
    path: Option[String] = None,
    secure: Boolean = false,
    httpOnly: Boolean = false,
    sameSite: Option[SameSite] = None
):
  require(value.forall(Cookie.isCookieOctet), "a cookie value may hold only RFC 6265 cookie-octets")
  require(domain.forall(Tokens.isFieldValue) && path.forall(p => Tokens.isFieldValue(p) && !p.contains(';')))

  /** The `Set-Cookie` header value for a cookie of this name. */
  def render(name: String): String =
    val b = new StringBuilder(name).append('=').append(value)
    expires.foreach(e => b.append("; Expires=").append(CookieValueWithMeta.httpDate.format(e)))
    maxAge.foreach(a => b.append("; Max-Age=").append(a))
    domain.foreach(d => b.append("; Domain=").append(d))
    path.foreach(p => b.append("; Path=").append(p))
    if secure then b.append("; Secure")
    if httpOnly then b.append("; HttpOnly")
    sameSite.foreach(s => b.append("; SameSite=").append(s.toString))
    b.toString

object CookieValueWithMeta:
  private val httpDate = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC)
