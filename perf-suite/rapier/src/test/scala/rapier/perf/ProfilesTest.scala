package rapier.perf

class ProfilesTest extends munit.FunSuite:
  private val stacks = List(
    // Rapier's own code: its innermost frame outside the JDK is Rapier's.
    "java/lang/Thread.run;io/netty/channel/nio/NioEventLoop.run;rapier/server/internal/PathTrie.find 30",
    // The JDK called from Rapier counts as Rapier's.
    "java/lang/Thread.run;rapier/netty/internal/HttpHandler.channelRead;java/lang/String.indexOf_[j] 20",
    // Netty writing on Rapier's behalf: on Rapier's stack, Netty's own.
    "java/lang/Thread.run;rapier/netty/internal/HttpHandler.respond;io/netty/channel/AbstractChannel.write;__libc_write_[k] 25",
    // The suite's own server code is not the library's.
    "java/lang/Thread.run;rapier/perf/servers/RapierNettyServer.start 5",
    // The JVM's own threads.
    "[GC_active];G1ParScanThreadState::trim_queue 20"
  )

  test("a library's own share: samples whose innermost frame outside the JDK and Scala is the library's"):
    val share = Profiles.share(stacks.iterator, List("rapier."), List("rapier.perf.")).get
    assertEquals(share.samples, 100L)
    assertEqualsDouble(share.own, 0.50, 1e-12)
    assertEqualsDouble(share.onStack, 0.75, 1e-12)

  test("frames written with dots read the same; no samples, no share"):
    val dotted = stacks.map(_.replace('/', '.'))
    assertEquals(
      Profiles.share(dotted.iterator, List("rapier."), List("rapier.perf.")),
      Profiles.share(stacks.iterator, List("rapier."), List("rapier.perf."))
    )
    assertEquals(Profiles.share(Iterator.empty, List("rapier."), Nil), None)
