package rapier.server.internal

import rapier.server.spi.{BodyBudget, Refusals, RequestBodyException}

import java.nio.file.{Files, Path}
import java.util.concurrent.ConcurrentHashMap

/**
 * The temporary files a server writes uploads to (`fileBody`, multipart's file parts), within one budget of disk for
 * them all: a write the budget can't take fails the upload with [[Refusals.DiskBusy]] (503, `Retry-After`), its files
 * deleted. What each file took is given back when it is deleted, whatever became of it (logic that moved it keeps it,
 * and the server no longer counts it).
 *
 * @param limit
 *   the bytes all uploads' files may hold at once
 */
private[server] final class TempFiles(limit: Long):
  private val budget = BodyBudget(limit)
  private val taken = ConcurrentHashMap[Path, java.lang.Long]()

  /** A new, empty file in the temporary directory. */
  def create(prefix: String, suffix: String): Path = Files.createTempFile(prefix, suffix)

  /** Takes `n` bytes of the budget for `file`, or fails the upload with a 503 when it can't. */
  def take(file: Path, n: Long): Unit =
    if !budget.tryTake(n) then throw RequestBodyException(Refusals.DiskBusy)
    taken.merge(file, n, (a, b) => java.lang.Long.valueOf(a + b))

  /** Deletes `file`, quietly, and gives back what it took. */
  def delete(file: Path): Unit =
    try Files.deleteIfExists(file)
    catch case scala.util.control.NonFatal(_) => ()
    val n = taken.remove(file)
    if n != null then budget.give(n)

  /** The bytes the files hold now, as counted. */
  def held: Long = budget.held

private[server] object TempFiles:
  /**
   * The budget a server has unless its options give one: half the space left in the temporary directory when it
   * starts, so that uploads can't fill the disk the rest of the system needs.
   */
  def defaultLimit(): Long =
    val directory = Path.of(System.getProperty("java.io.tmpdir"))
    val free =
      try Files.getFileStore(directory).getUsableSpace
      catch case scala.util.control.NonFatal(_) => 0L
    math.max(free / 2, 64L << 20)
