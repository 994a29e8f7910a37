package rapier.testkit

import java.io.InputStream
import java.nio.ByteBuffer
import java.security.MessageDigest
import java.util.concurrent.Flow
import scala.concurrent.{Future, Promise}

/**
 * Reads a body one chunk at a time, counting and digesting it: its `result` is the body's size and digest
 * ([[Digesting.summary]]), or its error. Once `count` bytes are read, `more` asks for the next chunk: at once, unless
 * a test holds it back. How the kit checks every byte of a streamed body, in order.
 */
class Digesting extends Flow.Subscriber[ByteBuffer]:
  private val done = Promise[String]()
  private val digest = Sha256.digest()
  private var count = 0L
  private var subscription: Flow.Subscription | Null = null
  def result: Future[String] = done.future
  protected def more(count: Long, request: () => Unit): Unit = request()
  def onSubscribe(s: Flow.Subscription): Unit =
    subscription = s
    s.request(1)
  def onNext(chunk: ByteBuffer): Unit =
    count += chunk.remaining
    digest.update(chunk)
    more(count, () => subscription.nn.request(1))
  def onError(t: Throwable): Unit = done.tryFailure(t)
  def onComplete(): Unit = done.trySuccess(Digesting.summary(count, digest))

object Digesting:
  /** `count digest`: what the kit's streaming endpoints answer, and compare with [[expected]]. */
  def summary(count: Long, digest: MessageDigest): String = s"$count ${Sha256.hex(digest)}"

  def expected(bytes: Array[Byte]): String = s"${bytes.length} ${Sha256.of(bytes)}"

  /** Subscribes to a body, asking for one chunk at a time: its size and digest. */
  def of(body: Flow.Publisher[ByteBuffer]): Future[String] =
    val reader = Digesting()
    body.subscribe(reader)
    reader.result

  /** Reads a stream to its end: its size and digest. */
  def of(in: InputStream): String =
    val digest = Sha256.digest()
    val buffer = new Array[Byte](8192)
    var count = 0L
    var n = in.read(buffer)
    while n >= 0 do
      digest.update(buffer, 0, n)
      count += n
      n = in.read(buffer)
    summary(count, digest)
