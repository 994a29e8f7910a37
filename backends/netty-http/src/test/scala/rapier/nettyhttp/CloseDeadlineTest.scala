package rapier.nettyhttp

import io.netty.channel.embedded.EmbeddedChannel

import java.util.concurrent.TimeUnit

/** A deadline closes the connection when it comes, and leaves nothing scheduled once the connection closed before it. */
class CloseDeadlineTest extends munit.FunSuite:
  // The embedded channel's loop lists what is still scheduled on it (-1: nothing)
  private def scheduled(channel: EmbeddedChannel): Boolean = channel.runScheduledPendingTasks() != -1L

  test("a connection closed before its deadline leaves no timer on its loop"):
    val channel = EmbeddedChannel()
    CloseDeadline.after(channel, 1000)
    assert(scheduled(channel), "the deadline is scheduled")
    // Through the pipeline, as a client's close arrives: the embedded channel's own close would cancel every timer
    channel.pipeline.close()
    assert(!scheduled(channel), "the deadline is cancelled once the connection is closed")

  test("a connection still open at its deadline is closed then"):
    val channel = EmbeddedChannel()
    CloseDeadline.after(channel, 1)
    TimeUnit.MILLISECONDS.sleep(20)
    channel.runScheduledPendingTasks()
    assert(!channel.isActive, "the deadline closed the connection")
    assert(!scheduled(channel))

  test("a deadline set on a connection already closed is cancelled at once"):
    val channel = EmbeddedChannel()
    channel.pipeline.close()
    CloseDeadline.after(channel, 1000)
    assert(!scheduled(channel))
