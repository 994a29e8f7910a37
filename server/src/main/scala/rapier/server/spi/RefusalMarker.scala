package rapier.server.spi

import rapier.model.StatusCode
import rapier.server.spi.RequestSyntax.Invalid

import java.nio.charset.StandardCharsets
import java.security.SecureRandom

/**
 * How a [[FramingGuard]] in front of a lenient parser hands a refusal to the interpreter behind it: the malformed
 * request is replaced by a well-formed one carrying the refusal in a field, which the parser passes on in order,
 * after the requests before it, and the interpreter answers as it answers any refusal. The field's value starts with a
 * random token of the server's, so a client that sends the field itself is not believed.
 */
final class RefusalMarker private (token: String):
  /** The request that stands for `problem`: a GET with no body, which closes its connection. */
  def request(problem: Invalid): Array[Byte] =
    val line = s"${RefusalMarker.Field}: $token ${problem.status.code} ${problem.message}"
    s"GET / HTTP/1.1\r\nHost: refused\r\n$line\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)

  /** The refusal a request stands for, given its [[RefusalMarker.Field]]'s value (or null): null when it is none. */
  def refusal(value: String | Null): Invalid | Null =
    if value == null || !value.nn.startsWith(token) || value.nn.length < token.length + 5 then null
    else
      val v = value.nn
      val code = v.substring(token.length + 1, token.length + 4).toIntOption
      code.map(c => Invalid(StatusCode(c), v.substring(token.length + 5))).orNull

object RefusalMarker:
  /** The field a replaced request carries its refusal in. */
  val Field = "Rapier-Refused"

  /** A marker with a token of its own, 128 random bits. */
  def random(): RefusalMarker =
    val bytes = new Array[Byte](16)
    SecureRandom().nextBytes(bytes)
    RefusalMarker(bytes.map(b => f"${b & 0xff}%02x").mkString)
