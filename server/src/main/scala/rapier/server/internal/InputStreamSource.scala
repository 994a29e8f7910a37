package rapier.server.internal

import rapier.server.spi.{BodyReceiver, BodySource}

import java.io.InputStream
import java.nio.ByteBuffer
import java.util.concurrent.Executor
import scala.util.control.NonFatal

/**
 * A response body from an `InputStream`, as the backend pulls it: each pull reads once, on `blocking` (the stream's
 * reads may block), into one buffer reused for every chunk — the backend has written a chunk before it pulls the
 * next. The stream is closed at its end, on an error, or when the backend cancels.
 */
private[server] final class InputStreamSource(in: InputStream, val declaredLength: Long, blocking: Executor)
    extends BodySource,
      Runnable:
  private val buffer = new Array[Byte](InputStreamSource.ChunkSize)
  private val view = ByteBuffer.wrap(buffer)
  @volatile private var receiver: BodyReceiver | Null = null
  @volatile private var closed = false

  def pull(r: BodyReceiver): Unit =
    receiver = r
    try blocking.execute(this)
    catch case NonFatal(e) => fail(r, e)

  def run(): Unit =
    val r = receiver.nn
    if closed then r.onError(java.io.IOException("the response body's InputStream was closed"))
    else
      val n =
        try in.read(buffer)
        catch
          case NonFatal(e) =>
            fail(r, e)
            -2
      if n == -1 then
        close()
        r.onEnd()
      else if n == 0 then run()
      else if n > 0 then
        view.clear().limit(n)
        r.onChunk(view)

  def cancel(): Unit = close()

  private def fail(r: BodyReceiver, e: Throwable): Unit =
    close()
    r.onError(e)

  private def close(): Unit =
    if !closed then
      closed = true
      try in.close()
      catch case NonFatal(_) => ()

private[server] object InputStreamSource:
  val ChunkSize = 64 * 1024
