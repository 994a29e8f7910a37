package rapier.server.spi

import java.nio.file.Path

/**
 * A response body that is not bytes in memory (`ServerResponse.stream`): chunks the backend pulls, or a file it sends
 * itself. Either way the backend sends the length when it is known (`Content-Length`), and otherwise frames the body
 * chunked (or, for HTTP/1.0, ends it by closing the connection).
 */
sealed trait ResponseStream:
  /** The body's length in bytes, or -1 when it is known only at its end. */
  def length: Long

  /**
   * Lets go of the body without sending it: for HEAD, for a response replaced by another, for a connection gone
   * before the response could start.
   */
  def abandon(): Unit

object ResponseStream:
  /**
   * Chunks pulled from `source`, one at a time, only as fast as the connection takes them: pull the next once the
   * last is written. A chunk is the backend's until its next pull, so it can be written without a copy; `cancel()`
   * when the client goes away. An error before anything is sent may still become a 500; after, the connection is
   * closed without the body's end, so that the client sees it cut short.
   */
  final class Chunks(val source: BodySource, val length: Long) extends ResponseStream:
    def abandon(): Unit = source.cancel()

  /**
   * `length` bytes of the file at `path`, from `offset`: sent zero-copy where the backend can; where it can't, read
   * a chunk at a time as the connection takes them ([[chunks]]), never ahead.
   */
  final class File(val path: Path, val offset: Long, val length: Long) extends ResponseStream:
    def abandon(): Unit = ()

    /**
     * The file's bytes as [[Chunks]], each read (16 KiB, into one buffer the source keeps) only when pulled; the file
     * is opened at the first pull and closed at the end or on `cancel()`. An open that fails fails the first pull.
     */
    def chunks: Chunks = Chunks(FileChunks(path, offset, length, keep = false), length)

    /** As [[chunks]], each chunk read into an array of its own, the reader's to keep ([[BodySource.handsOver]]). */
    def keptChunks: Chunks = Chunks(FileChunks(path, offset, length, keep = true), length)
