package rapier.vertx.internal

import io.vertx.core.{Context, Vertx}
import rapier.server.spi.EventLoop

/** A Vert.x context as the loop a response is written on; no context (a caller outside Vert.x) runs tasks at once. */
private[vertx] final class ContextLoop(context: Context | Null) extends EventLoop:
  def inLoop: Boolean = context == null || Vertx.currentContext == context
  def execute(task: Runnable): Unit = context.nn.runOnContext(_ => task.run())
