package rapier.server.spi

import rapier.StreamKind

/**
 * A kind of stream the server can write a response body from: what an effect module implements for its own stream
 * type (fs2's, ZIO's), beside the JDK's two that Rapier writes itself. The stream is run by its own effect, started
 * within the endpoint's, and hands its chunks to a [[BodySource]] the backend pulls one at a time: no conversion
 * through another stream library.
 */
trait StreamWriter[S] extends StreamKind[S]:
  /**
   * The chunks of `stream` as a source the backend pulls, and the effect — in the endpoint's `F`, as `Any` — that
   * starts producing them: the interpreter runs it once the response is encoded, before it hands the response over.
   * A source the backend cancels (a client gone, a HEAD request) stops the stream.
   */
  def write(stream: S): StreamWriter.Started

object StreamWriter:
  /** A stream ready to be pulled once `start` (an `F[Unit]`) has run. */
  final class Started(val source: BodySource, val start: Any)
