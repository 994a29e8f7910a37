package rapier.perf

import java.nio.file.{Files, Path}

/**
 * async-profiler on one server of a group (`--profile`), after its rounds: CPU samples over one run of a load, then
 * allocation samples over another, then, for a load scenario with a fixed rate, CPU samples over one run at that rate.
 * The load is what the scenario measures with — wrk for a load scenario, the study's client for a latency study, oha
 * for the fixed rate — so the flame graphs show the work the figures counted. At the fixed rate every server of a
 * group serves the same requests in the same time, so their sample counts compare as CPU time per request. The
 * profiles go to `<out>/profiles/`, named after the start, the server, the scenario and the users.
 */
final class ProfileRuns(out: Path):
  /**
   * @param load
   *   runs the load once against the server, for as long as one profile should last; what it measured is not kept,
   *   but a failed load leaves its profile out, with the reason in the note
   * @param atFixedRate
   *   runs the load once at the group's fixed rate, as long again; none without a fixed rate
   * @param mark
   *   marks the phases on the server's timeline
   */
  def profile(
      m: Member,
      start: Int,
      scenario: Scenario,
      users: Int,
      mark: (Member, String) => Unit,
      atFixedRate: Option[() => Either[String, Any]] = None
  )(load: () => Either[String, Any]): ProfileRun =
    val server = m.server.get
    val name = s"s$start-${m.spec.name}-${scenario.name}-${users}u${if m.replica == 2 then "-aa" else ""}"
    def window(
        event: String,
        suffix: String,
        byBytes: Boolean,
        run: () => Either[String, Any]
    ): Either[String, (String, Long)] =
      val started = server.profileStart(event)
      val loaded = run().left.map(why => s"$suffix profile left out, its load failed: $why")
      val dir = Files.createDirectories(out.resolve("profiles"))
      val stopped = started.flatMap(_ =>
        server.profileStop(dir.resolve(s"$name-$suffix").toAbsolutePath, byBytes).map(n =>
          (s"profiles/$name-$suffix", n)
        )
      )
      loaded.flatMap(_ => stopped)
    mark(m, "CPU profile")
    val cpu = window("cpu", "cpu", byBytes = false, load)
    mark(m, "allocation profile")
    val alloc = window("alloc", "alloc", byBytes = true, load)
    val fixed = atFixedRate.map { run =>
      mark(m, "CPU profile at the fixed rate")
      window("cpu", "cpu-fixed-rate", byBytes = false, run)
    }
    mark(m, "end of profiles")
    val packages = m.spec.implementation.packages
    val share = cpu.toOption.filter(_ => packages.nonEmpty).flatMap((prefix, _) =>
      Profiles.share(out.resolve(s"$prefix.collapsed"), packages, m.spec.implementation.excluded)
    )
    ProfileRun(
      cpuFlamegraph = cpu.toOption.map((p, _) => s"$p.html"),
      allocFlamegraph = alloc.toOption.map((p, _) => s"$p.html"),
      cpuSamples = cpu.toOption.fold(0L)(_._2),
      fixedRateCpuFlamegraph = fixed.flatMap(_.toOption).map((p, _) => s"$p.html"),
      fixedRateCpuSamples = fixed.flatMap(_.toOption).map(_._2),
      library = Option.when(packages.nonEmpty)(packages.map(_ + "*").mkString(", ")),
      ownShare = share.map(_.own),
      stackShare = share.map(_.onStack),
      note = (List(cpu, alloc) ++ fixed).collect { case Left(why) => why }.mkString("; ")
    )
