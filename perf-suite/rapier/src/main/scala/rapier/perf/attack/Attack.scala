package rapier.perf.attack

import rapier.perf.*

import java.net.InetSocketAddress
import java.nio.file.{Files, Path}

/**
 * `./perf attack`: the service under attack. Each server chosen, and its vanilla twin, runs alone on a fresh JVM: 64
 * users run SimpleGet with wrk (warmed up first), then again while `hostile` connections of each kind chosen
 * ([[Hostile]]) run beside them, then alone again. It reports the users' throughput and p99 with and without the
 * attackers, the heap's and the process's peak memory, and whether the server still answered afterwards.
 */
object Attack:
  final case class Options(run: RunOptions, hostile: Int, kinds: List[Hostile])

  final case class Result(
      server: String,
      before: Option[WrkResult],
      during: Option[WrkResult],
      after: Option[WrkResult],
      heapBeforeMiB: Double,
      heapPeakMiB: Double,
      liveIdleMiB: Option[Double],
      liveAttackedMiB: Option[Double],
      rssPeakMiB: Double,
      opened: Long,
      closedByServer: Long,
      survived: Boolean,
      note: String
  )

  private val users = 64

  def run(o: Options, classpaths: Map[Side, String], command: String, out: Path): Int =
    val CpuPlan(serverCpus, loadCpus, pinned) = Machine.plan(o.run)
    // The users' scenario, over HTTPS to a server that serves nothing else
    def scenarioFor(spec: ServerSpec) =
      Scenarios.all.find(_.name == (if spec.tls then "SimpleGetTls" else "SimpleGet")).get
    Files.createDirectories(out.resolve("wrk"))
    val libraries = Catalogue.servers.filter(s => o.run.servers.exists(p => Glob.matches(p, s.name)))
    val specs = libraries.flatMap(l => l.twin.flatMap(Catalogue.byName).toList :+ l).distinct
    val results = specs.map { spec =>
      println(s"attack: ${spec.name}")
      val started = classpaths.get(spec.side).toRight(s"the ${spec.side} side is not built").flatMap { cp =>
        Jdks.javaFor(spec.java).flatMap { java =>
          val cmd = ServerProcess.command(
            java,
            o.run.jvmOptions,
            cp,
            spec,
            0,
            serverCpus.size,
            Option.when(pinned)(serverCpus),
            stopOnEof = true
          )
          ServerProcess.start(cmd)
        }
      }
      started match
        case Left(why) => Result(spec.name, None, None, None, 0, 0, None, None, 0, 0, 0, false, why)
        case Right(server) =>
          val scenario = scenarioFor(spec)
          val lua = Files.writeString(out.resolve(s"wrk/${scenario.name}.lua"), Wrk.script(scenario, None))
          try attack(o, server, spec, scenario, lua, Option.when(pinned)(loadCpus))
          finally server.stop()
    }
    val report = summary(o, command, results)
    Files.writeString(out.resolve("summary.md"), report)
    println(report)
    0

  private def attack(
      o: Options,
      server: ServerProcess,
      spec: ServerSpec,
      scenario: Scenario,
      lua: Path,
      loadCpus: Option[List[Int]]
  ): Result =
    val name = spec.name
    val url = s"${scenario.scheme}://127.0.0.1:${server.port}${scenario.path}"
    def wrk(seconds: Int) = Measurement.exec(Wrk.command(url, users, seconds, lua, loadCpus)).flatMap(Wrk.parse)
    wrk(o.run.warmupSeconds)
    val before = wrk(o.run.durationSeconds)
    val liveIdle = server.liveHeapMiB()
    val attackStart = System.currentTimeMillis()
    val address = InetSocketAddress("127.0.0.1", server.port)
    // Over TLS only the HTTP/2 kind speaks the server's protocol; the others are sent as plain bytes
    val attackers = Attackers(address, if spec.tls then Nil else o.kinds, o.hostile)
    val stalled = Option.when(spec.http2 && o.kinds.exists(_.http2))(StalledStreams(address, spec.tls, o.hostile))
    attackers.start()
    stalled.foreach(_.start())
    // The attackers connect and send their first bytes before the users are measured
    Thread.sleep(2000)
    val liveEarly = server.liveHeapMiB()
    val during = wrk(o.run.durationSeconds)
    val liveLate = server.liveHeapMiB()
    val attackEnd = System.currentTimeMillis()
    attackers.stop()
    stalled.foreach(_.stop())
    Thread.sleep(1000)
    val survived = server.alive && Probe.check("127.0.0.1", server.port, scenario).isEmpty
    val after = if survived then wrk(o.run.durationSeconds) else Left("the server did not survive")
    val samples = server.samples()
    def peak(series: ServerSamples => Array[Long], from: Long, until: Long): Double =
      samples.fold(0.0) { s =>
        val inside = s.epochMillis.indices.filter(i => s.epochMillis(i) >= from && s.epochMillis(i) < until)
        if inside.isEmpty then 0.0 else inside.map(series(s)(_)).max / 1048576.0
      }
    Result(
      name,
      before.toOption,
      during.toOption,
      after.toOption,
      heapBeforeMiB = peak(_.heapBytes, 0L, attackStart),
      heapPeakMiB = peak(_.heapBytes, attackStart, attackEnd),
      liveIdleMiB = liveIdle,
      liveAttackedMiB = (liveEarly.toList ++ liveLate.toList).maxOption,
      rssPeakMiB = peak(_.rssBytes, attackStart, attackEnd),
      opened = attackers.opened + stalled.fold(0L)(_.opened),
      closedByServer = attackers.closedByServer + stalled.fold(0L)(_.closedByServer),
      survived = survived,
      note = List(before.left.toOption, during.left.toOption).flatten.mkString("; ")
    )

  private def summary(o: Options, command: String, results: List[Result]): String =
    def rate(r: Option[WrkResult]) = r.fold("–")(w => f"${w.throughput}%,.0f")
    def p99(r: Option[WrkResult]) = r.fold("–")(w => f"${w.latency.p99 / 1000}%.1f ms")
    def errors(r: Option[WrkResult]) = r.fold("")(w => if w.errors > 0 then s" (${w.errors} errors)" else "")
    def live(m: Option[Double]) = m.fold("–")(v => f"$v%.0f")
    val rows = results.map { r =>
      // The attacked run over the mean of the runs before and after it: a drift of the server's own (JIT, GC) over
      // the three runs counts against neither side
      val calm = (r.before.toList ++ r.after.toList).map(_.throughput)
      val ratio = r.during.filter(_ => calm.nonEmpty).fold("–")(d => f"${d.throughput / (calm.sum / calm.size)}%.2f")
      s"| `${r.server}` | ${rate(r.before)} / ${rate(r.after)} | ${rate(r.during)}${errors(r.during)} | $ratio | " +
        f"${p99(r.before)} | ${p99(r.during)} | ${r.heapBeforeMiB}%.0f → ${r.heapPeakMiB}%.0f MiB | " +
        s"${live(r.liveIdleMiB)} → ${live(r.liveAttackedMiB)} MiB | " +
        f"${r.rssPeakMiB}%.0f MiB | ${r.opened} / ${r.closedByServer} | ${if r.survived then "yes" else "**no**"} |" +
        (if r.note.nonEmpty then s" ${r.note.take(200)}" else "")
    }
    val kinds = o.kinds.map(k => s"${k.toString} (${k.description})").mkString("; ")
    val head =
      s"""```sh
         |$command
         |```
         |
         |${Runner.now()}; each server alone on a fresh JVM (${o.run.jvmOptions.mkString(" ")}), $users users running
         |SimpleGet with wrk for ${o.run.durationSeconds} s after ${o.run.warmupSeconds} s of warm-up, then again beside
         |${o.hostile} hostile connections of each kind, then again alone. Kinds: $kinds. The ratio is the attacked
         |run's throughput over the mean of the runs before and after. Heap: the largest sample before the attack and
         |during it; live heap: what a full collection left, just before the attack and at its most (2 s into it, and
         |at its end); RSS: the process's largest during it. Opened / closed: the hostile connections opened (again,
         |after the server closed them) and those the server closed. A TLS server's users run SimpleGetTls, and only
         |the HTTP/2 kind attacks it.
         |
         || server | req/s before / after | req/s attacked | ratio | p99 | p99 attacked | heap | live heap | peak RSS | opened / closed | answers after |
         ||---|---|---|---|---|---|---|---|---|---|---|
         |""".stripMargin
    head + rows.mkString("", "\n", "\n")
