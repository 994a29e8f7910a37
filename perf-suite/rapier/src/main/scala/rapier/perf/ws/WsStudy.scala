package rapier.perf.ws

import rapier.perf.*

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import scala.sys.process.*
import scala.util.Try

/**
 * The WebSocket study (seed 000), scaled to this machine: `./perf ws [options]`, and with `--path /sse/ts` the SSE
 * study (users reading a server's events, one a tick). Each server runs pinned to the server CPU with its hiccup meter
 * on; the client ([[WsClient]], [[SseClient]]) runs in a JVM of its own on the load CPU, and an idle JVM's
 * hiccup meter on the server CPU beside it: the latency percentiles of the application, of its JVM and of the OS
 * (the idle JVM), side by side. Servers are measured in turn, round after round (the order rotating), the twin twice
 * (A/A) for the noise.
 */
object WsStudy:
  final case class Options(
      servers: List[String] = List("netty.Vanilla", "netty.future.Rapier"),
      path: String = "/ws/ts",
      users: Int = 500,
      requests: Int = 100,
      intervalMillis: Long = 100,
      warmupRequests: Int = 100,
      rounds: Int = 3,
      out: Path = Path.of("target/perf/ws")
  ):
    /** The SSE study rather than the WebSocket one: the server's events, one a tick, no messages sent. */
    def events: Boolean = path.startsWith("/sse/")

    /** How far apart what is timed comes: the client's interval, or the server's tick. */
    def pace: Long = if events then rapier.perf.common.Ticks.Millis else intervalMillis

  val usage: String =
    """./perf ws [--servers a,b] [--path /ws/ts|/ws/echo|/sse/ts] [-u USERS] [--requests N] [--interval-ms MS]
      |          [--warmup-requests N] [-r ROUNDS] [--out DIR]
      |  The WebSocket study: USERS clients each send N messages MS apart; latency from each answer's timestamp.
      |  With --path /sse/ts, the SSE study: USERS clients each read N events, one per 100 ms tick of the server's,
      |  latency from each event's timestamp (--interval-ms doesn't apply).
      |  Defaults: netty.Vanilla and netty.future.Rapier, /ws/ts, 500 users, 100 requests, 100 ms, 3 rounds.""".stripMargin

  def parse(args: List[String], o: Options = Options()): Either[String, Options] = args match
    case Nil => Right(o)
    case "--servers" :: v :: rest => parse(rest, o.copy(servers = v.split(',').toList.map(_.trim).filter(_.nonEmpty)))
    case "--path" :: v :: rest => parse(rest, o.copy(path = v))
    case "-u" :: v :: rest => v.toIntOption.filter(_ > 0).toRight(s"-u takes a count, not '$v'").flatMap(n =>
        parse(rest, o.copy(users = n))
      )
    case "--requests" :: v :: rest => v.toIntOption.filter(_ > 0).toRight(s"--requests takes a count, not '$v'")
        .flatMap(n => parse(rest, o.copy(requests = n)))
    case "--warmup-requests" :: v :: rest => v.toIntOption.filter(_ >= 0)
        .toRight(s"--warmup-requests takes a count, not '$v'").flatMap(n => parse(rest, o.copy(warmupRequests = n)))
    case "--interval-ms" :: v :: rest => v.toLongOption.filter(_ > 0)
        .toRight(s"--interval-ms takes milliseconds, not '$v'").flatMap(n => parse(rest, o.copy(intervalMillis = n)))
    case "-r" :: v :: rest => v.toIntOption.filter(_ > 0).toRight(s"-r takes a count, not '$v'").flatMap(n =>
        parse(rest, o.copy(rounds = n))
      )
    case "--out" :: v :: rest => parse(rest, o.copy(out = Path.of(v)))
    case other :: _ => Left(s"unknown option '$other'")

  /** One server's numbers in one round: JSON objects as the client and the meters printed them. */
  final case class Measured(server: String, round: Int, client: String, serverHiccups: String, idleHiccups: String)

  def run(o: Options, command: String, classpaths: Map[Side, String]): Int =
    val specs = o.servers.map(n => n -> Catalogue.byName(n))
    specs.collectFirst { case (n, None) => n } match
      case Some(unknown) =>
        System.err.println(s"perf ws: no server '$unknown' (./perf --list names them)")
        2
      case None =>
        val cpus = Machine.onlineCpus()
        val (serverCpus, loadCpus) = Machine.defaultSplit(cpus)
        val pinned = Machine.canPin && cpus.size >= 2
        def pin(c: List[Int]) = if pinned then List("taskset", "-c", c.mkString(",")) else Nil
        val rapierClasspath = classpaths(Side.Rapier)
        val members = specs.flatMap(_._2) match
          case first :: rest => (first, 1) :: (first, 2) :: rest.map(_ -> 1)
          case Nil => Nil
        val started = members.map { (spec, replica) =>
          val java = Jdks.javaFor(spec.java).getOrElse("java")
          val classpath = classpaths.getOrElse(spec.side, rapierClasspath)
          val cmd = ServerProcess.command(
            java,
            Nil,
            classpath,
            spec,
            0,
            serverCpus.size,
            Option.when(pinned)(serverCpus),
            stopOnEof = true
          ) ++ List("--hiccups", "true")
          (label(spec.name, replica), ServerProcess.start(cmd))
        }
        try
          started.collect { case (l, Left(why)) => System.err.println(s"perf ws: $l did not start: $why") }
          val live = started.collect { case (l, Right(p)) => l -> p }
          def client(p: ServerProcess, requests: Int): String =
            val main =
              if o.events then List("rapier.perf.ws.SseClient", s"http://127.0.0.1:${p.port}${o.path}")
              else List("rapier.perf.ws.WsClient", s"ws://127.0.0.1:${p.port}${o.path}")
            val interval = if o.events then Nil else List(o.intervalMillis.toString)
            (pin(loadCpus) ++ List("java", "-Xmx1g", "-cp", rapierClasspath) ++ main ++
              List(o.users.toString, requests.toString) ++ interval).!!.trim.linesIterator.toList.last
          live.foreach { (l, p) =>
            System.err.println(s"perf ws: warming $l up (${o.warmupRequests} requests per user)")
            if o.warmupRequests > 0 then client(p, o.warmupRequests)
          }
          val seconds = (o.requests * o.pace / 1000 + 5).toInt
          val results =
            for
              round <- 0 until o.rounds
              order = live.drop(round % live.size) ++ live.take(round % live.size)
              (l, p) <- order
            yield
              System.err.println(s"perf ws: round ${round + 1}/${o.rounds}, $l")
              p.hiccups() // the meter's record restarts here
              val idleMeter =
                pin(serverCpus) ++ List("java", "-cp", rapierClasspath, "rapier.perf.common.Hiccups", seconds.toString)
              val idleRun = java.util.concurrent.CompletableFuture.supplyAsync(() => Process(idleMeter).!!.trim)
              val measured = client(p, o.requests)
              val serverHiccups = p.hiccups().getOrElse("{}")
              Measured(l, round, measured, serverHiccups, Try(idleRun.get()).getOrElse("{}"))
          write(o, command, results.toList, pinned, serverCpus, loadCpus)
          0
        finally started.foreach(_._2.foreach(_.stop()))

  private def label(name: String, replica: Int) = if replica == 2 then s"$name (A/A)" else name

  private def write(
      o: Options,
      command: String,
      results: List[Measured],
      pinned: Boolean,
      serverCpus: List[Int],
      loadCpus: List[Int]
  ): Unit =
    Files.createDirectories(o.out)
    val rows = results.map(m =>
      s"""{"server":"${m.server}","round":${m.round},"client":${m.client},"serverHiccups":${m.serverHiccups},""" +
        s""""idleHiccups":${m.idleHiccups}}"""
    )
    Files.writeString(o.out.resolve("results.json"), rows.mkString("[\n", ",\n", "\n]\n"), StandardCharsets.UTF_8)
    def name(p: Double) = if p == p.floor then s"p${p.toInt}" else s"p$p"
    val header =
      "| server | round | what | " + rapier.perf.common.Hiccups.Percentiles.map(name).mkString(" | ") +
        " | max | count |\n|" + "---|" * (rapier.perf.common.Hiccups.Percentiles.size + 5) + "\n"
    def line(server: String, round: Int, what: String, json: String) =
      val values = rapier.perf.common.Hiccups.Percentiles.map(p => field(json, s"p$p")) :+ field(json, "max")
      s"| $server | ${round + 1} | $what | ${values.mkString(" | ")} | ${field(json, "count")} |\n"
    val table = results.map(m =>
      line(m.server, m.round, "application", m.client) +
        line(m.server, m.round, "server JVM hiccups", m.serverHiccups) +
        line(m.server, m.round, "idle JVM hiccups", m.idleHiccups)
    ).mkString
    val failures = results.map(m => s"${m.server} round ${m.round + 1}: ${field(m.client, "failures")} failed users")
    // The table's lines start with `|`: put in after the margin is stripped
    val what =
      if o.events then
        s"""${o.users} users, each reading ${o.requests} events (one per ${o.pace} ms tick) after ${o.warmupRequests}
           |warm-up events; latency in ms, from the timestamp each event carries to its arrival at the client.""".stripMargin
      else
        s"""${o.users} users, each sending ${o.requests} messages ${o.intervalMillis} ms apart after ${o.warmupRequests}
           |warm-up messages; latency in ms, from the timestamp each answer carries to its arrival at the client.""".stripMargin
    val intro =
      s"""# ${if o.events then "SSE" else "WebSocket"} study: ${o.path}
         |
         |Command: `$command`
         |
         |Machine: ${machine(serverCpus, loadCpus, pinned)}
         |
         |$what
         |Servers pinned to CPU ${serverCpus.mkString(",")}, the client to CPU ${loadCpus.mkString(",")}.
         |""".stripMargin
    val readme = s"$intro\n${ratios(results)}\n$header$table\n${failures.mkString("\n")}\n"
    Files.writeString(o.out.resolve("README.md"), readme, StandardCharsets.UTF_8)

  private def machine(serverCpus: List[Int], loadCpus: List[Int], pinned: Boolean): String =
    val m = Machine.detect(serverCpus, loadCpus, pinned)
    f"${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB}%.1f GiB, ${m.os}, Linux ${m.kernel}, ${m.jdk}"

  /**
   * Each server's latency percentiles as ratios to the twin's in the same round (the twin is the first server; its
   * second JVM, the A/A pair, gives the noise): the geometric mean over the rounds, and the rounds' range.
   */
  private def ratios(results: List[Measured]): String =
    val twin = results.headOption.map(_.server).getOrElse("")
    val keys = List(50.0, 99.0, 99.9, 99.99, 99.9999)
    def name(p: Double) = if p == p.floor then s"p${p.toInt}" else s"p$p"
    val others = results.map(_.server).distinct.filter(_ != twin)
    val rows = others.map { server =>
      val cells = keys.map { p =>
        val perRound = results.groupBy(_.round).values.toList.flatMap { round =>
          def value(s: String) = round.find(_.server == s).flatMap(m => field(m.client, s"p$p").toDoubleOption)
          for t <- value(twin) if t > 0; v <- value(server) yield v / t
        }
        if perRound.isEmpty then "–"
        else
          val mean = math.exp(perRound.map(math.log).sum / perRound.size)
          f"$mean%.2f [${perRound.min}%.2f–${perRound.max}%.2f]"
      }
      s"| $server | ${cells.mkString(" | ")} |\n"
    }
    s"Latency as a ratio to $twin's in the same round (geometric mean [range over rounds]; the A/A row is the noise):\n\n" +
      s"| server | ${keys.map(name).mkString(" | ")} |\n|${"---|" * (keys.size + 1)}\n${rows.mkString}"

  /** A number of a flat JSON object, as text, or "–". */
  private def field(json: String, name: String): String =
    val at = json.indexOf(s""""$name":""")
    if at < 0 then "–"
    else json.substring(at + name.length + 3).takeWhile(c => c != ',' && c != '}').trim
