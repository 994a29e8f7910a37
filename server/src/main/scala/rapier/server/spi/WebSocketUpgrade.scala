package rapier.server.spi

import rapier.EndpointOutput

/**
 * The answer that upgrades a request to a WebSocket (on a [[rapier.server.ServerResponse]] of status 101, with its
 * handshake headers): the endpoint's WebSocket output and the pipe its logic returned, which a backend runs once the
 * 101 is written — for [[rapier.WebSocketKind.Publishers]], with a [[WebSocketRelay]].
 */
final class WebSocketUpgrade(val output: EndpointOutput.WebSocketBody[?, ?, ?], val pipe: Any)
