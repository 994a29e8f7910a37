package rapier

import java.io.InputStream
import java.nio.ByteBuffer
import java.util.concurrent.Flow

/**
 * The kind of stream a body is read as (or written from) by the logic, with `S` its type. Rapier reads the JDK's
 * two: [[StreamKind.Publisher]] for logic that returns futures, [[StreamKind.Input]] for direct style. Effect modules
 * add their own (fs2's `Stream[F, Byte]`), each read from the backend by one adapter of its own: a body never goes
 * through a conversion between stream libraries.
 */
trait StreamKind[S]:
  /** The stream's type, for messages and documentation. */
  def name: String

object StreamKind:
  /** A `Flow.Publisher` of byte chunks: each chunk is the subscriber's to keep. */
  case object Publisher extends StreamKind[Flow.Publisher[ByteBuffer]]:
    def name = "Flow.Publisher[ByteBuffer]"

  /** An `InputStream` whose reads block until bytes arrive: for direct style, on virtual threads. */
  case object Input extends StreamKind[InputStream]:
    def name = "InputStream"

  /** Chunks folded by a function of the logic's as they arrive, without a copy: see [[BodyChunks]]. */
  case object Chunks extends StreamKind[BodyChunks]:
    def name = "BodyChunks"
