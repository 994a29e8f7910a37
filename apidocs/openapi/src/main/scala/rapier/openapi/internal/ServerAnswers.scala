package rapier.openapi.internal

import rapier.*
import rapier.model.MediaType

/**
 * The statuses the server answers an endpoint with by itself, each with a problem-details body, as its inputs and
 * outputs allow them: a document that lists only the endpoint's own outputs would call these answers undocumented.
 */
private[openapi] object ServerAnswers:
  /** Each answer's status, what it means, and whether it says when to retry (`Retry-After`). */
  def of(e: AnyEndpoint, inputs: List[EndpointInput.Basic[?]], decodable: Boolean): List[(String, String, Boolean)] =
    val body = inputs.collectFirst { case b: EndpointIO.Body[?, ?] => b }
    val outputs = Inputs.outputs(e.output)
    List(
      Option.when(decodable)(("400", "The request's inputs are invalid", false)),
      Option.when(outputs.exists(_.isInstanceOf[EndpointIO.OneOfBody[?]]))(
        ("406", "The Accept header allows none of the representations this endpoint answers in", false)
      ),
      body.map(_ => ("408", "The request's body did not arrive within the server's deadline", false)),
      body.map(_ => ("413", "The request's body, or one of its parts, is larger than the server accepts", false)),
      body.filter(typed).map(_ =>
        ("415", "The request's Content-Type is not the one this endpoint reads, or names an unknown charset", false)
      ),
      Option.when(outputs.exists(_.isInstanceOf[EndpointOutput.WebSocketBody[?, ?, ?]]))(
        ("426", "The request is not a WebSocket handshake (RFC 6455) the server accepts", false)
      ),
      Some(("500", "The server failed to answer; the problem carries the request id its log names", false)),
      body.filter(readWhole).map(_ =>
        ("503", "The server's memory for request bodies is in use by others; try again after Retry-After", true)
      )
    ).flatten

  /** A body whose `Content-Type` is checked: one of a media type other than text or bytes, or text in a charset. */
  private def typed(b: EndpointIO.Body[?, ?]): Boolean = b.raw match
    case _: RawBodyType.StringBody | _: RawBodyType.MultipartBody => true
    case _ => !b.codec.mediaType.isText && b.codec.mediaType != MediaType.ApplicationOctetStream

  /** A body read whole into memory, within the server's budget for bodies, rather than streamed. */
  private def readWhole(b: EndpointIO.Body[?, ?]): Boolean = b.raw match
    case _: RawBodyType.StringBody | RawBodyType.ByteArrayBody => true
    case _ => false
