package rapier.server.spi

import java.io.{EOFException, IOException}
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.Path

/**
 * `length` bytes of a file from `offset`, read a chunk at a time as they are pulled, on the puller's thread: a page
 * cache's copy, as a server's own chunked file writer reads on its loop. One buffer serves every chunk (each is the
 * reader's only until its next pull), or, where `keep`, each is read into an array of its own for a reader that keeps
 * it; either way a stalled reader holds one chunk and the descriptor, never a read-ahead.
 */
private[spi] final class FileChunks(path: Path, offset: Long, length: Long, keep: Boolean) extends BodySource:
  private var channel: FileChannel | Null = null
  private var buffer: ByteBuffer | Null = null
  private var position = offset
  private var left = length
  @volatile private var cancelled = false

  def declaredLength: Long = length

  override def handsOver: Boolean = keep

  def pull(receiver: BodyReceiver): Unit =
    if cancelled then receiver.onError(IOException("the file's body was cancelled"))
    else if left == 0 then
      close()
      receiver.onEnd()
    else
      try
        val open = opened()
        val chunk = if keep || buffer == null then ByteBuffer.allocate(FileChunks.Size) else buffer.nn
        if !keep then buffer = chunk
        chunk.clear().limit(math.min(left, FileChunks.Size.toLong).toInt)
        val n = open.read(chunk, position)
        if n < 0 then throw EOFException(s"$path ended $left bytes before its length")
        position += n
        left -= n
        receiver.onChunk(chunk.flip())
      catch
        case e: IOException =>
          close()
          receiver.onError(e)

  def cancel(): Unit =
    cancelled = true
    close()

  // Opened under the lock that `cancel` closes it under: a cancel made meanwhile closes what is opened
  private def opened(): FileChannel = synchronized {
    if cancelled then throw IOException("the file's body was cancelled")
    if channel == null then channel = FileChannel.open(path)
    channel.nn
  }

  private def close(): Unit = synchronized {
    val open = channel
    channel = null
    if open != null then
      try open.nn.close()
      catch case _: IOException => ()
  }

private object FileChunks:
  val Size = 16 * 1024
