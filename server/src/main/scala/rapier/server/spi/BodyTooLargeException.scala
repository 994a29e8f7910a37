package rapier.server.spi

/** The body is larger than the server accepts; the interpreter answers 413. */
final class BodyTooLargeException(val limit: Long)
    extends RuntimeException(s"the request body is larger than the limit of $limit bytes", null, false, false)
