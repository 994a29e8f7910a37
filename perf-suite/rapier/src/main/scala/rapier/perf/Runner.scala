package rapier.perf

import java.nio.file.{Files, Path}
import java.time.Instant
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * Runs the suite: start after start, each comparison group (a vanilla twin, the libraries compared with it and a
 * second JVM of the twin, the A/A pair) on each scenario and number of users, every server on a fresh JVM pinned to the
 * server CPUs, measured together by [[Measurement]] with the load generators pinned to the others.
 *
 * @param classpaths
 *   the class path of each side, to launch its servers with
 * @param progress
 *   where progress lines go
 */
final class Runner(options: RunOptions, out: Path, classpaths: Map[Side, String], progress: String => Unit):
  private val cpuPlan = Machine.plan(options)
  private val serverCpus = cpuPlan.server
  private val loadCpus = cpuPlan.load

  /** Pinning needs taskset and two disjoint CPU sets; without them, a run still works, and the report says so. */
  val pinned: Boolean = cpuPlan.pinned

  val servers: List[ServerSpec] = options.target match
    case Some((host, port)) =>
      List(ServerSpec(
        s"target $host:$port",
        Side.Rapier,
        "",
        128,
        false,
        Implementation.Vanilla,
        None,
        "a server already running",
        studies = Study.all
      ))
    case None => Catalogue.select(options.servers)

  val scenarios: List[Scenario] = Scenarios.select(options.scenarios)

  /** A server of a group: `replica` 2 is a vanilla twin's second JVM, the other half of the A/A pair. */
  final case class Entry(server: ServerSpec, replica: Int):
    def label: String = if replica == 1 then server.name else s"${server.name} (A/A)"

  /**
   * One group measured together on a scenario, on one start of its servers: a vanilla twin, the selected libraries
   * compared with it, and the twin again (a second JVM). A selected server with no twin or library beside it is a group
   * of its own.
   */
  final case class Group(start: Int, scenario: Scenario, users: Int, entries: List[Entry])

  /** Starts, each on fresh JVMs, and in each every group on every scenario and number of users. */
  val plan: List[Group] =
    val libraries = servers.filter(_.twin.isDefined)
    val groups: List[List[Entry]] = servers.filterNot(_.twin.exists(t => servers.exists(_.name == t))).map { lead =>
      val compared = libraries.filter(_.twin.contains(lead.name))
      if compared.isEmpty || options.target.isDefined then List(Entry(lead, 1))
      else (Entry(lead, 1) :: compared.map(Entry(_, 1))) :+ Entry(lead, 2)
    }
    for
      start <- (1 to options.starts).toList
      entries <- groups
      scenario <- scenarios
      users <- options.users
    yield Group(start, scenario, users, entries)

  def machine: MachineFacts = Machine.detect(serverCpus, loadCpus, pinned)

  def run(): List[Row] =
    if pinned then pinSelf()
    val scripts = writeScripts()
    val measurement = Measurement(options, out, scripts, Option.when(pinned)(loadCpus), serverCpus.size)
    val studies = StudyMeasurement(
      options,
      out,
      classpaths(Side.Rapier),
      Option.when(pinned)(serverCpus),
      Option.when(pinned)(loadCpus),
      serverCpus.size
    )
    // What a server takes in a group, as first guessed and then as measured, apart for loads and studies
    val settle = ws.Clients.Settle
    def studySeconds(s: Scenario) =
      val pace = s.study.fold(0L)(_.pace(options.studyIntervalMillis, options.studyTickMillis)) / 1000.0
      val clientRun = (options.studyRequests + settle) * pace + 2
      (options.studyWarmupRequests + settle) * pace + (options.rounds + (if options.profile then 2 else 0)) *
        clientRun + 3
    val perServer = scala.collection.mutable.Map[Boolean, Double](
      true ->
        (2.5 * options.warmupSeconds + options.durationSeconds * (if measurement.fixedRates then 2 else 1) +
          (if options.profile then 2 * options.durationSeconds else 0) + 3.0)
    )
    def secondsPerServer(s: Scenario) = perServer.getOrElse(s.isLoad, studySeconds(s))
    plan.zipWithIndex.flatMap { (group, i) =>
      val (servable, other) = group.entries.partition(e => group.scenario.servable(e.server))
      val left = plan.drop(i).map(g =>
        g.entries.count(e => g.scenario.servable(e.server)) *
          secondsPerServer(g.scenario)
      ).sum.toLong.seconds
      if servable.nonEmpty then
        progress(
          f"[${i + 1}%3d/${plan.size}] start ${group.start}/${options.starts}  ${group.scenario.name}%-20s ${group.users}%4d users  " +
            s"${servable.map(_.label).mkString(", ")}   ~${left.toMinutes}m${"%02d".format(left.toSeconds % 60)}s left"
        )
      val started = System.nanoTime()
      val measured = runGroup(group, servable, measurement, studies)
      if servable.nonEmpty then
        // The estimate follows what tests really take on this machine.
        val took = (System.nanoTime() - started) / 1e9 / servable.size
        perServer(group.scenario.isLoad) = 0.7 * secondsPerServer(group.scenario) + 0.3 * took
      measured.filter(_.status != Status.Ok).foreach(r => progress(s"          ${r.server}: ${r.status}: ${r.note}"))
      val notServed = other.map(e =>
        Row.unmeasured(
          group.start,
          e.server,
          group.scenario.name,
          group.users,
          e.replica,
          Status.NotApplicable,
          s"needs a server with ${group.scenario.routes} routes"
        )
      )
      measured ++ notServed
    }

  /** The runner itself runs beside the load generator, away from the server's CPUs. */
  private def pinSelf(): Unit =
    scala.util.Try(ProcessBuilder(
      "taskset",
      "-a",
      "-p",
      "-c",
      loadCpus.mkString(","),
      ProcessHandle.current.pid.toString
    )
      .redirectErrorStream(true).start().waitFor())

  /** wrk's scripts go with the report; the request bodies they read (up to 5 MB) into a temporary directory. */
  private def writeScripts(): Map[String, Measurement.Script] =
    val dir = Files.createDirectories(out.resolve("wrk"))
    val bodies = Files.createTempDirectory("perf-bodies")
    bodies.toFile.deleteOnExit()
    scenarios.filter(_.isLoad).map { s =>
      val body = s.body.map { b =>
        val file = Files.write(bodies.resolve(s"${s.name}.body"), b)
        file.toFile.deleteOnExit()
        file
      }
      s.name -> Measurement.Script(Files.writeString(dir.resolve(s"${s.name}.lua"), Wrk.script(s, body)), body)
    }.toMap

  /**
   * Starts every server of a group (each on a fresh JVM; with its hiccup meter on for a latency study), measures them
   * together, and stops them.
   */
  private def runGroup(
      group: Group,
      entries: List[Entry],
      measurement: Measurement,
      studies: StudyMeasurement
  ): List[Row] =
    def unmeasured(e: Entry, status: String, note: String) =
      Row.unmeasured(group.start, e.server, group.scenario.name, group.users, e.replica, status, note)
    def measure(members: List[Member]) =
      if group.scenario.isLoad then measurement.measure(group.start, group.scenario, group.users, members)
      else studies.measure(group.start, group.scenario, group.users, members)
    options.target match
      case Some((host, port)) =>
        measure(List(Member(entries.head.server, 1, host, port, None)))
      case None =>
        val started = entries.map { e =>
          e -> classpaths.get(e.server.side).toRight(
            s"the ${e.server.side} side of the suite is not built (run ./perf to build it)"
          ).flatMap(classpath => Jdks.javaFor(e.server.java).map((classpath, _))).flatMap { (classpath, java) =>
            val command = ServerProcess.command(
              java,
              options.jvmOptions ++ (if options.profile then Measurement.ProfilingJvmOptions else Nil) ++
                (if group.scenario.isLoad then Nil else List(StudyMeasurement.tick(options))),
              classpath,
              e.server,
              0,
              serverCpus.size,
              Option.when(pinned)(serverCpus),
              stopOnEof = true
            )
            val hiccups = if group.scenario.isLoad then Nil else List("--hiccups", "true")
            ServerProcess.start(command.copy(args = command.args ++ hiccups))
          }
        }
        try
          val members = started.collect { case (e, Right(p)) =>
            Member(e.server, e.replica, "127.0.0.1", p.port, Some(p))
          }
          val measured = measure(members)
          val failed = started.collect { case (e, Left(why)) => unmeasured(e, Status.Failed, why) }
          entries.flatMap(e =>
            (measured ++ failed).find(r => r.server == e.server.name && r.replica == e.replica)
          )
        finally started.foreach(_._2.foreach(_.stop()))

object Runner:
  def now(): String = Instant.now().toString

  /** A class path from a file written by the build, or none when the file is missing. */
  def classpathFrom(file: Path): Option[String] =
    if Files.isRegularFile(file) then Some(Files.readString(file).trim).filter(_.nonEmpty) else None

  def listFiles(dir: Path): List[Path] = Files.list(dir).iterator.asScala.toList
