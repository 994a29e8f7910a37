package rapier.server.spi

/** The body is larger than the server accepts: the request is answered 413. */
final class BodyTooLargeException(val limit: Long) extends RequestBodyException(Refusals.bodyTooLarge(limit))
