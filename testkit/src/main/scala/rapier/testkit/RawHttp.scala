package rapier.testkit

import java.io.{ByteArrayOutputStream, InputStream}
import java.net.{InetSocketAddress, Socket, SocketTimeoutException}
import javax.net.ssl.SSLSocket
import java.nio.charset.StandardCharsets

/**
 * HTTP/1.1 over a plain socket (or over TLS, with a client context `tls`), for what a client library would hide or
 * refuse to send: pipelining, malformed requests, `Connection` handling, exact bytes.
 */
final class RawHttp(port: Int, timeoutMillis: Int = 10000, tls: javax.net.ssl.SSLContext | Null = null)
    extends AutoCloseable:
  private val socket =
    val plain = Socket()
    plain.connect(InetSocketAddress("localhost", port), timeoutMillis)
    plain.setSoTimeout(timeoutMillis)
    plain.setTcpNoDelay(true)
    if tls == null then plain
    else
      val secure = tls.nn.getSocketFactory.createSocket(plain, "localhost", port, true).asInstanceOf[SSLSocket]
      val parameters = secure.getSSLParameters
      parameters.setApplicationProtocols(Array("http/1.1"))
      secure.setSSLParameters(parameters)
      secure.startHandshake()
      secure
  private val in = java.io.BufferedInputStream(socket.getInputStream)
  private val out = socket.getOutputStream

  def send(raw: String): RawHttp = send(raw.getBytes(StandardCharsets.ISO_8859_1))

  def send(bytes: Array[Byte]): RawHttp =
    out.write(bytes)
    out.flush()
    this

  /** Sends `bytes` as one chunk of a chunked body: its size in hexadecimal, the bytes, CRLF. */
  def sendChunk(bytes: Array[Byte]): RawHttp =
    send(s"${Integer.toHexString(bytes.length)}\r\n").send(bytes).send("\r\n")

  /** Reads one response (body by Content-Length or chunked; none for HEAD requests when `head`). */
  def readResponse(head: Boolean = false): TestResponse = RawHttp.readResponse(in, head)

  /** Reads up to `n` bytes as they come, whatever they are. */
  def readBytes(n: Int): Array[Byte] = in.readNBytes(n)

  /** One line, without its line end; null at the end of the input. */
  def readLine(): String | Null = RawHttp.readLine(in)

  /**
   * Whether the server closed the connection: reads until EOF or the timeout. Over TLS the JDK's socket closes itself
   * once a read meets the server's close_notify, which is the server's doing too.
   */
  def closedByServer(waitMillis: Int = 1000): Boolean =
    try
      socket.setSoTimeout(waitMillis)
      val n = in.read()
      n == -1
    catch
      case _: SocketTimeoutException => false
      case _: java.net.SocketException => true
    finally if !socket.isClosed then socket.setSoTimeout(timeoutMillis)

  def close(): Unit = socket.close()

object RawHttp:
  /** Sends `raw` on a new connection and reads one response. */
  def exchange(port: Int, raw: String): TestResponse =
    val c = RawHttp(port)
    try c.send(raw).readResponse()
    finally c.close()

  def readResponse(in: InputStream, head: Boolean): TestResponse =
    val statusLine = readLine(in)
    if statusLine == null then throw java.io.EOFException("the connection closed before a response")
    val status = statusLine.split(' ')(1).toInt
    val headers = Iterator
      .continually(readLine(in))
      .takeWhile(l => l != null && l.nn.nonEmpty)
      .map { l =>
        val i = l.nn.indexOf(':')
        l.nn.substring(0, i).trim.toLowerCase(java.util.Locale.ROOT) -> l.nn.substring(i + 1).trim
      }
      .toList
      .groupMap(_._1)(_._2)
    val noBody = head || status < 200 || status == 204 || status == 304
    val body =
      if noBody then Array.emptyByteArray
      else if headers.get("transfer-encoding").exists(_.exists(_.equalsIgnoreCase("chunked"))) then readChunked(in)
      else
        headers.get("content-length").map(_.head.toInt) match
          case Some(n) => in.readNBytes(n)
          case None => in.readAllBytes()
    TestResponse(status, headers, body)

  private[testkit] def readLine(in: InputStream): String | Null =
    val b = ByteArrayOutputStream()
    var c = in.read()
    if c == -1 then return null
    while c != -1 && c != '\n' do
      if c != '\r' then b.write(c)
      c = in.read()
    b.toString(StandardCharsets.ISO_8859_1)

  private def readChunked(in: InputStream): Array[Byte] =
    val body = ByteArrayOutputStream()
    var size = Integer.parseInt(readLine(in).nn.split(';')(0).trim, 16)
    while size > 0 do
      body.write(in.readNBytes(size))
      readLine(in)
      size = Integer.parseInt(readLine(in).nn.split(';')(0).trim, 16)
    while readLine(in).exists(_.nonEmpty) do ()
    body.toByteArray

  extension (s: String | Null) private def exists(p: String => Boolean): Boolean = s != null && p(s.nn)
