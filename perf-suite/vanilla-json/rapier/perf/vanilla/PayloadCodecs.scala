package rapier.perf.vanilla

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import rapier.perf.common.Order

/** jsoniter-scala codecs for the PostJson document, derived on each side of the suite with that side's jsoniter. */
object PayloadCodecs:
  given orderCodec: JsonValueCodec[Order] = JsonCodecMaker.make

  /**
   * Decodes an order from bytes and encodes it back to bytes, as each server's JSON endpoint does; None if the bytes
   * are not an order.
   */
  /** `GET /pathJson{n}`'s answer, encoded for each request as a server would. */
  def order(): Array[Byte] = writeToArray(rapier.perf.common.PerfApi.order)

  def echo(bytes: Array[Byte], length: Int): Option[Array[Byte]] =
    try Some(writeToArray(readFromSubArray[Order](bytes, 0, length)))
    catch case _: JsonReaderException => None
