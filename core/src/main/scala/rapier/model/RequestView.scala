package rapier.model

import java.net.InetSocketAddress

/**
 * A read-only view of a request, for inputs that need more than the typed inputs offer
 * (`extractFromRequest`). Everything is computed on demand.
 */
trait RequestView:
  /** The method, as sent. */
  def method: Method

  /** The request target exactly as received: path and query, still percent-encoded. */
  def uri: String

  /** The path's segments, percent-decoded. */
  def pathSegments: List[String]

  /** The query parameters, percent-decoded; empty if the query is malformed. */
  def queryParams: QueryParams

  /** The first value of a header, if present. */
  def header(name: String): Option[String]

  /** Every value of a header, in the order received. */
  def headerValues(name: String): List[String]

  /** All headers, in the order received. */
  def headers: List[Header]

  /** The protocol version, e.g. `HTTP/1.1`. */
  def protocol: String

  /** The address of the client connection, if the backend knows it. */
  def remoteAddress: Option[InetSocketAddress]

  /**
   * The certificates the client presented over TLS, its own first (see `Tls.withClientAuth`); empty when it presented
   * none, or the connection is plain HTTP.
   */
  def peerCertificates: List[java.security.cert.X509Certificate] = Nil

  /** Whether the request came over TLS: its URL's scheme is `https`. */
  def secure: Boolean = false
