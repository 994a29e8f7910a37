package rapier.server.spi

import rapier.{EndpointOutput, WebSocketKind}

/**
 * A kind of WebSocket pipe the server can run beside the JDK's [[rapier.WebSocketKind.Publishers]]: what an effect
 * module implements for its own stream type (fs2's `Pipe`), as [[StreamWriter]] is for bodies. The pipe runs in its
 * own effect, started within the endpoint's, and meets the connection through a [[WebSocketRelay]]: no conversion
 * through another stream library.
 */
trait WebSocketRunner[P] extends WebSocketKind[P]:
  /**
   * The relay that runs `pipe` for `output` once the backend starts it, and the effect — in the endpoint's `F`, as
   * `Any` — that gets it ready: the interpreter runs it once the response is encoded, before it hands the response over.
   */
  def relay(output: EndpointOutput.WebSocketBody[?, ?, ?], pipe: P): WebSocketRunner.Started

object WebSocketRunner:
  /** A relay ready to be started once `start` (an `F[Unit]`) has run. */
  final class Started(val relay: WebSocketRelay, val start: Any)
