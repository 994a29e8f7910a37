package rapier.perf

/** How the suite's own tests start servers: for runs of a few seconds that check answers and results, not figures. */
object BriefRuns:
  /**
   * C1 alone compiles what so short a run executes, and a serial collector needs no threads of its own: about a quarter
   * less CPU per server than the JVM's defaults, which tune for long runs.
   */
  val jvmOptions: List[String] =
    List("-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-XX:+UseSerialGC")

  /** The same, as `./perf` takes them. */
  val cliOptions: List[String] = List("--jvm-opts", jvmOptions.mkString(" "))
