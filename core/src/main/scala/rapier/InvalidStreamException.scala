package rapier

import java.io.IOException

/**
 * What a streamed request body's reader gets when an element of the stream can't be decoded (a JSON value that is
 * malformed, or breaks its schema's rules): the client's doing, so the server answers 400 with this message, whatever
 * the logic made of it, as long as the response has not started. The message describes the failure and where in the
 * stream it happened, never the input itself. It carries no stack trace.
 */
final class InvalidStreamException(message: String) extends IOException(message):
  override def fillInStackTrace(): Throwable = this
