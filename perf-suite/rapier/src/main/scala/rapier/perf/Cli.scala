package rapier.perf

import java.nio.file.{Path, Paths}

/** What `./perf` was asked to do. */
enum Command:
  case Run(options: RunOptions)
  case ListCatalogue
  case Serve(server: String, port: Int)
  case Render(results: Path)
  case Attack(options: rapier.perf.attack.Attack.Options)
  case Help

/** Options of a run; see [[Cli.usage]]. */
final case class RunOptions(
    servers: List[String] = List("netty.future.Rapier"),
    scenarios: List[String] = List("SimpleGet", "PostBytes"),
    users: List[Int] = List(64),
    durationSeconds: Int = 2,
    warmupSeconds: Int = 5,
    rounds: Int = 5,
    out: Option[Path] = None,
    target: Option[(String, Int)] = None,
    jvmOptions: List[String] = List("-Xms2g", "-Xmx2g"),
    serverCpus: Option[String] = None,
    loadCpus: Option[String] = None,
    baseline: Option[Path] = None,
    maxRegression: Double = 10.0,
    quick: Boolean = false,
    starts: Int = 1,
    rate: FixedRate = FixedRate.Auto,
    rateGiven: Boolean = false,
    profile: Boolean = false,
    studyRequests: Int = 100,
    studyWarmupRequests: Int = 100,
    studyIntervalMillis: Long = 100,
    studyTickMillis: Long = 100
)

/** The open-model window of each test: at half the vanilla twin's measured maximum, at a given rate, or none. */
enum FixedRate:
  case Auto
  case Off
  case PerSecond(rate: Double)

  def describe: String = this match
    case Auto => "half the vanilla twin's maximum"
    case Off => "off"
    case PerSecond(r) => s"${math.round(r)} requests/s"

object Cli:
  val usage: String =
    """|Usage: ./perf [options]              run the suite and write a report
       |       ./perf --list                 list the servers and scenarios
       |       ./perf serve NAME [--port P]  run one server in the foreground (to profile it by hand)
       |       ./perf report RESULTS.json    write report.html and results.csv again beside a results.json
       |       ./perf attack -s SERVERS [--hostile N] [--kinds LIST] [-d SECONDS]
       |                                     the service under attack: 64 users on SimpleGet, then again beside N
       |                                     hostile connections of each kind (default 100; kinds Announced,
       |                                     Slowloris, Chunks, NeverRead, Pings, Fragments, Cancelled, and on
       |                                     HTTP/2 servers StalledH2, all by default), on each server and its
       |                                     twin, each alone (-d default 10 s): throughput, p99, peak and live
       |                                     memory
       |
       |Options (lists are comma-separated; names accept * and ? wildcards):
       |  -s, --servers LIST       servers to run (default netty.future.Rapier); each one's vanilla twin is added
       |  -m, --scenarios LIST     scenarios, or * for all (default SimpleGet,PostBytes)
       |  -u, --users LIST         concurrent connections, one run each (default 64)
       |  -d, --duration SECONDS   each server's measured time in each round, closed model and fixed rate alike
       |                           (default 2)
       |      --warmup SECONDS     warm-up of each server, discarded (default 5); it goes on, one second at a
       |                           time up to 4x as long, until throughput is stable within 5% and the JIT quiet
       |  -r, --rounds ROUNDS      interleaved rounds: a library, its twin and the twin's second JVM (the A/A
       |                           pair) run at once and take turns, -d seconds each per round (default 5)
       |      --starts N           start each group's servers N times, on fresh JVMs each time (default 1)
       |      --out DIR            where the report goes (default perf-results/<date-time>)
       |      --target HOST:PORT   load a server that is already running instead of starting the catalogue's
       |      --jvm-opts "OPTS"    JVM options of the servers (default "-Xms2g -Xmx2g")
       |      --server-cpus LIST   CPUs the servers are pinned to (default: the first half)
       |      --load-cpus LIST     CPUs wrk and oha are pinned to (default: the second half)
       |      --baseline FILE      results.json of an earlier run: fail if a ratio to vanilla regressed
       |      --max-regression P   how many percent a ratio may drop against the baseline (default 10)
       |      --rate R             in each round, after its closed-model slice, -d seconds at a fixed rate of R
       |                           requests/s (the open model, with oha): latency from each request's intended
       |                           send time and CPU time per request at that rate. auto (default): half the
       |                           vanilla twin's maximum; off: none. auto is skipped with a note if oha is missing
       |      --profile            async-profiler on each server after its rounds, for -d seconds each of CPU and
       |                           allocation samples (a study: one run of its client each): flame graphs, and
       |                           each library's share of CPU samples
       |      --quick              a smoke run of every server and scenario: 2 rounds of 1 s, 1 s warm-up, 16 users
       |                           (studies: 10 messages, 10 in warm-up)
       |
       |Latency studies (-m WebSocketLatency, WebSocketEcho, SseLatency): -u users hold a WebSocket (an event stream)
       |open; the suite's client times each answer from the stamp it carries, to p99.9999, beside hiccup meters in the
       |server JVM and an idle one; each library's percentiles are compared with its twin's, round by round.
       |      --requests N         messages each user sends (events it reads) per round (default 100)
       |      --warmup-requests N  the same, in each server's warm-up, not counted (default 100)
       |      --interval-ms MS     how far apart a user's messages go (default 100)
       |      --tick-ms MS         the servers' clock: answers and events go out at its ticks (default 100)
       |  -h, --help               this text
       |""".stripMargin

  /** The command, or a message saying what is wrong with the arguments. */
  def parse(args: List[String]): Either[String, Command] = args match
    case Nil => Right(Command.Run(RunOptions()))
    case ("-h" | "--help") :: _ => Right(Command.Help)
    case "--list" :: Nil => Right(Command.ListCatalogue)
    case "serve" :: name :: rest => serve(name, rest)
    case "serve" :: Nil => Left("serve needs a server name (see ./perf --list)")
    case "report" :: file :: Nil => Right(Command.Render(Paths.get(file)))
    case "report" :: _ => Left("report needs one results.json file")
    case "attack" :: rest => attack(rest, hostile = 100, kinds = rapier.perf.attack.Hostile.values.toList, Nil)
    case _ => run(args, RunOptions(), Set.empty)

  /**
   * `./perf` with `args` as a shell reads them back into the same words: each argument that holds anything but
   * letters, digits and `_./:=,+@%-` in single quotes (a glob such as `netty.*`, JVM options with spaces). What a run
   * records as its command, to be run again as written.
   */
  def commandLine(args: List[String]): String = ("./perf" :: args.map(shellWord)).mkString(" ")

  private val plainWord = "[A-Za-z0-9_./:=,+@%-]+".r

  private def shellWord(arg: String): String =
    if plainWord.matches(arg) then arg else "'" + arg.replace("'", "'\\''") + "'"

  private def serve(name: String, rest: List[String]): Either[String, Command] =
    if Catalogue.byName(name).isEmpty then Left(s"unknown server '$name' (see ./perf --list)")
    else
      rest match
        case Nil => Right(Command.Serve(name, 8080))
        case ("--port" | "-p") :: p :: Nil => port(p).map(Command.Serve(name, _))
        case other => Left(s"serve takes only --port P, not: ${other.mkString(" ")}")

  /** `./perf attack`: `--hostile N` and `--kinds LIST` of its own, the rest as a run's (servers, duration, CPUs). */
  private def attack(
      args: List[String],
      hostile: Int,
      kinds: List[rapier.perf.attack.Hostile],
      rest: List[String]
  ): Either[String, Command] = args match
    case "--hostile" :: n :: tail =>
      n.toIntOption.filter(_ > 0).toRight(s"--hostile takes a positive count, not '$n'").flatMap(attack(
        tail,
        _,
        kinds,
        rest
      ))
    case "--kinds" :: list :: tail => rapier.perf.attack.Hostile.parse(list).flatMap(attack(tail, hostile, _, rest))
    case a :: tail => attack(tail, hostile, kinds, rest :+ a)
    case Nil =>
      run(rest, RunOptions(servers = Nil, durationSeconds = 10), Set.empty).flatMap {
        case Command.Run(o) if o.servers.isEmpty => Left("attack needs -s SERVERS (see ./perf --list)")
        case Command.Run(o) => Right(Command.Attack(rapier.perf.attack.Attack.Options(o, hostile, kinds)))
        case other => Right(other)
      }

  /** `explicit` holds the options set explicitly, which `--quick` leaves as they are. */
  private def run(args: List[String], o: RunOptions, explicit: Set[String]): Either[String, Command] = args match
    case Nil =>
      val options = if o.quick then quickDefaults(o, explicit) else o
      validate(options).map(Command.Run(_))
    case flag :: tail if flag == "--quick" => run(tail, o.copy(quick = true), explicit)
    case flag :: tail if flag == "--profile" => run(tail, o.copy(profile = true), explicit)
    case flag :: value :: tail if valued.contains(flag) =>
      set(flag, value, o).flatMap(run(tail, _, explicit + canonical(flag)))
    case flag :: Nil if valued.contains(flag) => Left(s"$flag needs a value")
    case other :: _ => Left(s"unknown option '$other' (see ./perf --help)")

  private val valued = Set(
    "-s",
    "--servers",
    "-m",
    "--scenarios",
    "-u",
    "--users",
    "-d",
    "--duration",
    "--warmup",
    "-r",
    "--rounds",
    "--out",
    "--target",
    "--jvm-opts",
    "--server-cpus",
    "--load-cpus",
    "--baseline",
    "--max-regression",
    "--rate",
    "--starts",
    "--requests",
    "--warmup-requests",
    "--interval-ms",
    "--tick-ms"
  )

  private def canonical(flag: String): String = flag match
    case "-s" => "--servers"
    case "-m" => "--scenarios"
    case "-u" => "--users"
    case "-d" => "--duration"
    case "-r" => "--rounds"
    case other => other

  /** `--quick` changes only what was not given explicitly. */
  private def quickDefaults(o: RunOptions, explicit: Set[String]): RunOptions =
    def unless[T](flag: String, quick: T, current: T) = if explicit.contains(flag) then current else quick
    o.copy(
      servers = unless("--servers", List("*"), o.servers),
      scenarios = unless("--scenarios", List("*"), o.scenarios),
      users = unless("--users", List(16), o.users),
      durationSeconds = unless("--duration", 1, o.durationSeconds),
      warmupSeconds = unless("--warmup", 1, o.warmupSeconds),
      rounds = unless("--rounds", 2, o.rounds),
      studyRequests = unless("--requests", 10, o.studyRequests),
      studyWarmupRequests = unless("--warmup-requests", 10, o.studyWarmupRequests)
    )

  private def set(flag: String, value: String, o: RunOptions): Either[String, RunOptions] = flag match
    case "-s" | "--servers" => list(flag, value).map(v => o.copy(servers = v))
    case "-m" | "--scenarios" => list(flag, value).map(v => o.copy(scenarios = v))
    case "-u" | "--users" => list(flag, value).flatMap(ints(flag, _, 1, 100000)).map(v => o.copy(users = v))
    case "-d" | "--duration" => int(flag, value, 1, 86400).map(v => o.copy(durationSeconds = v))
    case "--warmup" => int(flag, value, 0, 3600).map(v => o.copy(warmupSeconds = v))
    case "-r" | "--rounds" => int(flag, value, 1, 1000).map(v => o.copy(rounds = v))
    case "--out" => Right(o.copy(out = Some(Paths.get(value))))
    case "--target" => target(value).map(t => o.copy(target = Some(t)))
    case "--jvm-opts" => Right(o.copy(jvmOptions = value.trim.split("\\s+").toList.filter(_.nonEmpty)))
    case "--server-cpus" => cpus(flag, value).map(v => o.copy(serverCpus = Some(v)))
    case "--load-cpus" => cpus(flag, value).map(v => o.copy(loadCpus = Some(v)))
    case "--baseline" => Right(o.copy(baseline = Some(Paths.get(value))))
    case "--rate" => rate(value).map(r => o.copy(rate = r, rateGiven = true))
    case "--starts" => int(flag, value, 1, 100).map(v => o.copy(starts = v))
    case "--requests" => int(flag, value, 1, 1_000_000).map(v => o.copy(studyRequests = v))
    case "--warmup-requests" => int(flag, value, 0, 1_000_000).map(v => o.copy(studyWarmupRequests = v))
    case "--interval-ms" => int(flag, value, 1, 60_000).map(v => o.copy(studyIntervalMillis = v.toLong))
    case "--tick-ms" => int(flag, value, 1, 60_000).map(v => o.copy(studyTickMillis = v.toLong))
    case "--max-regression" =>
      value.toDoubleOption.filter(p => p >= 0 && p <= 100).toRight(
        s"--max-regression must be a percentage, not '$value'"
      )
        .map(p => o.copy(maxRegression = p))

  private def rate(value: String): Either[String, FixedRate] = value match
    case "auto" => Right(FixedRate.Auto)
    case "off" => Right(FixedRate.Off)
    case n =>
      n.toDoubleOption.filter(r => r >= 1 && r <= 10_000_000).map(FixedRate.PerSecond(_)).toRight(
        s"--rate must be auto, off or a number of requests per second from 1 to 10000000, not '$value'"
      )

  private def list(flag: String, value: String): Either[String, List[String]] =
    val items = value.split(',').map(_.trim).filter(_.nonEmpty).toList
    if items.isEmpty then Left(s"$flag needs at least one value") else Right(items)

  private def int(flag: String, value: String, min: Int, max: Int): Either[String, Int] =
    value.toIntOption.filter(v => v >= min && v <= max).toRight(
      s"$flag must be a whole number from $min to $max, not '$value'"
    )

  private def ints(flag: String, values: List[String], min: Int, max: Int): Either[String, List[Int]] =
    values.foldRight(Right(Nil): Either[String, List[Int]])((v, acc) =>
      acc.flatMap(rest => int(flag, v, min, max).map(_ :: rest))
    )

  private def port(value: String): Either[String, Int] =
    value.toIntOption.filter(p => p > 0 && p < 65536).toRight(s"a port is from 1 to 65535, not '$value'")

  private def target(value: String): Either[String, (String, Int)] =
    value.lastIndexOf(':') match
      case i if i > 0 => port(value.substring(i + 1)).map(p => (value.substring(0, i), p))
      case _ => Left(s"--target must be HOST:PORT, not '$value'")

  private def cpus(flag: String, value: String): Either[String, String] =
    if value.matches("""\d+(-\d+)?(,\d+(-\d+)?)*""") then Right(value)
    else Left(s"$flag must be a CPU list such as 0 or 0-3 or 0,2, not '$value'")

  private def validate(o: RunOptions): Either[String, RunOptions] =
    val unknownServers = o.servers.filterNot(p => Catalogue.servers.exists(s => Glob.matches(p, s.name)))
    val unknownScenarios = o.scenarios.filterNot(p => Scenarios.all.exists(s => Glob.matches(p, s.name)))
    if o.target.isEmpty && unknownServers.nonEmpty then
      Left(s"no server matches ${unknownServers.mkString(", ")} (see ./perf --list)")
    else if unknownScenarios.nonEmpty then
      Left(s"no scenario matches ${unknownScenarios.mkString(", ")} (see ./perf --list)")
    else Right(o)
