import sbt._
import sbt.Keys._

/** Settings the build's modules share. */
object Settings {

  /** The compiler every module is built with, and how many tasks run at once. */
  val build: Seq[Setting[_]] = Seq(
    ThisBuild / scalaVersion := "3.3.7",
    ThisBuild / scalacOptions ++= Seq(
      "-deprecation",
      "-feature",
      "-unchecked",
      "-Wunused:imports,privates,locals,implicits",
      "-Werror",
      "-release",
      "17"
    ),
    ThisBuild / javacOptions ++= Seq("--release", "17"),
    // Tests run in JVMs of their own (see ownJvm) and mostly wait on sockets and deadlines: up to four such JVMs at
    // once, where sbt runs one, while compiling still takes the cores one task each.
    Global / concurrentRestrictions := Seq(
      Tags.limitAll(5),
      Tags.limit(Tags.CPU, java.lang.Runtime.getRuntime.availableProcessors),
      Tags.limit(Tags.ForkedTestGroup, 4),
      Tags.exclusiveGroup(Tags.Clean)
    )
  )

  /** The swagger-ui webjar's version, generated into the swaggerUi module: its files' path inside the jar names it. */
  val webjarVersionSource: Setting[_] = Compile / sourceGenerators += Def.task {
    val file = (Compile / sourceManaged).value / "rapier" / "swaggerui" / "WebjarVersion.scala"
    IO.write(
      file,
      s"""package rapier.swaggerui\n\nprivate[swaggerui] object WebjarVersion:\n  val value = "${Versions.swaggerUi}"\n"""
    )
    Seq(file)
  }.taskValue
  val munit = "org.scalameta" %% "munit" % Versions.munit

  // Vert.x brings a newer Netty patch release; every module runs on the build's one Netty instead.
  val nettyPin = dependencyOverrides ++= Seq(
    "common",
    "buffer",
    "transport",
    "handler",
    "handler-proxy",
    "codec-base",
    "codec-compression",
    "codec-http",
    "codec-http2",
    "codec-http3",
    "codec-classes-quic",
    "codec-dns",
    "codec-socks",
    "codec-haproxy",
    "resolver",
    "resolver-dns",
    "transport-native-unix-common",
    "transport-classes-epoll"
  ).map(name => "io.netty" % s"netty-$name" % Versions.netty)

  // Netty's leak detector tracks every buffer in every test JVM: a LEAK fails the build (see rapier.testkit.LeakDetection).
  // Where a leaked buffer was retained and released is recorded only when asked (RAPIER_LEAK_RECORDS=8 ./sbt ...):
  // the stack trace taken at every retain, release and close was a fifth of a kit class's CPU. None is taken at a read
  // or write even then (unmasking one WebSocket frame of 16 MiB took two million: 5-8 s on Vert.x).
  // The tests' JVMs are many and their heaps small: a serial collector needs no threads of its own (G1's took a tenth
  // of a kit class's CPU). A JVM lives a minute or two, and C2's compiling took a third of a kit class's CPU: it
  // compiles only what runs four to ten times as hot as by default (NettyServerTests 30 -> 24 CPU-s, 3 runs each).
  // Each test JVM has a temporary folder of its own, so that a test counting the files left there (uploads) does not
  // count another JVM's, whose tests may run at the same time.
  val testSettings: Seq[Setting[_]] = Seq(
    Test / fork := true,
    Test / javaOptions ++= Seq(
      "-Dio.netty.leakDetection.level=paranoid",
      s"-Dio.netty.leakDetection.targetRecords=${sys.env.getOrElse("RAPIER_LEAK_RECORDS", "0")}",
      "-Dio.netty.leakDetection.acquireAndReleaseOnly=true",
      "-Dio.netty.leakDetection.trackClose=false",
      "-XX:+UseSerialGC",
      "-XX:Tier4InvocationThreshold=50000",
      "-XX:Tier4MinInvocationThreshold=20000",
      "-XX:Tier4CompileThreshold=60000",
      "-XX:Tier4BackEdgeThreshold=400000",
      "-Xmx1g"
    ),
    Test / javaOptions += {
      val tmp = (Test / target).value / "tmp"
      IO.createDirectory(tmp)
      s"-Djava.io.tmpdir=$tmp"
    },
    Test / testGrouping := {
      val options = (Test / forkOptions).value
      val tmp = (Test / target).value / "tmp"
      val (own, rest) = (Test / definedTests).value.partition(t => ownJvm(t.name))
      def group(name: String, tests: Seq[TestDefinition]) = {
        val dir = tmp / name
        IO.createDirectory(dir)
        val jvm = options.runJVMOptions.filterNot(_.startsWith("-Djava.io.tmpdir=")) :+ s"-Djava.io.tmpdir=$dir"
        Tests.Group(name, tests, Tests.SubProcess(options.withRunJVMOptions(jvm)))
      }
      own.map(t => group(t.name, Seq(t))) ++ (if (rest.isEmpty) Nil else Seq(group("rest", rest)))
    },
    Test / testOptions += Tests.Argument(TestFrameworks.MUnit, "-b"),
    libraryDependencies += munit % Test
  )

  /**
   * The test classes that run in a JVM of their own: the shared kit on one server (`*ServerTests`, `*MountTests`) takes
   * one to four minutes, mostly waiting on sockets and deadlines, and a module holds up to three of them. Side by side
   * rather than in turn, the longest module no longer sets the build's length. A module's other tests share one JVM.
   */
  def ownJvm(testClass: String): Boolean = testClass.endsWith("ServerTests") || testClass.endsWith("MountTests")

  /** A module that is built and tested but never published (tests, examples, the suite). */
  val unpublished: Seq[Setting[_]] = Seq(publish / skip := true, publishLocal / skip := true)
}
