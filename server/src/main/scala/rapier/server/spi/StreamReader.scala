package rapier.server.spi

import rapier.StreamKind

/**
 * A kind of stream the server can read a body as: what an effect module implements for its own stream type (fs2's,
 * ZIO's), beside the JDK's two (`Flow.Publisher`, `InputStream`) that Rapier reads itself. One adapter over the
 * backend's [[BodySource]], pulling a chunk when its stream wants one: no conversion through another stream library,
 * and nothing allocated per chunk beyond what the stream type itself needs.
 */
trait StreamReader[S] extends StreamKind[S]:
  /** The body as a stream of this kind; called once per request, before the logic runs. */
  def read(source: BodySource): S
