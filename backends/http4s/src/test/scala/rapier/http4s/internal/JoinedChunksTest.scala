package rapier.http4s.internal

import cats.effect.IO
import cats.syntax.all.*
import cats.effect.unsafe.implicits.global
import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer
import java.util.concurrent.{Executors, TimeUnit}
import scala.concurrent.duration.*

class JoinedChunksTest extends munit.FunSuite:
  private val later = Executors.newSingleThreadScheduledExecutor()
  override def afterAll(): Unit = later.shutdown()

  /**
   * Chunks of `size` bytes; those whose index `ready` holds answered at once, the others later, on another thread, once
   * the reader has been handed every chunk before them: answered sooner, while the reader was still busy, a chunk is
   * rightly joined to the one before, which a loaded machine would make of any fixed delay.
   */
  private final class Source(count: Int, size: Int, ready: Int => Boolean, failAtEnd: Boolean = false)
      extends BodySource:
    // The bytes handed to the reader, counted by `chunks`
    val handedOn = java.util.concurrent.atomic.AtomicLong()
    var pulls = 0
    var cancelled = false
    def declaredLength: Long = -1L
    def cancel(): Unit = cancelled = true
    def pull(receiver: BodyReceiver): Unit =
      val i = pulls
      pulls += 1
      def answer(): Unit =
        if i < count then receiver.onChunk(ByteBuffer.wrap(Array.fill(size)(('a' + i % 26).toByte)))
        else if failAtEnd then receiver.onError(IllegalStateException("cut"))
        else receiver.onEnd()
      def answerOnceHanded(): Unit =
        if handedOn.get >= i.toLong * size then answer()
        else
          val _ = later.schedule((() => answerOnceHanded()): Runnable, 1, TimeUnit.MILLISECONDS)
      if ready(i) then answer() else later.execute(() => answerOnceHanded())

  private def chunks(source: Source, limit: Int): List[Int] =
    JoinedChunks[IO](source, limit).stream.chunks
      .evalTap(c => IO(source.handedOn.addAndGet(c.size)))
      .map(_.size)
      .compile
      .toList
      // A reader waiting for a chunk answered later would wait forever: a later one is answered only once it reads on
      .timeout(10.seconds)
      .unsafeRunSync()

  test("chunks the source has ready are joined up to the limit, and those it answers later are not waited for"):
    val all = Source(100, 40, _ => true)
    assertEquals(chunks(all, 1000), List.fill(4)(1000))
    assert(all.cancelled)
    // Every fifth answered later: it opens a chunk, the four ready after it join it
    assertEquals(chunks(Source(20, 40, _ % 5 != 0), 1000), List.fill(4)(200))
    assertEquals(chunks(Source(10, 40, _ => false), 1000), List.fill(10)(40))
    // A chunk larger than the limit passes whole
    assertEquals(chunks(Source(3, 5000, _ => true), 1000), List(5000, 5000, 5000))

  test("the bytes ready before a failure are handed on, then the failure"):
    val source = Source(3, 10, _ => true, failAtEnd = true)
    val reader = JoinedChunks[IO](source, 1000)
    val (first, failed) = (reader.next, reader.next.attempt).tupled.unsafeRunSync()
    assertEquals(first.map(_._1.size), Some(30))
    assertEquals(failed.left.map(_.getMessage), Left("cut"))
    assertEquals(chunks(Source(0, 10, _ => false), 1000), Nil)
