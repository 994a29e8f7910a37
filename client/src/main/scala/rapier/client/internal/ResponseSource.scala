package rapier.client.internal

import rapier.server.spi.{BodyReceiver, BodySource}

import java.net.http.HttpResponse
import java.nio.ByteBuffer
import java.util.concurrent.{CompletableFuture, CompletionStage, Flow}

/**
 * A response body as the JDK's client delivers it, read as a [[BodySource]]: what a server's stream readers take, so
 * that a client's response becomes a `Flow.Publisher`, an `InputStream` or an effect's stream by the same readers as
 * a server's request. One list of buffers is asked of the connection per pull that finds none left, never more: the
 * reader's pace is the connection's (HTTP/2's window, TCP's).
 */
private[client] final class ResponseSource(val declaredLength: Long)
    extends HttpResponse.BodySubscriber[BodySource],
      BodySource:
  private var subscription: Flow.Subscription | Null = null
  private val chunks = java.util.ArrayDeque[ByteBuffer]()
  private var waiting: BodyReceiver | Null = null
  private var requested = false
  private var ended = false
  private var failure: Throwable | Null = null
  private var cancelled = false

  def getBody: CompletionStage[BodySource] = CompletableFuture.completedStage(this)

  def onSubscribe(s: Flow.Subscription): Unit =
    val ask = synchronized {
      subscription = s
      if cancelled then false
      else if waiting != null && !requested then
        requested = true
        true
      else false
    }
    if cancelled then s.cancel() else if ask then s.request(1)

  def onNext(items: java.util.List[ByteBuffer]): Unit =
    var receiver: BodyReceiver | Null = null
    var chunk: ByteBuffer | Null = null
    val again = synchronized {
      requested = false
      if !cancelled then items.forEach(b => if b.hasRemaining then chunks.add(b))
      if waiting != null && !chunks.isEmpty then
        receiver = waiting
        waiting = null
        chunk = chunks.poll()
        false
      else if waiting != null && !cancelled then
        requested = true
        true
      else false
    }
    if receiver != null then receiver.nn.onChunk(chunk.nn)
    else if again then subscription.nn.request(1)

  def onError(e: Throwable): Unit = finish(e)
  def onComplete(): Unit = finish(null)

  private def finish(e: Throwable | Null): Unit =
    val receiver = synchronized {
      ended = true
      failure = e
      if chunks.isEmpty && waiting != null then
        val r = waiting
        waiting = null
        r
      else null
    }
    if receiver != null then if e != null then receiver.nn.onError(e) else receiver.nn.onEnd()

  def pull(receiver: BodyReceiver): Unit =
    var chunk: ByteBuffer | Null = null
    var ask: Flow.Subscription | Null = null
    var end = false
    var error: Throwable | Null = null
    synchronized {
      if !chunks.isEmpty then chunk = chunks.poll()
      else if ended then
        end = true
        error = failure
      else
        waiting = receiver
        if subscription != null && !requested then
          requested = true
          ask = subscription
    }
    if chunk != null then receiver.onChunk(chunk.nn)
    else if error != null then receiver.onError(error.nn)
    else if end then receiver.onEnd()
    else if ask != null then ask.nn.request(1)

  def cancel(): Unit =
    val s = synchronized {
      cancelled = true
      chunks.clear()
      waiting = null
      subscription
    }
    if s != null then s.nn.cancel()
