package rapier.server.internal

import rapier.DecodeResult
import rapier.model.MediaType
import rapier.server.interceptor.{InputRef, InputSource}

/**
 * The `Content-Type` a body's codec requires of a request: its media type (a form, JSON, NDJSON), unless that is text
 * or bytes, which any `Content-Type` may carry. Read whole or as a stream, a body is refused the same way (415).
 */
private[server] final class RequiredContentType(mediaType: MediaType):
  /** The media type a request must declare, or null when any will do. */
  val required: MediaType | Null =
    if mediaType.isText || mediaType == MediaType.ApplicationOctetStream then null else mediaType

  private val ref = InputRef(InputSource.ContentType, "")
  private val wrongType =
    DecodeResult.Mismatch(if required == null then "" else required.nn.copy(charset = None).render)

  /** The failure of a request whose `Content-Type` (null when absent) is not the required one; null otherwise. */
  def failureOrNull(contentType: String | Null): Failed | Null =
    if required != null && (contentType == null || !required.nn.matchesContentType(contentType)) then
      Failed(ref, wrongType)
    else null
