package rapier.testkit

/**
 * The whole shared server test kit. A backend runs it with a class of a few lines:
 * {{{
 * class NettyServerTests extends ServerTests:
 *   def server = NettyTestServer
 * }}}
 */
abstract class ServerTests
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
      TlsTests
