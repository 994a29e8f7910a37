package rapier.perf.common

/**
 * The entry point of a server JVM:
 * {{{
 * java -cp ... rapier.perf.common.ServerMain <PerfServer class> --port P --routes R --log true|false --threads T
 *   [--compression true] [--tls true] [--http2 true]
 * }}}
 * Starts the server and its [[ControlServer]], then prints one line the runner waits for:
 * `RAPIER_PERF_READY port=<port> control=<port> pid=<pid> routeSets=<n>`. Stops on SIGTERM (or when its input closes).
 */
object ServerMain:
  val ReadyPrefix = "RAPIER_PERF_READY"

  def main(args: Array[String]): Unit =
    if args.isEmpty then fail("usage: ServerMain <PerfServer class> --port P --routes R --log true|false --threads T")
    val className = args.head
    val flags = args.tail.grouped(2).collect { case Array(k, v) => k -> v }.toMap
    def int(name: String, default: Int) =
      flags.get(name).map(v => v.toIntOption.getOrElse(fail(s"$name must be a number, not '$v'"))).getOrElse(default)
    val config = ServerConfig(
      port = int("--port", 0),
      routes = int("--routes", 1),
      requestLog = flags.get("--log").contains("true"),
      threads = int("--threads", Runtime.getRuntime.availableProcessors),
      compression = flags.get("--compression").contains("true"),
      // Written where the runner gave the server its temporary directory
      tls = Option.when(flags.get("--tls").contains("true"))(
        TlsFiles.writeTo(java.nio.file.Path.of(System.getProperty("java.io.tmpdir")))
      ),
      http2 = flags.get("--http2").contains("true")
    )
    val server =
      try Class.forName(className).getDeclaredConstructor().newInstance().asInstanceOf[PerfServer]
      catch case e: ReflectiveOperationException => fail(s"cannot create the server $className: $e")
    val sampler = Sampler()
    val port = server.start(config)
    val hiccups = if flags.get("--hiccups").contains("true") then Hiccups() else null
    val control = ControlServer(sampler, hiccups)
    Runtime.getRuntime.addShutdownHook(Thread(
      () =>
        server.stop();
        control.stop();
        sampler.stop()
      ,
      "perf-server-stop"
    ))
    println(
      s"$ReadyPrefix port=$port control=${control.port} pid=${ProcessHandle.current.pid} routeSets=${server.routeSets}"
    )
    System.out.flush()
    // Foreground mode (./perf serve) keeps running until Ctrl-C; under the runner, closing our input stops us too.
    if flags.get("--stop-on-eof").contains("true") then
      while System.in.read() != -1 do ()
      System.exit(0)
    else Thread.currentThread.join()

  private def fail(message: String): Nothing =
    System.err.println(message)
    sys.exit(2)
