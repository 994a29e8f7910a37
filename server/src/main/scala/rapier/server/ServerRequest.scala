package rapier.server

import rapier.model.Header

import java.net.InetSocketAddress

/**
 * The request side of the backend SPI: a thin view over the backend's own request object.
 *
 * Implementations should compute nothing until asked: the interpreter asks only for what the matched endpoint
 * reads. The body is read through the backend's [[RequestBody]].
 */
trait ServerRequest:
  /**
   * The method name exactly as received, e.g. `GET`. Backends should hand over shared constants for the standard
   * methods: routing compares by reference first.
   */
  def method: String

  /** The request target exactly as received (RFC 9112 §3.2): usually `/path?query`, still percent-encoded. */
  def uri: String

  /** The protocol version, e.g. `HTTP/1.1`. */
  def protocol: String

  /** The first value of a header, or null when absent. Names are case-insensitive. */
  def headerOrNull(name: String): String | Null

  /** Every value of a header, in order; empty when absent. */
  def headerValues(name: String): List[String]

  /** All headers, in order. */
  def headers: List[Header]

  /** The client's address, or null when unknown. */
  def remoteAddress: InetSocketAddress | Null

/**
 * The body side of the backend SPI: how the interpreter gets a request's body, at most once, and only when the
 * matched endpoint reads one (after its security logic has run).
 */
trait RequestBody[F[_]]:
  /**
   * The body, if the backend already holds all of it; null otherwise. Lets the interpreter continue without a
   * round through `F`.
   */
  def bytesIfRead(request: ServerRequest): Array[Byte] | Null

  /** Reads the whole body. Fails with [[BodyTooLargeException]] past the backend's limit. */
  def bytes(request: ServerRequest): F[Array[Byte]]

/** The body is larger than the server accepts; the interpreter answers 413. */
final class BodyTooLargeException(val limit: Long)
    extends RuntimeException(s"the request body is larger than the limit of $limit bytes", null, false, false)
