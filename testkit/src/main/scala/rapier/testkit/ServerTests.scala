package rapier.testkit

/**
 * The whole shared server test kit. A backend runs it with a class of a few lines:
 * {{{
 * class NettyServerTests extends ServerTests:
 *   def server = NettyTestServer
 * }}}
 */
abstract class ServerTests extends KitTests, TlsTests, Http2Tests

/**
 * The kit but its protocol tests ([[TlsTests]], [[Http2Tests]]): what a backend runs again over another
 * [[KitProtocol]].
 * {{{
 * class NettyHttp2ServerTests extends KitTests:
 *   def server = NettyTestServer
 *   override def protocol = KitProtocol.Http2OverTls
 * }}}
 */
abstract class KitTests
    extends InputTests,
      BodyTests,
      OutputTests,
      RoutingTests,
      FailureTests,
      ConnectionTests,
      FramingTests,
      SlowClientTests,
      HostileClientTests,
      JsonTests,
      JsonStreamTests,
      SecurityTests,
      NegotiationTests,
      MultipartTests,
      StreamTests,
      StreamFlowTests,
      ResponseStreamTests,
      SseTests,
      CorsTests,
      CompressionTests,
      MetricsTests,
      StaticFilesTests,
      OpenTelemetryTests,
      ClientTests
