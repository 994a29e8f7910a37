package rapier.server.internal

import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Path, StandardOpenOption}
import java.util.concurrent.Executor
import scala.util.control.NonFatal

/**
 * Writes a request body to a file as it arrives: each chunk is written on `blocking` (file writes may block), straight
 * from the backend's buffer, and the next pulled once it is written, so the body is never held in memory and the
 * client sends no faster than the disk takes it; each within the server's disk budget for uploads (`files`). `done`
 * gets the file once the body is whole, or why it is not.
 */
private[server] final class BodyToFile(
    source: BodySource,
    file: Path,
    blocking: Executor,
    files: TempFiles,
    done: Either[Throwable, Path] => Unit
) extends BodyReceiver,
      Runnable:
  private val channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)
  @volatile private var chunk: ByteBuffer | Null = null

  def start(): Unit = source.pull(this)

  def onChunk(c: ByteBuffer): Unit =
    chunk = c
    try blocking.execute(this)
    catch case NonFatal(e) => fail(e)

  /** Writes the chunk, then asks for the next. */
  def run(): Unit =
    val c = chunk.nn
    chunk = null
    val written =
      try
        files.take(file, c.remaining)
        while c.hasRemaining do channel.write(c)
        true
      catch
        case NonFatal(e) =>
          fail(e)
          false
    if written then source.pull(this)

  def onEnd(): Unit =
    close()
    done(Right(file))

  def onError(cause: Throwable): Unit =
    close()
    done(Left(cause))

  // A chunk is written off the loop, and a pull or cancel always follows the write: the chunk is let go then
  override def revoke(): Boolean = false

  private def fail(e: Throwable): Unit =
    source.cancel()
    close()
    done(Left(e))

  private def close(): Unit =
    try channel.close()
    catch case NonFatal(_) => ()
