package rapier.server.compression

import java.util.Locale

/** The codings an `Accept-Encoding` names and their weights (RFC 9110 §12.5.3). */
private[server] final class AcceptEncoding private (names: Array[String], weights: Array[Double]):
  /** The weight given `coding` (lower case): its own, else that of `*`, else -1 when neither is named. */
  def weight(coding: String): Double =
    var any = -1.0
    var i = 0
    while i < names.length do
      if names(i) == coding then return weights(i)
      if names(i) == "*" then any = weights(i)
      i += 1
    any

  /** Whether the identity coding is refused: `identity;q=0`, or `*;q=0` without naming it. */
  def refusesIdentity: Boolean = weight("identity") == 0.0

private[server] object AcceptEncoding:
  /** The codings of every `Accept-Encoding` line in `values`; `x-gzip` is gzip, a weight that can't be read is 1. */
  def parse(values: List[String]): AcceptEncoding =
    val names = Array.newBuilder[String]
    val weights = Array.newBuilder[Double]
    for value <- values; element <- value.split(',') do
      val parts = element.split(';')
      val name = parts(0).trim.toLowerCase(Locale.ROOT)
      if name.nonEmpty then
        names += (if name == "x-gzip" then "gzip" else name)
        weights +=
          parts.iterator
            .drop(1)
            .map(_.trim)
            .collectFirst {
              case p if p.length > 2 && (p.charAt(0) | 0x20) == 'q' && p.charAt(1) == '=' =>
                p.substring(2).trim.toDoubleOption.filter(w => w >= 0 && w <= 1).getOrElse(1.0)
            }
            .getOrElse(1.0)
    new AcceptEncoding(names.result(), weights.result())
