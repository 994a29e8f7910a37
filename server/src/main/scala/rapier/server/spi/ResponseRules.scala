package rapier.server.spi

/**
 * What every backend does alike when it writes a [[rapier.server.ServerResponse]] on HTTP/1.1:
 *
 *   - the status line says `HTTP/1.1` whatever the request's version (RFC 9110 §6.2: the highest minor version the
 *     server conforms to);
 *   - the headers are the response's, in order, then `Content-Length` set from the body where the status allows one
 *     ([[hasContentLength]]), also for HEAD, whose body is not sent;
 *   - `Connection: close` when the connection closes after it (the request asked, the server is draining, or it is a
 *     refusal), and `Connection: keep-alive` to an HTTP/1.0 client whose connection stays open;
 *   - responses leave in the order of their requests (RFC 9112 §9.3.2), whatever order the logic completes in.
 */
object ResponseRules:
  /** Whether a response with `status` carries a Content-Length (RFC 9110 §8.6: not 1xx, 204 or 304). */
  def hasContentLength(status: Int): Boolean = status >= 200 && status != 204 && status != 304

  /** The `Connection` header's value to send, or null for none. */
  def connectionHeader(keepAlive: Boolean, http10: Boolean): String | Null =
    if !keepAlive then "close" else if http10 then "keep-alive" else null
