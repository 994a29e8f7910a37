package rapier

import rapier.model.HeaderNames

import java.nio.charset.StandardCharsets
import java.util.Base64

/** How credentials are presented, and the `WWW-Authenticate` challenge that asks for them. */
enum AuthScheme:
  /** HTTP Basic (RFC 7617): `Authorization: Basic base64(user:password)`. */
  case Basic(realm: String)

  /** A bearer token (RFC 6750): `Authorization: Bearer <token>`. */
  case Bearer(realm: String)

  /** An API key in a header, query parameter or cookie named `name`. */
  case ApiKey(in: ApiKeyLocation, name: String, realm: String)

  /** The name of the scheme, as in messages: `Basic`, `Bearer`, `API key`. */
  def label: String = this match
    case _: Basic => "Basic"
    case _: Bearer => "Bearer"
    case _: ApiKey => "API key"

  /** The value of the `WWW-Authenticate` header that asks for these credentials. */
  def challenge: String = this match
    case Basic(realm) => s"""Basic realm="${AuthScheme.quoted(realm)}", charset="UTF-8""""
    case Bearer(realm) => s"""Bearer realm="${AuthScheme.quoted(realm)}""""
    case ApiKey(in, name, realm) =>
      s"""ApiKey realm="${AuthScheme.quoted(realm)}", in="${in.toString.toLowerCase}", name="${AuthScheme
          .quoted(name)}""""

  /** Where these credentials are read: `header.Authorization`, `query.api_key`. */
  def location: String = this match
    case _: (Basic | Bearer) => s"header.${HeaderNames.Authorization}"
    case ApiKey(ApiKeyLocation.Header, name, _) => s"header.$name"
    case ApiKey(ApiKeyLocation.Query, name, _) => s"query.$name"
    case ApiKey(ApiKeyLocation.Cookie, name, _) => s"cookie.$name"

  def withRealm(r: String): AuthScheme = this match
    case Basic(_) => Basic(r)
    case Bearer(_) => Bearer(r)
    case ApiKey(in, name, _) => ApiKey(in, name, r)

object AuthScheme:
  private def quoted(s: String): String = s.replace("\\", "\\\\").replace("\"", "\\\"")

/** Where an API key is presented. */
enum ApiKeyLocation:
  case Header, Query, Cookie

/** The credentials of HTTP Basic authentication. */
final case class UsernamePassword(username: String, password: String):
  override def toString: String = s"UsernamePassword($username, ***)"

/**
 * Authentication inputs, for `securityIn`: the security logic receives the credentials, and a request without them
 * is answered 401 with a `WWW-Authenticate` challenge before anything else is decoded.
 * {{{
 * endpoint.securityIn(auth.bearer).in("books")...
 * endpoint.securityIn(auth.firstOf(auth.bearer, auth.apiKey(header[String]("X-API-Key"))))
 * }}}
 */
object auth:
  /** The default realm of challenges; change it with `.realm("…")`. */
  val defaultRealm = "api"

  /** RFC 6750 §2.1: token68 characters. */
  private val bearerToken: Codec[String, String] = Codec(Schema.string[String]) { (s: String) =>
    if s.nonEmpty && s.forall(c => c.isLetterOrDigit && c < 128 || "-._~+/=".indexOf(c) >= 0) then
      DecodeResult.Value(s)
    else DecodeResult.Error("a bearer token (RFC 6750)")
  }(identity)

  private val basicCredentials: Codec[String, UsernamePassword] = Codec(Schema.string[UsernamePassword]) {
    (s: String) =>
      val decoded =
        try new String(Base64.getDecoder.decode(s), StandardCharsets.UTF_8)
        catch case _: IllegalArgumentException => null
      if decoded == null || decoded.indexOf(':') < 0 then
        DecodeResult.Error("Basic credentials: base64 of user:password")
      else
        val i = decoded.indexOf(':')
        DecodeResult.Value(UsernamePassword(decoded.substring(0, i), decoded.substring(i + 1)))
  } { up =>
    Base64.getEncoder.encodeToString(s"${up.username}:${up.password}".getBytes(StandardCharsets.UTF_8))
  }

  /** A bearer token from `Authorization: Bearer <token>` (RFC 6750). */
  val bearer: EndpointInput.Auth[String] =
    EndpointInput.Auth(AuthScheme.Bearer(defaultRealm), authorization("Bearer", bearerToken))

  /** A user name and password from `Authorization: Basic …` (RFC 7617), decoded as UTF-8. */
  val basic: EndpointInput.Auth[UsernamePassword] =
    EndpointInput.Auth(AuthScheme.Basic(defaultRealm), authorization("Basic", basicCredentials))

  /**
   * An API key from a header, query parameter or cookie: `auth.apiKey(header[String]("X-API-Key"))`. Decode it as
   * any type with a codec.
   */
  def apiKey[T](input: EndpointInput.Auth.Source[T]): EndpointInput.Auth[T] =
    val scheme = input match
      case EndpointIO.Header(name, _, _) => AuthScheme.ApiKey(ApiKeyLocation.Header, name, defaultRealm)
      case EndpointInput.Query(name, _, _) => AuthScheme.ApiKey(ApiKeyLocation.Query, name, defaultRealm)
      case EndpointInput.Cookie(name, _, _) => AuthScheme.ApiKey(ApiKeyLocation.Cookie, name, defaultRealm)
    EndpointInput.Auth(scheme, input)

  /** The first of two schemes the request presents: the value is that scheme's (tell them apart by type). */
  def firstOf[A, B](a: EndpointInput.Auth[A], b: EndpointInput.Auth[B]): EndpointInput.AuthAlternatives[A | B] =
    EndpointInput.AuthAlternatives(List(a, b))

  /** The first of three schemes the request presents. */
  def firstOf[A, B, C](
      a: EndpointInput.Auth[A],
      b: EndpointInput.Auth[B],
      c: EndpointInput.Auth[C]
  ): EndpointInput.AuthAlternatives[A | B | C] =
    EndpointInput.AuthAlternatives(List(a, b, c))

  /**
   * The `Authorization` header's credentials for `scheme` (compared ignoring case): of several `Authorization`
   * values, the one with this scheme; none is `Missing`.
   */
  private def authorization[T](scheme: String, credentials: Codec[String, T]): EndpointIO.Header[T] =
    val prefix = scheme.length
    val codec = Codec[List[String], T](credentials.schema) { values =>
      values.filter(v =>
        v.regionMatches(true, 0, scheme, 0, prefix) && (v.length == prefix || v.charAt(prefix) == ' ')
      ) match
        case Nil => DecodeResult.Missing
        case v :: Nil => credentials.decode(v.substring(prefix).trim)
        case many => DecodeResult.Multiple(many.length)
    }(v => List(s"$scheme ${credentials.encode(v)}"))
    EndpointIO.Header(HeaderNames.Authorization, codec)

/** Comparing secrets (API keys, tokens, passwords) in time that does not depend on where they differ. */
object Secrets:
  /**
   * Whether `a` and `b` are equal, in time independent of their contents and of their lengths: both are hashed
   * (SHA-256) and the digests compared with `MessageDigest.isEqual`. Use it to check credentials against a stored
   * secret; `==` returns at the first differing character and tells an attacker how much of a guess was right.
   */
  def constantTimeEquals(a: String, b: String): Boolean =
    java.security.MessageDigest.isEqual(digest(a), digest(b))

  private def digest(s: String): Array[Byte] =
    java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8))
