package rapier.perf.servers

import io.circe.Codec
import rapier.EndpointIO
import rapier.json.circe.jsonBody
import rapier.perf.common.{Customer, Order, OrderLine}

/**
 * Rapier on Netty with its JSON routes read and written by circe instead of jsoniter-scala: codecs derived as circe's
 * documentation derives them, the body parsed from bytes by circe-jawn.
 */
final class RapierNettyCirceServer extends RapierNettyServer:
  import RapierNettyCirceServer.given
  override protected def json: EndpointIO.Body[Array[Byte], Order] = jsonBody[Order]

object RapierNettyCirceServer:
  given Codec[Customer] = Codec.AsObject.derived
  given Codec[OrderLine] = Codec.AsObject.derived
  given Codec[Order] = Codec.AsObject.derived
